"""The naturalness predictors (engines/quality) load from their wheels with no torchaudio and
no download, and tell clean speech from the same speech buried in noise by a wide margin."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import soxr

from soundstage.engines.quality.dnsmos import DnsMos
from soundstage.engines.quality.registry import PREDICTORS, get_predictor
from soundstage.media.audio import Audio
from tests.support.audio_fixtures import librivox_clips

pytestmark = pytest.mark.slow


def noisy(audio: Audio) -> Audio:
    """The speech under white noise at about 0 dB SNR."""
    level = float(np.sqrt(np.mean(audio.samples**2)))
    noise = np.random.default_rng(7).normal(0.0, level, audio.samples.shape)
    mixed = ((audio.samples + noise) / 2).astype(np.float32)
    return Audio(mixed, audio.sample_rate)


@pytest.mark.parametrize("name", PREDICTORS)
def test_clean_speech_scores_well_above_noisy_speech(name: str) -> None:
    predictor = get_predictor(name)
    speech = librivox_clips()[0].audio()
    clean, buried = predictor.predict(speech), predictor.predict(noisy(speech))
    print(f"{name}: clean {clean:.2f}, noisy {buried:.2f}")
    assert 1.0 <= buried < clean <= 5.0
    # A read audiobook is good speech; the same under noise is poor.
    assert clean >= 3.0, clean
    assert clean - buried >= 1.0, (clean, buried)


def test_distillmos_loads_without_torchaudio_and_leaves_no_stand_in() -> None:
    get_predictor("distillmos")
    # The stand-in module is gone again (a real torchaudio, were one ever loadable here,
    # would have a file).
    loaded = sys.modules.get("torchaudio")
    assert loaded is None or getattr(loaded, "__file__", None), loaded


def test_dnsmos_hears_the_same_speech_alike_at_any_rate_and_channels() -> None:
    """Both figures, and a stereo 48 kHz copy of the speech scores as the 16 kHz mono original
    does: the predictor downmixes and resamples before it listens."""
    speech = librivox_clips()[0].audio()
    mono = speech.samples[:, 0]
    at_48k = soxr.resample(mono, speech.sample_rate, 48_000).astype(np.float32)
    stereo_48k = Audio(np.ascontiguousarray(np.stack([at_48k, at_48k], axis=1)), 48_000)
    predictor = DnsMos.load()
    original, copied = predictor.scores(speech), predictor.scores(stereo_48k)
    print(original, copied)
    # A read audiobook is good speech by both figures (measured 3.24 and 3.76).
    assert original.overall >= 2.8, original
    assert original.p808 >= 3.2, original
    assert abs(copied.overall - original.overall) <= 0.2, (original, copied)
    assert abs(copied.p808 - original.p808) <= 0.2, (original, copied)
