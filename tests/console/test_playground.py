"""The playground (#/playground): text to speech played with its words highlighted, speech to
text from a file and from the microphone (Chromium's fake capture device) with its subtitles,
a sound effect, voice isolation. Every run is a real job through the embedded worker, with
real audio played in the browser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.support.console import ConsolePage, ConsoleServer, chromium
from tests.support.processes import REPO_ROOT

# "He was not an ill-disposed young man," read for LibriVox: 3 s, 16 kHz mono.
SPEECH = REPO_ROOT / "tests/fixtures/librivox/sense_and_sensibility_01_austen_64kb-0880.flac"
JOB_TIMEOUT = 120_000  # ms: a first job loads its model; the 2 cores are shared.

# Records the words highlighted while the audio plays, in order (each change once).
WATCH_HIGHLIGHT = """(list) => {
  window.__highlighted = [];
  new MutationObserver(() => {
    const word = list.querySelector('[aria-current="true"] .word-text');
    const seen = window.__highlighted;
    if (word && seen[seen.length - 1] !== word.textContent) seen.push(word.textContent);
  }).observe(list, { subtree: true, attributes: true, attributeFilter: ["aria-current"] });
}"""


def open_playground(console: ConsolePage, tab: str) -> tuple[Page, Locator]:
    console.sign_in()
    page = console.open("/playground")
    page.get_by_role("tab", name=tab).click()
    return page, page.get_by_role("tabpanel", name=tab)


def player(panel: Locator, name: str) -> Locator:
    """The <figure> of the player captioned `name` (its state in `data-state`)."""
    return panel.locator("figure.player").filter(has=panel.page.get_by_label(name, exact=True))


def job_id_shown(panel: Locator) -> str:
    link = panel.get_by_role("link", name=re.compile(r"^job_"))
    expect(link).to_be_visible(timeout=JOB_TIMEOUT)
    return link.inner_text()


def play_to_the_end(figure: Locator) -> None:
    expect(figure).to_have_attribute("data-state", re.compile("ready|paused|ended"))
    figure.locator("audio").evaluate("audio => audio.play()")
    expect(figure).to_have_attribute("data-state", "ended", timeout=30_000)
    assert figure.locator("audio").evaluate("audio => audio.ended && audio.duration > 0")


def test_a_tts_made_in_the_playground_plays_with_its_words_highlighted(
    console: ConsolePage, server: ConsoleServer
) -> None:
    said = ["The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog."]
    page, panel = open_playground(console, "Text to speech")
    voice = panel.get_by_label("Voice")
    catalog = server.api("GET", "/api/v1/voices", params={"limit": 100}).json()["data"]
    expect(voice.locator("option")).to_have_count(len(catalog))
    # Grouped by language, each voice with its rating; the best-rated one chosen first.
    best = max(catalog, key=lambda v: (v["quality"] or {"mos": 0.0})["mos"])
    expect(voice).to_have_value(best["voice_id"])
    languages = list(dict.fromkeys(v["language"] for v in catalog))
    expect(voice.locator("optgroup")).to_have_count(len(languages))
    group = voice.locator(f'optgroup[label="{best["language"]}"] option')
    expect(group.first).to_have_attribute("value", best["voice_id"])
    expect(group.first).to_contain_text(f"MOS {best['quality']['mos']:.1f}")
    mos = f"{best['quality']['mos']:.2f} / 5"
    expect(panel.get_by_label("Rated naturalness")).to_contain_text(mos)
    voice.select_option("voice_joe")
    preview = player(panel, "Preview of Joe")
    # A voice's first preview is synthesized on demand.
    expect(preview).to_have_attribute("data-state", "ready", timeout=JOB_TIMEOUT)
    assert preview.locator("audio").evaluate("audio => audio.duration") > 0

    panel.get_by_label("Text").fill(" ".join(said))
    panel.get_by_label("Speed").fill("1.2")
    panel.get_by_label("Output format").select_option("wav")
    panel.get_by_role("button", name="Speak").click()
    job_id = job_id_shown(panel)
    words = panel.get_by_role("list", name="Word timestamps").get_by_role("listitem")
    expect(words).to_have_count(9, timeout=JOB_TIMEOUT)
    expect(words.first).to_contain_text("The")
    expect(words.last).to_contain_text("dog.")

    panel.get_by_role("list", name="Word timestamps").evaluate(WATCH_HIGHLIGHT)
    speech = player(panel, "Speech")
    play_to_the_end(speech)
    highlighted = page.evaluate("window.__highlighted")
    # The highlight went along the text, in order (a frame may skip a short word).
    assert len(highlighted) >= 4, highlighted
    positions = [said.index(word) for word in highlighted]
    assert positions == sorted(positions), highlighted
    assert positions[-1] >= 6, highlighted
    expect(panel.locator('[aria-current="true"]')).to_have_count(0)

    # The job the API lists is the one the page made, with the options chosen.
    listed = server.api("GET", "/api/v1/jobs", params={"kind": "tts", "limit": 1}).json()["data"]
    assert listed[0]["job_id"] == job_id
    job = server.api("GET", f"/api/v1/jobs/{job_id}").json()
    assert job["status"] == "completed"
    assert [w["word"] for w in job["result"]["words"]] == said
    assert job["result"]["output_url"].split("?")[0].endswith(".wav")
    assert job["credits_used"] == len(" ".join(said))

    # Seeking into the audio highlights the word spoken there, for the screenshot.
    second = job["result"]["words"][4]
    speech.locator("audio").evaluate(
        "(audio, ms) => { audio.currentTime = ms / 1000; }", second["start_ms"] + 10
    )
    expect(panel.locator('[aria-current="true"]')).to_contain_text("jumps")
    console.screenshot("playground-tts")


def test_an_error_of_the_api_is_shown_and_nothing_is_charged(
    console: ConsolePage, server: ConsoleServer
) -> None:
    console.allow_error("422")

    def tts_jobs() -> list[str]:
        listed = server.api("GET", "/api/v1/jobs", params={"kind": "tts", "limit": 100})
        return [job["job_id"] for job in listed.json()["data"]]

    before = tts_jobs()
    _, panel = open_playground(console, "Text to speech")
    expect(panel.get_by_label("Voice").locator("option").first).to_be_attached()
    panel.get_by_label("Text").fill("   ")
    panel.get_by_role("button", name="Speak").click()
    alert = panel.get_by_role("alert")
    expect(alert).to_contain_text("something to say")
    expect(alert).to_contain_text("field text")
    assert tts_jobs() == before


def test_the_tabs_work_from_the_keyboard(console: ConsolePage) -> None:
    console.sign_in()
    page = console.open("/playground")
    page.get_by_role("tab", name="Text to speech").focus()
    page.keyboard.press("ArrowRight")
    stt = page.get_by_role("tab", name="Speech to text")
    expect(stt).to_be_focused()
    expect(stt).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="Speech to text")).to_be_visible()
    expect(page.get_by_role("tabpanel", name="Text to speech")).to_be_hidden()
    page.keyboard.press("End")
    expect(page.get_by_role("tabpanel", name="Voice isolation")).to_be_visible()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="Text to speech")).to_be_focused()


def assert_transcribed(panel: Locator, server: ConsoleServer, words: str) -> str:
    """The transcript shown holds `words`, with timestamps, and the job is the API's."""
    job_id = job_id_shown(panel)
    transcript = panel.locator("blockquote.transcript")
    expect(transcript).to_contain_text(re.compile(words, re.I), timeout=JOB_TIMEOUT)
    rows = panel.get_by_role("table").get_by_role("row")
    expect(rows.nth(1).get_by_role("cell").first).to_have_text(re.compile(r"^00:0\d\.\d{3}$"))
    job = server.api("GET", f"/api/v1/jobs/{job_id}").json()
    assert (job["kind"], job["status"]) == ("stt", "completed")
    assert job["result"]["transcript"].strip() == transcript.inner_text().strip()
    # Followed to its end, the job says it completed, not the stage it last worked in.
    line = panel.locator(".job-line")
    expect(line.locator(".status")).to_have_text("completed")
    assert job["stage"], job
    expect(line).not_to_contain_text(job["stage"])
    return job_id


