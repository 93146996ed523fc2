"""Where the speech is: silero-vad's bundled ONNX model over 32 ms frames of mono 16 kHz
audio, streamed so that hours of audio take bounded memory."""

from __future__ import annotations

import copy
from typing import Any, Final

import numpy as np

from soundstage.engines.cache import MODELS
from soundstage.engines.errors import EngineUnavailable
from soundstage.engines.speakers.audio16k import SAMPLE_RATE, mono_blocks
from soundstage.engines.speakers.base import Progress, Region
from soundstage.media.audio import Audio

# silero-vad's frame at 16 kHz.
_FRAME: Final = 512


def speech_regions(audio: Audio, *, progress: Progress | None = None) -> list[Region]:
    """The stretches of speech in the audio, in order. silero-vad's defaults decide: speech
    probability 0.5 to start (0.35 to end), pauses under 100 ms bridged, speech under 250 ms
    dropped, 30 ms of padding on each side. Silence and noise give no regions."""
    vad = _vad()
    # The shared model object carries the recurrent state of one stream; a shallow copy gets
    # its own state while sharing the ONNX session, which is safe to run from several threads.
    model = copy.copy(_model())
    model.reset_states()
    probabilities: list[float] = []
    pending = np.zeros(0, dtype=np.float32)
    seen = 0
    for block in mono_blocks(audio):
        pending = np.concatenate([pending, block])
        whole = pending.size - pending.size % _FRAME
        probabilities.extend(_probabilities(model, pending[:whole]))
        pending = pending[whole:]
        seen += block.size
        if progress is not None:
            progress(min(1.0, seen / max(1, audio.frames * SAMPLE_RATE / audio.sample_rate)))
    if pending.size:
        probabilities.extend(_probabilities(model, np.pad(pending, (0, _FRAME - pending.size))))
    spans = vad.get_speech_timestamps_from_probs(
        probabilities, sampling_rate=SAMPLE_RATE, audio_length_samples=seen
    )
    return [
        Region(
            start_ms=int(span["start"]) * 1000 // SAMPLE_RATE,
            end_ms=min(audio.duration_ms, -(-int(span["end"]) * 1000 // SAMPLE_RATE)),
        )
        for span in spans
    ]


class StreamingDetector:
    """silero-vad over one live stream: the speech probability of each 32 ms frame (512
    samples at 16 kHz) as it arrives, the model's recurrent state carried between frames."""

    frame: Final = _FRAME

    def __init__(self) -> None:
        _vad()  # EngineUnavailable now, not at the first frame, if silero-vad is missing
        # A stream of its own over the process's shared ONNX session (see speech_regions).
        self._model = copy.copy(_model())
        self._model.reset_states()

    def probability(self, frame: np.ndarray[Any, np.dtype[np.float32]]) -> float:
        """The speech probability of one frame of exactly `frame` samples."""
        return _probabilities(self._model, frame)[0]


def _probabilities(model: Any, samples: np.ndarray[Any, np.dtype[np.float32]]) -> list[float]:
    import torch

    frames = torch.from_numpy(samples.reshape(-1, _FRAME))
    return [float(model(frame, SAMPLE_RATE).item()) for frame in frames]


def _model() -> Any:
    """The process's one silero-vad model (ONNX: twice as fast as the JIT one here), loaded
    from the package's own data on first use."""
    return MODELS.get(
        "voice activity detector", "silero-vad", lambda: _vad().load_silero_vad(onnx=True)
    )


def _vad() -> Any:
    try:
        # Its import sets torch to one thread for the process; the speaker encoder wants the
        # same (see embeddings._encoder).
        import silero_vad
    except ImportError as exc:
        raise EngineUnavailable(f"The voice activity detector is not installed: {exc}.") from exc
    return silero_vad
