"""ElevenLabs' official JavaScript SDK (`@elevenlabs/elevenlabs-js`, pinned in
tests/compat/js/package-lock.json) aligning a LibriVox clip to its text against a live server
over plain HTTP, run by Node in tests/compat/js/elevenlabs_forced_alignment.mjs: every word
and character in the SDK's parsed answer, the word starts on the clip's offline forced
alignment, the credits."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from soundstage.core.db import Database
from tests.support.audio_fixtures import librivox_clips
from tests.support.factories import create_customer
from tests.support.realtime_audio import first_piece, timing_offsets

pytestmark = [pytest.mark.usefixtures("node_modules"), pytest.mark.measures]

SCRIPT = "elevenlabs_forced_alignment.mjs"


def test_the_sdk_aligns_a_reading_to_its_text(
    live_url: str, db: Database, node_modules: Path, tmp_path: Path
) -> None:
    customer = create_customer(db, credits_each=10_000)
    clip = librivox_clips()[2]
    out = tmp_path / "alignment.json"
    command = ["node", SCRIPT, "--base-url", live_url, "--key", customer.sandbox_key]
    command += ["--audio", str(clip.path), "--text", clip.text, "--out", str(out)]
    ran = subprocess.run(
        command, cwd=node_modules.parent, capture_output=True, text=True, timeout=180
    )
    assert ran.returncode == 0, f"exit {ran.returncode}\n{ran.stdout}\n{ran.stderr}"
    result = json.loads(ran.stdout.strip().splitlines()[-1])
    assert result["failure"] is None, result
    answer: dict[str, Any] = json.loads(out.read_text())
    words = answer["words"]
    assert [word["text"] for word in words] == clip.text.split()
    # Word starts (a hyphenated word's first piece) within 100 ms of the offline alignment.
    starts = [
        (first_piece(w["text"]), round(w["start"] * 1000), round(w["start"] * 1000)) for w in words
    ]
    reference = [(w.word, w.start_ms, w.start_ms) for w in clip.words]
    offsets = timing_offsets(starts, reference)
    assert len(offsets) >= 1.6 * len(clip.words)
    assert max(offsets) <= 100, offsets
    assert "".join(c["text"] for c in answer["characters"]) == clip.text
    assert answer["loss"] < 0.3
    seconds = math.ceil(clip.audio().duration_ms / 1000)
    balance = httpx.get(f"{live_url}/api/v1/credits", headers=customer.auth(), timeout=30).json()
    assert (balance["balance"], balance["reserved"]) == (10_000 - math.ceil(seconds * 250 / 60), 0)