def test_a_file_is_transcribed_with_timestamps_and_its_srt_downloads(
    console: ConsolePage, server: ConsoleServer
) -> None:
    page, panel = open_playground(console, "Speech to text")
    panel.get_by_label("Audio file").set_input_files(SPEECH)
    panel.get_by_label("Tell the speakers apart").check()
    panel.get_by_role("button", name="Transcribe").click()
    job_id = assert_transcribed(panel, server, r"young man")
    table = panel.get_by_role("table")
    expect(table.get_by_role("columnheader")).to_have_text(["Start", "End", "Speaker", "Text"])
    expect(table.get_by_role("row").nth(1).get_by_role("cell").nth(2)).to_have_text("speaker_1")
    expect(panel.get_by_role("listitem").filter(has_text="speaker_1:")).to_contain_text("1 turn")

    with page.expect_download() as download:
        panel.get_by_role("link", name="Download SRT").click()
    assert download.value.suggested_filename == f"{job_id}.srt"
    srt = Path(download.value.path()).read_text()
    assert re.search(r"^00:00:0\d,\d{3} --> 00:00:0\d,\d{3}$", srt, re.M), srt
    assert "young man" in srt.lower()
    assert srt == server.api("GET", f"/api/v1/jobs/{job_id}/transcript.srt").text
    with page.expect_download() as download:
        panel.get_by_role("link", name="Download VTT").click()
    assert Path(download.value.path()).read_text().startswith("WEBVTT")


