"""The console's Jobs pages with real jobs run by the server's embedded worker: the list and
its filters (against what GET /api/v1/jobs answers for the same filter), "Load more", a job's
detail (polled while it runs: its stages, its error envelope once failed; an ended one saying
how it ended, not the stage it last worked in; a completed one's result playing in the
browser), and cancelling a long job from its page."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from soundstage.jobs.schemas import JobStatus
from soundstage.media.audio import Audio
from tests.support.audio import audio_bytes
from tests.support.console import DESKTOP, PHONE, ConsolePage, ConsoleServer, service_kinds

PAGE_SIZE = 20  # the console's page of jobs


def assert_fits_a_phone(page: Page) -> None:
    """At 390 px nothing makes the page scroll sideways (wide tables scroll in their box)."""
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.set_viewport_size(DESKTOP)


def tts(server: ConsoleServer, text: str) -> dict[str, Any]:
    response = server.api(
        "POST", "/api/v1/speech/tts", json={"voice_id": "voice_sarah", "text": text}
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def upload_tone(server: ConsoleServer, seconds: int) -> str:
    """A tone (no speech in it) uploaded to the server: its media URL."""
    t = np.arange(seconds * 16_000) / 16_000
    tone = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32).reshape(-1, 1)
    response = server.api(
        "POST",
        "/api/v1/uploads",
        files={"file": ("tone.wav", audio_bytes(Audio(tone, 16_000)), "audio/wav")},
    )
    assert response.status_code == 200, response.text
    url: str = response.json()["url"]
    return url


def dub(server: ConsoleServer, media_url: str) -> str:
    response = server.api(
        "POST",
        "/api/v1/speech/dubbing",
        json={"media_url": media_url, "source_language": "en", "target_language": "es"},
    )
    assert response.status_code == 200, response.text
    job_id: str = response.json()["job_id"]
    return job_id


def job(server: ConsoleServer, job_id: str) -> dict[str, Any]:
    body: dict[str, Any] = server.api("GET", f"/api/v1/jobs/{job_id}").json()
    return body


def api_ids(server: ConsoleServer, **filters: str) -> list[str]:
    page = server.api("GET", "/api/v1/jobs", params={**filters, "limit": 100}).json()
    assert not page["has_more"]
    return [j["job_id"] for j in page["data"]]


def listed_ids(page: Page) -> list[str]:
    rows = page.get_by_role("table", name="Jobs").locator("tbody tr td:first-child")
    return rows.all_inner_texts()


@pytest.fixture(scope="module")
def speech(server: ConsoleServer) -> list[dict[str, Any]]:
    """More TTS jobs than one page of the list holds, oldest first."""
    return [tts(server, f"Line number {n} of the jobs page test.") for n in range(PAGE_SIZE + 1)]


def test_jobs_are_listed_filtered_and_paged(
    console: ConsolePage, server: ConsoleServer, speech: list[dict[str, Any]]
) -> None:
    sound = server.api("POST", "/api/v1/creative/sound", json={"prompt": "rain on a tin roof"})
    assert sound.status_code == 200, sound.text
    console.sign_in()
    page = console.open("/jobs")
    table = page.get_by_role("table", name="Jobs")
    newest = sound.json()["job_id"]
    expect(table.get_by_role("link", name=newest)).to_be_visible()
    expect(table.locator("tbody tr")).to_have_count(PAGE_SIZE)

    # An ended job's progress says how it ended, not the stage it last worked in.
    ended = job(server, newest)
    assert ended["stage"], ended
    row = table.get_by_role("row").filter(has=page.get_by_role("link", name=newest))
    expect(row.get_by_role("cell").nth(3)).to_have_text("100% · Succeeded")

    # "Load more" fetches the next page after the last row shown.
    page.get_by_role("button", name="Load more").click()
    expect(table.locator("tbody tr")).to_have_count(len(api_ids(server)))
    assert listed_ids(page) == api_ids(server)
    expect(page.get_by_role("button", name="Load more")).to_have_count(0)

    # Each filter shows what the API answers for it.
    page.get_by_label("Kind").select_option("sound")
    expect(table.locator("tbody tr")).to_have_count(1)
    assert listed_ids(page) == api_ids(server, kind="sound") == [newest]
    page.get_by_label("Status").select_option("completed")
    expect(table.locator("tbody tr")).to_have_count(1)
    assert listed_ids(page) == api_ids(server, kind="sound", status="completed")
    page.get_by_label("Status").select_option("failed")
    expect(page.get_by_text("No jobs match these filters.")).to_be_visible()
    assert api_ids(server, kind="sound", status="failed") == []

    page.get_by_label("Kind").select_option("")
    page.get_by_label("Status").select_option("")
    expect(table.locator("tbody tr")).to_have_count(PAGE_SIZE)
    console.screenshot("jobs")
    assert_fits_a_phone(page)


def test_a_completed_jobs_detail_shows_it_succeeded_and_its_result_plays(
    console: ConsolePage, server: ConsoleServer, speech: list[dict[str, Any]]
) -> None:
    made = speech[-1]
    console.sign_in()
    page = console.open(f"/jobs/{made['job_id']}")
    said = job(server, made["job_id"])
    expect(page.get_by_role("heading", name=made["job_id"])).to_be_visible()
    expect(page.locator(".status").first).to_have_text("completed")
    # The API keeps the stage it last worked in; the page says it succeeded instead.
    assert said["stage"] == "encoding", said
    expect(page.get_by_test_id("job-outcome")).to_have_text("Succeeded")
    expect(page.get_by_test_id("job-stage")).to_have_count(0)
    status = page.get_by_role("region", name="Status")
    expect(status).not_to_contain_text(said["stage"])
    expect(page.get_by_label("Progress")).to_have_attribute("aria-valuetext", "100%")
    credits_used = page.locator("dt:text-is('Credits used') + dd")
    expect(credits_used).to_have_text(str(said["credits_used"]))
    audio = page.get_by_label("Result: output")
    expect(audio).to_be_visible()
    duration = audio.evaluate(
        """audio => new Promise((resolve, reject) => {
            const done = () => resolve(audio.duration);
            if (audio.readyState >= 1) done();
            audio.addEventListener("loadedmetadata", done);
            audio.addEventListener("error", () => reject(new Error("audio error")));
        })"""
    )
    assert duration > 0
    assert abs(duration * 1000 - said["result"]["duration_ms"]) < 250
    expect(page.get_by_role("button", name="Cancel job")).to_have_count(0)
    console.screenshot("05-job-detail")
    assert_fits_a_phone(page)


def test_a_running_jobs_detail_follows_its_stages_until_it_fails(
    console: ConsolePage, server: ConsoleServer
) -> None:
    # A dubbing of a tone: it runs through several stages, then fails (no speech in it).
    tone = upload_tone(server, 30)
    console.sign_in()
    job_id = dub(server, tone)
    page = console.open(f"/jobs/{job_id}")
    stages = page.get_by_role("list", name="Stages seen")
    expect(page.get_by_role("alert")).to_contain_text("no_speech", timeout=120_000)
    said = job(server, job_id)
    assert (said["status"], said["error"]["code"]) == ("failed", "no_speech")
    expect(page.get_by_role("alert")).to_contain_text(said["error"]["message"])
    expect(page.get_by_role("alert")).to_contain_text("field media_url")
    expect(page.locator(".status").first).to_have_text("failed")
    expect(page.get_by_test_id("job-outcome")).to_have_text("Failed")
    expect(page.get_by_role("region", name="Status")).to_contain_text(
        f"Failed (stopped while {said['stage']})"
    )
    # The page watched it from its first stage to the one it failed in.
    seen = stages.get_by_role("listitem").all_inner_texts()
    assert "separating" in seen, seen
    assert seen[-1] == said["stage"] != "separating", seen
    expect(page.get_by_role("button", name="Cancel job")).to_have_count(0)


def test_a_long_job_cancelled_in_the_console_is_cancelled(
    console: ConsolePage, server: ConsoleServer
) -> None:
    tone = upload_tone(server, 180)
    console.sign_in()
    job_id = dub(server, tone)
    page = console.open(f"/jobs/{job_id}")
    expect(page.locator(".status").first).to_have_text("processing", timeout=60_000)
    page.get_by_role("button", name="Cancel job").click()
    expect(page.locator(".status").first).to_have_text("cancelled")
    expect(page.get_by_test_id("job-outcome")).to_have_text("Cancelled")
    expect(page.get_by_role("button", name="Cancel job")).to_have_count(0)
    said = job(server, job_id)
    assert (said["status"], said["credits_used"]) == ("cancelled", 0)


def test_the_kind_filter_offers_every_kind_the_service_runs(
    console: ConsolePage, server: ConsoleServer
) -> None:
    kinds = service_kinds(server)
    console.sign_in()
    page = console.open("/jobs")
    options = (
        page.get_by_label("Kind")
        .locator("option")
        .evaluate_all("options => options.map(o => o.value)")
    )
    assert options[0] == ""
    assert set(options[1:]) == kinds
    statuses = (
        page.get_by_label("Status")
        .locator("option")
        .evaluate_all("options => options.map(o => o.value)")
    )
    assert statuses == ["", *(s.value for s in JobStatus)]
