"""Cutting text into the pieces an engine speaks at once, with the pause that follows each:
shared by the speech features and the voice previews, as `engines/dsp.py` is."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# Pauses between pieces, in milliseconds: what a reader leaves after each kind of break.
PAUSE_AFTER_SENTENCE_MS = 280
PAUSE_AFTER_PARAGRAPH_MS = 600
PAUSE_AFTER_CLAUSE_MS = 120
MAX_PIECE_CHARACTERS = 280

PARAGRAPH_BREAK = re.compile(r"\n\s*\n+")
# A sentence ends at . ! ? or an ellipsis (maybe closed by a quote or bracket) before a space,
# or at a CJK full stop; not after common abbreviations or initials ("Dr. Smith", "J. R.").
_SENTENCE_END = re.compile(
    "(?:(?<=[.!?\u2026])|(?<=[.!?\u2026][\"'\u201d\u2019)\\]]))\\s+|(?<=[\u3002\uff01\uff1f])\\s*"
)
_ABBREVIATIONS = {
    "mr",
    "mrs",
    "ms",
    "dr",
    "st",
    "prof",
    "sr",
    "jr",
    "vs",
    "etc",
    "e.g",
    "i.e",
    "no",
}
CLAUSE_END = re.compile("(?<=[,;:\u2014\u2013])\\s+")


@dataclass(frozen=True)
class Piece:
    text: str
    pause_after_ms: int


def split(text: str) -> list[Piece]:
    """Paragraphs, then sentences, then (for overlong sentences) clauses, then words, so that
    no piece exceeds MAX_PIECE_CHARACTERS; the last piece has no pause after it."""
    pieces: list[Piece] = []
    paragraphs = [p.strip() for p in PARAGRAPH_BREAK.split(text) if p.strip()]
    for paragraph in paragraphs:
        sentences = _sentences(" ".join(paragraph.split()))
        for index, sentence in enumerate(sentences):
            last_in_paragraph = index == len(sentences) - 1
            chunks = _bounded(sentence)
            for chunk_index, chunk in enumerate(chunks):
                if chunk_index < len(chunks) - 1:
                    pause = PAUSE_AFTER_CLAUSE_MS
                elif last_in_paragraph:
                    pause = PAUSE_AFTER_PARAGRAPH_MS
                else:
                    pause = PAUSE_AFTER_SENTENCE_MS
                pieces.append(Piece(chunk, pause))
    if pieces:
        pieces[-1] = Piece(pieces[-1].text, 0)
    return pieces


def sentence_ends(paragraph: str) -> Iterator[tuple[int, int]]:
    """Where each sentence of a paragraph ends, as (end of its text, start of what follows),
    but the last one's if nothing follows it: a break is a sentence end then white space (or a
    CJK full stop), and not one after an abbreviation or an initial. Text streamed in is cut
    with it as it arrives: "word." at the very end is not yet known to end a sentence."""
    for match in _SENTENCE_END.finditer(paragraph):
        candidate = paragraph[: match.start()].rstrip()
        last_word = (candidate.rsplit(None, 1) or [""])[-1].rstrip(".").lower()
        if last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
            continue
        yield match.start(), match.end()


def _sentences(paragraph: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for end, following in sentence_ends(paragraph):
        candidate = paragraph[start:end].strip()
        if candidate:
            sentences.append(candidate)
        start = following
    rest = paragraph[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences


def _bounded(sentence: str) -> list[str]:
    if len(sentence) <= MAX_PIECE_CHARACTERS:
        return [sentence]
    chunks: list[str] = []
    current = ""
    for part in CLAUSE_END.split(sentence):
        for word in part.split(" ") if len(part) > MAX_PIECE_CHARACTERS else [part]:
            candidate = f"{current} {word}".strip()
            if current and len(candidate) > MAX_PIECE_CHARACTERS:
                chunks.append(current)
                current = word
            else:
                current = candidate
    if current:
        chunks.append(current)
    return chunks
