"""Words grouped into utterances: what one speaker says in one go, the unit that is
translated, re-voiced and fitted into its time span."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from soundstage.speech.conversion.phrases import phrases
from soundstage.speech.transcribers.base import Word

# A pause this long ends an utterance even mid-sentence: the dub must be silent where the
# source is. Shorter pauses stay inside, so that a sentence is translated whole.
PAUSE_MS: Final = 700
FIRST_SPEAKER: Final = "speaker_1"


@dataclass(frozen=True)
class Utterance:
    speaker: str
    words: tuple[Word, ...]

    @property
    def start_ms(self) -> int:
        return self.words[0].start_ms

    @property
    def end_ms(self) -> int:
        return self.words[-1].end_ms

    @property
    def text(self) -> str:
        return " ".join(word.word for word in self.words)


def utterances(words: Sequence[Word], speakers: Sequence[str | None]) -> list[Utterance]:
    """The words (in time order) cut at every change of speaker, then into sentences and at
    pauses over PAUSE_MS (and phrases over 12 s at their best break; see
    conversion.phrases). A word without a speaker belongs to the first speaker."""
    runs: list[tuple[str, list[Word]]] = []
    for word, speaker in zip(words, speakers, strict=True):
        who = speaker or FIRST_SPEAKER
        if runs and runs[-1][0] == who:
            runs[-1][1].append(word)
        else:
            runs.append((who, [word]))
    return [
        Utterance(who, phrase.words)
        for who, run in runs
        for phrase in phrases(run, pause_ms=PAUSE_MS)
    ]
