"""Cutting a transcript's timed words into phrases: the runs of speech between pauses and
sentence ends, each synthesized in one piece."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from soundstage.engines.transcribers.base import Word

# A silence longer than this between two words is a pause a listener hears: the phrase ends.
PAUSE_MS: Final = 250
# A phrase longer than this is cut at its longest pause (or at a comma): engines speak a
# sentence or a short paragraph at a time, and a long phrase warps more.
MAX_PHRASE_MS: Final = 12_000
_SENTENCE_END: Final = re.compile(r"[.!?\u2026\u3002\uff01\uff1f][\"'\u201d\u2019)\]]*$")
_CLAUSE_END: Final = re.compile(r"[,;:\u2014\u2013\uff0c][\"'\u201d\u2019)\]]*$")
# Whisper writes these with a full stop that ends no sentence.
_ABBREVIATIONS: Final = frozenset(
    {"mr", "mrs", "ms", "dr", "st", "prof", "sr", "jr", "vs", "etc", "e.g", "i.e", "no"}
)


@dataclass(frozen=True)
class Phrase:
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


def phrases(words: Sequence[Word], *, pause_ms: int = PAUSE_MS) -> list[Phrase]:
    """The words in phrases: a new phrase after a pause longer than pause_ms or a sentence
    end; phrases over MAX_PHRASE_MS are split further."""
    groups: list[list[Word]] = []
    for word in words:
        if not groups or _breaks(groups[-1][-1], word, pause_ms):
            groups.append([word])
        else:
            groups[-1].append(word)
    return [Phrase(tuple(part)) for group in groups for part in _bounded(group)]


def _breaks(before: Word, after: Word, pause_ms: int) -> bool:
    return after.start_ms - before.end_ms > pause_ms or _ends_sentence(before.word)


def _ends_sentence(word: str) -> bool:
    if not _SENTENCE_END.search(word):
        return False
    bare = word.lower().rstrip(".!?\"'\u201d\u2019)]")
    return bare not in _ABBREVIATIONS and not (len(bare) == 1 and bare.isalpha())


def _bounded(words: list[Word]) -> list[list[Word]]:
    """Split at the best place (a comma first, then the longest pause) until every part is
    at most MAX_PHRASE_MS long."""
    if len(words) < 2 or words[-1].end_ms - words[0].start_ms <= MAX_PHRASE_MS:
        return [words]
    cut = max(range(1, len(words)), key=lambda index: _cut_score(words, index))
    return _bounded(words[:cut]) + _bounded(words[cut:])


def _cut_score(words: list[Word], index: int) -> tuple[bool, int, int]:
    """Cutting before words[index]: after a clause, at a long pause, near the middle."""
    gap = words[index].start_ms - words[index - 1].end_ms
    middle = (words[0].start_ms + words[-1].end_ms) // 2
    return (
        bool(_CLAUSE_END.search(words[index - 1].word)),
        gap,
        -abs(words[index].start_ms - middle),
    )
