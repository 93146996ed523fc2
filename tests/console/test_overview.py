"""The console's overview (`#/`): the balance the API gives, credits per UTC day and operation
as an SVG chart with a table of the same numbers, and the recent jobs linking to their pages,
after real jobs ran through the embedded worker; every operation the usage reports in its own
colour and texture, named in the legend; the chart's labels legible on a phone."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.core.timeutil import travel, utcnow
from soundstage.credits import service as credits
from tests.support.console import PHONE, ConsolePage, ConsoleServer, service_kinds

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


def charge(server: ConsoleServer, spent: dict[int, dict[str, int]]) -> dict[str, dict[str, int]]:
    """Charges on the demo account `back` days before today, {back: {operation: credits}},
    made by the credits service in the server's database (reserve, then capture, on that
    day): what a used account's ledger holds. {day: {operation: credits}}."""
    settings = Settings(
        database_url=server.env["SOUNDSTAGE_DATABASE_URL"],
        data_dir=Path(server.env["SOUNDSTAGE_DATA_DIR"]),
    )
    key = next(k for k in server.api("GET", "/api/v1/keys").json()["data"] if k["current"])
    demo = Principal(server.account_id, "sandbox", key["id"])
    charged: dict[str, dict[str, int]] = {}
    database = Database(settings)
    try:
        for back, operations in spent.items():
            with travel(-timedelta(days=back)):
                day = utcnow().date().isoformat()
                for operation, amount in operations.items():
                    if amount:
                        with database.session() as session:
                            held = credits.reserve(session, demo, amount, operation, f"seed_{day}")
                        with database.session() as session:
                            credits.capture(session, held.id, amount)
            charged[day] = {op: n for op, n in operations.items() if n}
    finally:
        database.dispose()
    return charged


@pytest.fixture
def history(server: ConsoleServer) -> dict[str, dict[str, int]]:
    """Two weeks of charges before today: tts, stt and sound. {day: {operation: credits}}."""
    return charge(
        server,
        {
            back: {
                "tts": 400 + 90 * (back % 5),
                "stt": 250 * (back % 3),
                "sound": 150 * (back % 2),
            }
            for back in range(1, 15)
        },
    )


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
    console.screenshot("overview")


# Each bar's colour (its computed fill) and texture (the pattern over it), by operation.
LOOKS = """chart => [...chart.querySelectorAll("rect.bar")].map(bar => {
  const over = bar.nextElementSibling.getAttribute("fill").match(/#([^)"]+)/)[1];
  return {
    operation: bar.dataset.operation,
    colour: getComputedStyle(bar).fill,
    texture: chart.querySelector(`pattern[id="${over}"]`).dataset.texture,
  };
})"""


def test_every_operation_has_its_own_colour_and_texture_named_in_the_legend(
    console: ConsolePage, server: ConsoleServer
) -> None:
    # Every operation the usage can report: each job kind, and `other` (a charge of none).
    operations = sorted(service_kinds(server) | {"other"})
    assert {"tts", "tts_realtime", "dialogue", "alignment", "daw", "dubbing"} <= set(operations)
    charged = charge(server, {20: {op: 100 + 10 * i for i, op in enumerate(operations)}})
    (day,) = charged
    page = console.sign_in()
    chart = page.get_by_role("img", name=CHART)
    expect(chart).to_be_visible()
    for operation, amount in charged[day].items():
        expect(bar(page, day, operation)).to_have_attribute("data-credits", str(amount))

    looks = chart.evaluate(LOOKS)
    shown = sorted({look["operation"] for look in looks})
    assert set(operations) <= set(shown)
    colour = {look["operation"]: look["colour"] for look in looks}
    texture = {look["operation"]: look["texture"] for look in looks}
    # One look per operation wherever it is drawn, and no two operations alike in either.
    assert all(
        (colour[x["operation"]], texture[x["operation"]]) == (x["colour"], x["texture"])
        for x in looks
    )
    assert len(set(colour.values())) == len(shown), colour
    assert len(set(texture.values())) == len(shown), texture

    # The legend names every operation drawn, each beside its colour and texture.
    legend = page.get_by_role("list", name="Operations").get_by_role("listitem")
    expect(legend).to_have_text(shown)
    for operation in shown:
        key = page.locator(f'.legend li[data-operation="{operation}"] svg')
        assert (
            key.locator(".swatch-colour").evaluate("r => getComputedStyle(r).fill")
            == colour[operation]
        )
        assert key.locator("pattern").get_attribute("data-texture") == texture[operation]


# Each date label of the chart: its box on the screen and its size in CSS pixels as drawn.
LABELS = """texts => texts.map(text => {
  const box = text.getBoundingClientRect();
  const scale = text.ownerSVGElement.getScreenCTM().a;
  return {
    text: text.textContent,
    left: box.left, right: box.right, top: box.top, bottom: box.bottom,
    px: parseFloat(getComputedStyle(text).fontSize) * scale,
  };
})"""


def test_the_charts_labels_are_legible_and_apart_on_a_phone(
    console: ConsolePage, server: ConsoleServer
) -> None:
    completed_tts(server, "Something to chart on a phone.")
    page = console.sign_in()
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.clientWidth") == PHONE["width"]
    chart = page.locator("svg.usage-chart")
    for days in (7, 30, 90):
        page.get_by_label("Period").select_option(label=f"Last {days} days")
        usage = server.api("GET", f"/api/v1/credits/usage?days={days}").json()
        expect(page.locator(".usage-total")).to_contain_text(f"from {usage['start_date']}")
        expect(chart.locator("g.day")).to_have_count(days)
        # Drawn as wide as its box on the phone (one unit a pixel).
        box = page.locator(".chart-wrap").evaluate("wrap => wrap.clientWidth")
        expect(chart).to_have_attribute("width", str(box))
        edge = chart.evaluate("svg => svg.getBoundingClientRect().toJSON()")
        assert edge["right"] <= PHONE["width"]
        labels = chart.locator("text.axis").evaluate_all(LABELS)
        assert len(labels) >= 3, labels
        # Today is always labelled, and every label is inside the chart.
        today = page.evaluate(
            f"new Date('{usage['end_date']}T00:00:00Z').toLocaleDateString("
            "undefined, {month: 'short', day: 'numeric', timeZone: 'UTC'})"
        )
        assert labels[-1]["text"] == today
        for label in labels:
            assert label["px"] >= 11, label
            assert edge["left"] <= label["left"], label
            assert label["right"] <= edge["right"], label
        # Left to right, each ends at least 4 px before the next begins.
        for before, after in pairwise(labels):
            assert before["right"] + 4 <= after["left"], (before, after)
        ticks = chart.locator(".tick text").evaluate_all(LABELS)
        assert all(tick["px"] >= 11 for tick in ticks), ticks
