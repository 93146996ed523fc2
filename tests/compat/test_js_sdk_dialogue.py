"""ElevenLabs' official JavaScript SDK (`@elevenlabs/elevenlabs-js`, pinned in
tests/compat/js/package-lock.json) reading a dialogue of two voices against a live server over
plain HTTP (its REST calls need no TLS): `textToDialogue.convert` as raw PCM at 16 kHz and
`convertWithTimestamps` as WAV at 16 kHz, each run by Node in tests/compat/js/
elevenlabs_dialogue.mjs, held to the same dialogue through the native POST
/api/v1/speech/dialogue: its length, its turns, its credits."""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from soundstage.core.db import Database
from tests.support.elevenlabs import decode_output
from tests.support.factories import Customer, create_customer
from tests.support.streams import charges_of

pytestmark = pytest.mark.usefixtures("node_modules")

SCRIPT = "elevenlabs_dialogue.mjs"
# Two voices, three turns (the first voice again after the second): (voice_id, text).
LINES = [
    ("voice_kal", "Are you coming to the market with us this morning?"),
    ("voice_sarah", "Yes, I will meet you at the corner in ten minutes."),
    ("voice_kal", "Good, bring the big basket."),
]
CHARACTERS = sum(len(text) for _, text in LINES)
# The native dialogue's default silence between two turns.
PAUSE_SECONDS = 0.3


def credits_of(live_url: str, customer: Customer) -> int:
    answer = httpx.get(f"{live_url}/api/v1/credits", headers=customer.auth(), timeout=30)
    body = answer.json()
    assert body["reserved"] == 0
    return int(body["balance"])


@pytest.fixture(scope="module")
def native(live_url: str, db: Database) -> dict[str, Any]:
    """The same dialogue through POST /api/v1/speech/dialogue: duration, turns and charge."""
    customer = create_customer(db, credits_each=10_000)
    answer = httpx.post(
        f"{live_url}/api/v1/speech/dialogue",
        headers=customer.auth(),
        json={
            "inputs": [{"voice_id": voice, "text": text} for voice, text in LINES],
            "format": "wav",
            "timestamps": True,
        },
        timeout=180,
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    assert body["characters_processed"] == body["credits_used"] == CHARACTERS
    return body


def run_sdk(
    live_url: str, customer: Customer, call: str, output_format: str, out: Path, cwd: Path
) -> dict[str, Any]:
    """Runs the script's `call` under Node and answers the JSON it printed."""
    inputs = json.dumps([{"text": text, "voiceId": voice} for voice, text in LINES])
    command = ["node", SCRIPT, "--base-url", live_url, "--key", customer.sandbox_key]
    command += ["--call", call, "--inputs", inputs, "--format", output_format, "--out", str(out)]
    ran = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=180)
    assert ran.returncode == 0, f"exit {ran.returncode}\n{ran.stdout}\n{ran.stderr}"
    result: dict[str, Any] = json.loads(ran.stdout.strip().splitlines()[-1])
    assert result["failure"] is None
    return result


def test_convert_reads_the_dialogue_as_pcm_at_16_khz(
    live_url: str, db: Database, native: dict[str, Any], node_modules: Path, tmp_path: Path
) -> None:
    customer = create_customer(db, credits_each=10_000)
    out = tmp_path / "dialogue.pcm"
    result = run_sdk(live_url, customer, "convert", "pcm_16000", out, node_modules.parent)
    data = out.read_bytes()
    assert result["bytes"] == len(data) > 0
    assert len(data) % 2 == 0  # whole 16-bit samples
    audio = decode_output(data, "pcm_16000")
    # Read at 16 kHz, it lasts as long as the native dialogue (24 kHz): the rate asked for.
    assert audio.seconds == pytest.approx(native["duration_ms"] / 1000, abs=0.1)
    # One `dialogue` job (named by the answer's header; it completes once its file is
    # stored, after the last byte), charged a credit per character of every turn.
    assert sum(charges_of(live_url, customer, result["jobId"])) == CHARACTERS
    assert credits_of(live_url, customer) == 10_000 - CHARACTERS
    job = httpx.get(
        f"{live_url}/api/v1/jobs/{result['jobId']}", headers=customer.auth(), timeout=30
    ).json()
    assert (job["kind"], job["status"], job["credits_used"]) == (
        "dialogue",
        "completed",
        CHARACTERS,
    )
    assert [turn["voice_id"] for turn in job["result"]["turns"]] == [voice for voice, _ in LINES]
    assert job["result"]["duration_ms"] == pytest.approx(native["duration_ms"], abs=100)


def test_convert_with_timestamps_gives_each_voice_in_turn(
    live_url: str, db: Database, native: dict[str, Any], node_modules: Path, tmp_path: Path
) -> None:
    customer = create_customer(db, credits_each=10_000)
    out = tmp_path / "dialogue.json"
    run_sdk(live_url, customer, "with-timestamps", "wav_16000", out, node_modules.parent)
    # As the SDK parsed it: camelCase fields.
    answer = json.loads(out.read_text())
    audio = decode_output(base64.b64decode(answer["audioBase64"]), "wav_16000")
    assert audio.sample_rate == 16_000
    assert audio.seconds == pytest.approx(native["duration_ms"] / 1000, abs=0.1)
    assert credits_of(live_url, customer) == 10_000 - CHARACTERS
    # Every character of every turn, the turns one after the other, each timed in order.
    alignment = answer["alignment"]
    assert "".join(alignment["characters"]) == "".join(text for _, text in LINES)
    starts = alignment["characterStartTimesSeconds"]
    ends = alignment["characterEndTimesSeconds"]
    assert len(starts) == len(ends) == CHARACTERS
    assert starts == sorted(starts)
    assert all(start <= end for start, end in zip(starts, ends, strict=True))
    assert ends[-1] <= audio.seconds + 0.05
    assert answer["normalizedAlignment"] == alignment
    # One segment per turn, in order, over its own characters, where the native turn is.
    segments = answer["voiceSegments"]
    assert [(s["voiceId"], s["dialogueInputIndex"]) for s in segments] == [
        (voice, index) for index, (voice, _) in enumerate(LINES)
    ]
    bounds = [0]
    for _, text in LINES:
        bounds.append(bounds[-1] + len(text))
    assert [(s["characterStartIndex"], s["characterEndIndex"]) for s in segments] == list(
        itertools.pairwise(bounds)
    )
    for segment, turn in zip(segments, native["turns"], strict=True):
        assert segment["startTimeSeconds"] < segment["endTimeSeconds"]
        assert segment["startTimeSeconds"] == pytest.approx(turn["start_ms"] / 1000, abs=0.1)
        assert segment["endTimeSeconds"] == pytest.approx(turn["end_ms"] / 1000, abs=0.1)
    # Each voice starts after the one before stops, by the default pause.
    for before, after in itertools.pairwise(segments):
        gap = after["startTimeSeconds"] - before["endTimeSeconds"]
        assert gap == pytest.approx(PAUSE_SECONDS, abs=0.03)
