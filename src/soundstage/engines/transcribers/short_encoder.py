"""Whisper's encoder run on the audio there is, for the streaming recognizer (its own module:
faster-whisper is imported with it, when a recognizer is made, never by an API process)."""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from faster_whisper import WhisperModel

# The 30 s window faster-whisper pads every input to, in mel frames (100 a second).
WHOLE_ENCODER_FRAMES: Final = 3000


class ShortEncoder(WhisperModel):  # type: ignore[misc]  # faster-whisper is untyped
    """The model with its encoder run on the audio there is, not on 30 s of it. faster-whisper
    pads every window to 30 s, which costs about 0.4 s of encoder per decode on 2 cores;
    CTranslate2 takes shorter input, and the decoder's cross-attention shrinks with it.
    What Whisper needs is padding after the speech: with none (a 6 s prefix in a 6 s window)
    it loops, repeating the utterance from its start. Over every 0.4 s prefix of the LibriVox
    clips, against the 30 s decode's text, partials given the audio and 2 s, at least 6 s
    (640 frames on average), differ by 3.7% of words and never loop; given 10 s (1000 frames),
    2.0%; given the audio and nothing, at least 4 s, 36% with 13 loops. Finals get at least
    15 s: at 10 s, one word in 40 of the clips was misheard ("ill-sposed"), at 15 s none.
    Shares the model's weights; `frames` is set before each decode."""

    def __init__(self, model: WhisperModel) -> None:
        # Not WhisperModel.__init__, which would load the model again: its loaded state.
        self.__dict__.update(model.__dict__)
        self.frames = WHOLE_ENCODER_FRAMES

    def encode(self, features: np.ndarray[Any, Any]) -> Any:
        frames = min(self.frames + self.frames % 2, features.shape[-1])
        return super().encode(np.ascontiguousarray(features[..., :frames]))