# The microphone: Chromium's fake capture device, reading a WAV the service speaks. One
# Playwright runs per test process, so this file's `browser` (the conftest's, overridden)
# is launched with the fake device for every test here; the others never open it.
MICROPHONE_TEXT = "Testing the microphone."


@pytest.fixture(scope="module")
def browser(server: ConsoleServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    spoken = server.api(
        "POST",
        "/api/v1/speech/tts",
        json={"text": MICROPHONE_TEXT, "voice_id": "voice_joe", "format": "wav"},
    )
    spoken.raise_for_status()
    wav = tmp_path_factory.mktemp("microphone") / "speech.wav"
    wav.write_bytes(httpx.get(spoken.json()["output_url"], timeout=60).content)
    switches = [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={wav}",
    ]
    with chromium(switches) as launched:
        yield launched


def test_a_microphone_recording_is_transcribed(console: ConsolePage, server: ConsoleServer) -> None:
    _, panel = open_playground(console, "Speech to text")
    panel.get_by_role("button", name="Record from the microphone").click()
    # The fake device loops the file (about 1.5 s): 3 s hold it once whole.
    expect(panel.get_by_role("status")).to_contain_text(
        re.compile(r"Recording… ([3-9]|\d\d)\."), timeout=15_000
    )
    panel.get_by_role("button", name="Stop recording").click()
    recording = player(panel, "Your recording")
    expect(recording).to_have_attribute("data-state", "ready")
    expect(panel.get_by_text(re.compile(r"To transcribe: recording\.\w+"))).to_be_visible()
    panel.get_by_role("button", name="Transcribe").click()
    assert_transcribed(panel, server, r"microphone")


def test_a_sound_effect_is_generated_and_plays(console: ConsolePage, server: ConsoleServer) -> None:
    _, panel = open_playground(console, "Sound effects and music")
    panel.get_by_label("A sound effect").check()
    panel.get_by_label("Prompt").fill("a dog barking")
    panel.get_by_label("Duration (seconds)").fill("2")
    panel.get_by_role("button", name="Generate").click()
    job_id = job_id_shown(panel)
    sound = player(panel, "Sound effect")
    expect(sound).to_be_visible(timeout=JOB_TIMEOUT)
    play_to_the_end(sound)
    assert 1.9 < sound.locator("audio").evaluate("audio => audio.duration") < 2.1
    job = server.api("GET", f"/api/v1/jobs/{job_id}").json()
    assert (job["kind"], job["status"]) == ("sound", "completed")
    assert job["result"]["duration_ms"] == 2000


def test_music_is_generated_within_its_bounds(console: ConsolePage, server: ConsoleServer) -> None:
    _, panel = open_playground(console, "Sound effects and music")
    panel.get_by_label("Music").check()
    # Music lasts 10 s at least: the 5 s of a sound effect become 10.
    expect(panel.get_by_label("Duration (seconds)")).to_have_value("10")
    panel.get_by_label("Prompt").fill("a calm piano piece")
    panel.get_by_label("Output format").select_option("mp3")
    expect(panel.get_by_label("Instrumental (no singing)")).to_be_checked()
    panel.get_by_role("button", name="Generate").click()
    job_id = job_id_shown(panel)
    music = player(panel, "Music")
    expect(music).to_have_attribute("data-state", "ready", timeout=JOB_TIMEOUT)
    assert 9.9 < music.locator("audio").evaluate("audio => audio.duration") < 10.2
    job = server.api("GET", f"/api/v1/jobs/{job_id}").json()
    assert (job["kind"], job["status"]) == ("music", "completed")
    assert job["result"]["duration_ms"] == 10000


def test_isolation_gives_a_vocals_and_a_background_player(
    console: ConsolePage, server: ConsoleServer
) -> None:
    _, panel = open_playground(console, "Voice isolation")
    panel.get_by_label("Mixed audio file").set_input_files(SPEECH)
    panel.get_by_role("button", name="Isolate the voice").click()
    job_id = job_id_shown(panel)
    for name in ("Vocals", "Background"):
        stem = player(panel, name)
        expect(stem).to_have_attribute("data-state", "ready", timeout=JOB_TIMEOUT)
        assert 2.5 < stem.locator("audio").evaluate("audio => audio.duration") < 4
    job = server.api("GET", f"/api/v1/jobs/{job_id}").json()
    assert (job["kind"], job["status"]) == ("isolation", "completed")
    assert {"vocals_url", "background_url"} <= job["result"].keys()
