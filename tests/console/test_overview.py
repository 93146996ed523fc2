"""The console's overview (`#/`): the balance the API gives, credits per UTC day and operation
as an SVG chart with a table of the same numbers, and the recent jobs linking to their pages,
after real jobs ran through the embedded worker."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.core.timeutil import travel, utcnow
from soundstage.credits import service as credits
from tests.support.console import ConsolePage, ConsoleServer

CHART = "Credits charged per day, by operation"
TEXT = "The console shows what the account spent."


def completed_tts(server: ConsoleServer, text: str = TEXT) -> dict[str, Any]:
    """A real TTS job through the server's worker, completed: its job record."""
    spoken = server.api("POST", "/api/v1/speech/tts", json={"voice_id": "voice_kal", "text": text})
    assert spoken.status_code == 200, spoken.text
    job = server.api("GET", f"/api/v1/jobs/{spoken.json()['job_id']}").json()
    assert (job["status"], job["credits_used"]) == ("completed", len(text))
    return dict(job)


def bar(page: Page, day: str, operation: str) -> Any:
    return page.locator(f'svg rect.bar[data-date="{day}"][data-operation="{operation}"]')


def test_overview_shows_the_balance_the_chart_and_the_recent_job(
    console: ConsolePage, server: ConsoleServer
) -> None:
    job = completed_tts(server)
    balance = server.api("GET", "/api/v1/credits").json()
    usage = server.api("GET", "/api/v1/credits/usage?days=30").json()
    today = usage["end_date"]

    page = console.sign_in()
    expect(page.get_by_role("heading", name="Overview", level=1)).to_be_visible()
    shown = page.locator("#credit-balance data")
    expect(shown).to_have_attribute("value", str(balance["balance"]))
    expect(shown).to_have_text(page.evaluate(f"({balance['balance']}).toLocaleString()"))
    expect(page.locator("#credit-reserved data")).to_have_attribute(
        "value", str(balance["reserved"])
    )

    expect(page.get_by_role("img", name=CHART)).to_be_visible()
    tts = bar(page, today, "tts")
    expect(tts).to_have_count(1)
    expect(tts).to_have_attribute("data-credits", str(usage["credits"]))
    assert usage["credits"] >= len(TEXT)
    expect(tts.locator("title")).to_contain_text(f"{today} (UTC), tts:")
    assert tts.evaluate("r => r.getBBox().height") > 0

    # The table alternative gives the same numbers.
    page.get_by_text("Show the numbers as a table").click()
    table = page.get_by_role("table", name="Credits charged per UTC day and operation")
    row = table.get_by_role("row", name=today)
    expect(row.get_by_role("cell").last).to_have_text(f"{usage['credits']:,}")

    # A shorter window asks the API for it.
    page.get_by_label("Period").select_option(label="Last 7 days")
    week = server.api("GET", "/api/v1/credits/usage?days=7").json()
    expect(page.locator(".usage-total")).to_contain_text(f"from {week['start_date']} to {today}")

    link = page.get_by_role("link", name=job["job_id"])
    jobs_row = page.get_by_role("row").filter(has=link)
    expect(jobs_row).to_contain_text("tts")
    expect(jobs_row).to_contain_text("completed")
    link.click()
    expect(page).to_have_url(f"{server.url}/console/#/jobs/{job['job_id']}")


@pytest.fixture
def history(server: ConsoleServer) -> Iterator[dict[str, dict[str, int]]]:
    """Two weeks of charges on the demo account before today, made by the credits service in
    the server's database (reserve, then capture, on each past day): what a used account's
    ledger holds. {day: {operation: credits}}."""
    settings = Settings(
        database_url=server.env["SOUNDSTAGE_DATABASE_URL"],
        data_dir=Path(server.env["SOUNDSTAGE_DATA_DIR"]),
    )
    key = next(k for k in server.api("GET", "/api/v1/keys").json()["data"] if k["current"])
    demo = Principal(server.account_id, "sandbox", key["id"])
    charged: dict[str, dict[str, int]] = {}
    database = Database(settings)
    try:
        for back in range(1, 15):
            spent = {
                "tts": 400 + 90 * (back % 5),
                "stt": 250 * (back % 3),
                "sound": 150 * (back % 2),
            }
            with travel(-timedelta(days=back)):
                day = utcnow().date().isoformat()
                for operation, amount in spent.items():
                    if amount:
                        with database.session() as session:
                            held = credits.reserve(session, demo, amount, operation, f"seed_{day}")
                        with database.session() as session:
                            credits.capture(session, held.id, amount)
            charged[day] = {op: n for op, n in spent.items() if n}
        yield charged
    finally:
        database.dispose()


def test_the_chart_stacks_each_days_operations_and_screenshot(
    console: ConsolePage, server: ConsoleServer, history: dict[str, dict[str, int]]
) -> None:
    completed_tts(server, "A second job for the screenshot.")
    sound = server.api(
        "POST",
        "/api/v1/creative/sound",
        json={"prompt": "rain on a tin roof", "duration_seconds": 2},
    )
    assert sound.status_code == 200, sound.text
    page = console.sign_in()
    expect(page.get_by_role("img", name=CHART)).to_be_visible()
    for day, operations in history.items():
        for operation, amount in operations.items():
            expect(bar(page, day, operation)).to_have_attribute("data-credits", str(amount))
    usage = server.api("GET", "/api/v1/credits/usage?days=30").json()
    expect(page.locator(".usage-total data")).to_have_attribute("value", str(usage["credits"]))
    assert usage["credits"] >= sum(sum(ops.values()) for ops in history.values())
    expect(page.get_by_role("link", name=sound.json()["job_id"])).to_be_visible()
    console.screenshot("02-overview")
