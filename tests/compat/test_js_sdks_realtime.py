"""The official JavaScript SDKs' realtime calls against a live server over wss://: OpenAI's
`openai` (OpenAIRealtimeWS, a transcription session) and ElevenLabs' `@elevenlabs/elevenlabs-js`
(`speechToText.realtime`), pinned in tests/compat/js/package-lock.json and run by Node, each
script sending real speech and printing what it received as JSON."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from soundstage.core.db import Database
from tests.support.audio_fixtures import Clip, librivox_clips, word_error_rate
from tests.support.factories import Customer, create_customer
from tests.support.realtime_audio import GAP_MS, librivox_session
from tests.support.realtime_vendors import pcm_at
from tests.support.tls import Certificate

pytestmark = pytest.mark.slow

JS = Path(__file__).parent / "js"
COMPLETED = "conversation.item.input_audio_transcription.completed"


@pytest.fixture
def customer(db: Database) -> Customer:
    return create_customer(db, credits_each=2000)


def speech_files(folder: Path, clips: list[Clip], rate: int) -> list[str]:
    """Each clip, with silence around it, as raw 16-bit mono PCM at `rate` in its own file."""
    paths = []
    for n, clip in enumerate(clips):
        path = folder / f"utterance-{n}.pcm"
        path.write_bytes(pcm_at(librivox_session([clip]), rate))
        paths.append(str(path))
    return paths


def seconds(path: str, rate: int) -> float:
    return Path(path).stat().st_size / 2 / rate


def run_script(
    script: str, live_tls_url: str, key: str, audio: list[str], rate: int, certificate: Certificate
) -> dict[str, Any]:
    """Runs a script under Node trusting the test authority (and checking the server's
    certificate: no NODE_TLS_REJECT_UNAUTHORIZED), and answers the JSON it printed."""
    env = {k: v for k, v in os.environ.items() if k != "NODE_TLS_REJECT_UNAUTHORIZED"}
    env["NODE_EXTRA_CA_CERTS"] = str(certificate.ca_file)
    command = ["node", script, "--base-url", live_tls_url, "--key", key, "--rate", str(rate)]
    for path in audio:
        command += ["--audio", path]
    ran = subprocess.run(command, cwd=JS, env=env, capture_output=True, text=True, timeout=180)
    assert ran.returncode == 0, f"exit {ran.returncode}\n{ran.stdout}\n{ran.stderr}"
    result: dict[str, Any] = json.loads(ran.stdout.strip().splitlines()[-1])
    assert result["failure"] is None
    return result


@pytest.mark.usefixtures("node_modules")
def test_openai_js_sdk_realtime_transcription(
    live_tls_url: str, customer: Customer, certificate: Certificate, tmp_path: Path
) -> None:
    clips = librivox_clips()[:2]
    audio = speech_files(tmp_path, clips, 24000)
    result = run_script(
        "openai_realtime_transcription.mjs",
        live_tls_url,
        customer.sandbox_key,
        audio,
        24000,
        certificate,
    )
    # The SDK opens wss:// itself, with its model in the query (no intent: transcription).
    assert result["url"].startswith("wss://127.0.0.1:")
    assert result["url"].endswith("/v1/realtime?model=gpt-4o-transcribe")
    assert result["types"][:2] == ["session.created", "session.updated"]
    assert result["updated"]["type"] == "transcription"
    assert result["updated"]["audio"]["input"]["turn_detection"] is None
    assert "error" not in result["types"]
    # One item per commit, chained, each completed in order with its own words.
    committed, completed = result["committed"], result["completed"]
    items = [c["item_id"] for c in committed]
    assert len(items) == len(set(items)) == 2
    assert [c["previous_item_id"] for c in committed] == [None, items[0]]
    assert [c["item_id"] for c in completed] == items
    assert result["deltas"]
    for clip, path, done in zip(clips, audio, completed, strict=True):
        assert done["content_index"] == 0
        # Each item is its own commit's audio, not what came before it again.
        assert done["usage"]["type"] == "duration"
        assert abs(done["usage"]["seconds"] - seconds(path, 24000)) < 0.5, done["usage"]
        assert word_error_rate(clip.text, done["transcript"]) <= 0.25, done["transcript"]
        said = "".join(d["delta"] for d in result["deltas"] if d["item_id"] == done["item_id"])
        assert done["transcript"].startswith(said) or len(said) < len(done["transcript"])
    assert result["close_code"] == 1000


@pytest.mark.usefixtures("node_modules")
def test_elevenlabs_js_sdk_realtime_speech_to_text(
    live_tls_url: str, customer: Customer, certificate: Certificate, tmp_path: Path
) -> None:
    clips = librivox_clips()[:2]
    audio = speech_files(tmp_path, clips, 16000)
    result = run_script(
        "elevenlabs_realtime_stt.mjs",
        live_tls_url,
        customer.sandbox_key,
        audio,
        16000,
        certificate,
    )
    assert result["config"]["sample_rate"] == 16000
    assert result["config"]["commit_strategy"] == "manual"
    # Each commit answers its utterance, then the same text with word timestamps.
    assert len(result["committed"]) == 2
    assert [t["text"] for t in result["timestamped"]] == result["committed"]
    assert result["partials"] > 0
    # Word times count from the session's start: each utterance's first word where its clip
    # starts in what was sent (within a second), its last before the audio sent ends.
    offset = 0.0
    for clip, path, said, timed in zip(
        clips, audio, result["committed"], result["timestamped"], strict=True
    ):
        assert word_error_rate(clip.text, said) <= 0.25, said
        assert timed["language_code"] == "en"
        words = [w for w in timed["words"] if w["type"] == "word"]
        assert len(words) >= 5
        starts = [w["start"] for w in words]
        assert starts == sorted(starts)
        assert all(w["start"] <= w["end"] for w in words)
        assert abs(words[0]["start"] - (offset + GAP_MS / 1000)) < 1.0, words[0]
        offset += seconds(path, 16000)
        assert words[-1]["end"] <= offset, words[-1]
