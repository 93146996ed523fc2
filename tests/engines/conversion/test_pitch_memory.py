"""The pitch track of long speech (the voice changer's, a dub's speaker profiles) takes memory
bounded by a constant, not copies of the whole speech in float64 (Praat's analysis): measured
in a fresh process, as its peak resident set growth while it tracks 10 minutes at 16 kHz."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from soundstage.engines.conversion import intonation
from soundstage.engines.conversion.intonation import pitch_track
from soundstage.media.audio import Audio
from tests.support.audio_fixtures import librivox_clips
from tests.support.dubbing import joined_clips

# 10 minutes at 16 kHz: 38 MB of float32, 77 MB per float64 copy.
SECONDS = 600
BOUND_MIB = 40

_MEASURE = """
import sys
from pathlib import Path
import numpy as np
from soundstage.media.audio import Audio
from soundstage.engines.conversion.intonation import pitch_track

def hwm_kib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

samples = np.load(sys.argv[1])
pitch_track(Audio(samples[:16_000].reshape(-1, 1), 16_000))  # Praat's own first allocations
before = hwm_kib()
track = pitch_track(Audio(samples.reshape(-1, 1), 16_000))
print((hwm_kib() - before) / 1024, track.median_hz())
"""


@pytest.fixture(scope="module")
def long_speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spoken = joined_clips(librivox_clips())[0].samples[:, 0]
    path = tmp_path_factory.mktemp("pitch") / "speech.npy"
    np.save(path, np.resize(spoken, SECONDS * 16_000).astype(np.float32))
    return path


def test_ten_minutes_of_speech_are_tracked_in_bounded_memory(long_speech: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    measured = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(long_speech)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    grown, median_hz = float(measured[0]), float(measured[1])
    assert grown < BOUND_MIB, grown
    # The reader's voice, as a whole-file track gives it (95 Hz).
    assert 90 < median_hz < 100, median_hz


def test_a_track_made_in_chunks_is_the_whole_track(
    long_speech: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two and a half minutes: tracked a minute at a time, the same frames, times and F0 as
    # one analysis of the whole.
    audio = Audio(np.load(long_speech)[: 150 * 16_000].reshape(-1, 1), 16_000)
    chunked = pitch_track(audio)
    monkeypatch.setattr(intonation, "_CHUNK_S", 1e9)
    whole = pitch_track(audio)
    np.testing.assert_allclose(chunked.times_s, whole.times_s)
    # Praat's path through each chunk settles within its margin: a few frames in a
    # thousand voiced otherwise, F0 a few hundredths of a hertz apart.
    assert np.mean(chunked.voiced == whole.voiced) > 0.998
    assert np.mean(np.abs(chunked.f0_hz - whole.f0_hz) < 0.1) > 0.99
