"""Speakers told apart live, utterance by utterance: each utterance's voice embedding joins the
closest speaker heard so far when it is close enough, else it is a new speaker."""

from __future__ import annotations

from typing import Final

import numpy as np

from soundstage.engines.speakers.audio16k import SAMPLE_RATE, Mono
from soundstage.engines.speakers.base import NoSpeech
from soundstage.engines.speakers.embeddings import Embedding, embed, load_encoder, similarity
from soundstage.media.audio import Audio

# Cosine similarity from which two utterances are one voice. Whole utterances (3-7 s) of one
# voice came to 0.83-0.94, of two voices to 0.48-0.58 (the LibriVox reader, piper's joe,
# flite's slt): halfway.
SAME_SPEAKER: Final = 0.72


class LiveSpeakers:
    """The speakers of one stream, `speaker_1`, `speaker_2`... in order of first speech."""

    def __init__(self, threshold: float = SAME_SPEAKER) -> None:
        self._threshold = threshold
        self._sums: list[Embedding] = []
        load_encoder()

    def label(self, samples: Mono) -> str | None:
        """The speaker of one utterance (16 kHz mono); None when it holds too little speech
        to take a voice from."""
        try:
            voice = embed(Audio(samples.reshape(-1, 1), SAMPLE_RATE))
        except NoSpeech:
            return None
        scores = [similarity(voice, total) for total in self._sums]
        if scores and max(scores) >= self._threshold:
            index = int(np.argmax(scores))
            # The speaker's voice is the mean of its utterances' (the sum's direction).
            self._sums[index] = self._sums[index] + voice
        else:
            index = len(self._sums)
            self._sums.append(voice.copy())
        return f"speaker_{index + 1}"
