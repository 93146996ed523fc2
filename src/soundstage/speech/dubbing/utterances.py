"""Words grouped into utterances: what one speaker says in one go, the unit that is
translated, re-voiced and fitted into its time span."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from soundstage.engines.conversion.phrases import phrases
from soundstage.engines.speakers.base import Region
from soundstage.engines.transcribers.base import Word

# A pause this long ends an utterance even mid-sentence: the dub must be silent where the
# source is. Shorter pauses stay inside, so that a sentence is translated whole.
PAUSE_MS: Final = 700
FIRST_SPEAKER: Final = "speaker_1"


# Whisper's first word after a pause often starts a few hundred ms early (its last word
# ends late): an utterance edge outside the detected speech moves to it, by at most this.
MAX_SNAP_MS: Final = 600


@dataclass(frozen=True)
class Utterance:
    speaker: str
    words: tuple[Word, ...]
    # The span it takes in the source: its words' unless snapped() moved it to the speech.
    start_ms: int
    end_ms: int

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
        Utterance(who, phrase.words, phrase.start_ms, phrase.end_ms)
        for who, run in runs
        for phrase in phrases(run, pause_ms=PAUSE_MS)
    ]


def snapped(lines: Sequence[Utterance], regions: Sequence[Region]) -> list[Utterance]:
    """The utterances with each edge that lies outside every speech region (voice activity
    detection) moved to the nearest region edge inside the utterance, by at most
    MAX_SNAP_MS: a dubbed line then starts when the voice does."""
    out = []
    for line in lines:
        start, end = line.start_ms, line.end_ms
        if not _inside(start, regions):
            later = [r.start_ms for r in regions if start < r.start_ms < end]
            if later and later[0] - start <= MAX_SNAP_MS:
                start = later[0]
        if not _inside(end, regions):
            earlier = [r.end_ms for r in regions if start < r.end_ms < end]
            if earlier and end - earlier[-1] <= MAX_SNAP_MS:
                end = earlier[-1]
        out.append(replace(line, start_ms=start, end_ms=end))
    return out


def _inside(moment_ms: int, regions: Sequence[Region]) -> bool:
    return any(region.start_ms <= moment_ms <= region.end_ms for region in regions)
