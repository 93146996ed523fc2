"""Word timings for a known text in audio that speaks it (text-to-speech with `timestamps`):
the recognizer's words matched to the text's, and the text's words placed on their times."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Final

from soundstage.engines.transcribers.base import (
    Transcriber,
    TranscriberUnavailable,
    UnsupportedLanguage,
    Word,
    whisper_language,
)
from soundstage.engines.transcribers.models import TINY_EN
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.media.audio import Audio

# Hyphens, dashes (U+2010..U+2015) and slashes join words ("ill-disposed", "and/or") that a
# recognizer may write apart.
_JOINERS: Final = re.compile(r"[-\u2010-\u2015/]+")
_NOT_WORD: Final = re.compile(r"[^\w]+")


@dataclass(frozen=True)
class TimedWord:
    # As written in the text, with its punctuation.
    word: str
    start_ms: int
    end_ms: int
    # How sure the placing is, 0..1: the recognizer's confidence in the words it heard for
    # this one, 0 for a word it did not hear (placed between its neighbours by length).
    confidence: float = 0.0


@dataclass(frozen=True)
class _Piece:
    """A normalized part of a word (lower case, no punctuation): "Ill-disposed," has two."""

    key: str
    # Index of the word the piece belongs to.
    word: int
    start_ms: int = 0
    end_ms: int = 0
    probability: float = 0.0


def align_words(
    audio: Audio, text: str, *, language: str | None, transcriber: Transcriber | None = None
) -> list[TimedWord]:
    """Every whitespace-separated word of text, in order, with where audio speaks it.

    The audio is transcribed with word timings (by default: tiny.en for English, fast; the
    default model otherwise), the recognized words are matched to the text's (lower case,
    punctuation dropped), matched words take the recognizer's times, and the words between
    two matched ones share the time between them in proportion to their length. Times are
    clamped into the audio; starts never precede the end of the word before. A language the
    recognizer lacks is detected instead, at worst leaving every word interpolated.
    """
    if not text.split():
        return []
    recognizer = transcriber or _recognizer_for(language)
    try:
        transcript = recognizer.transcribe(audio, language=language, word_timestamps=True)
    except UnsupportedLanguage:
        transcript = recognizer.transcribe(audio, language=None, word_timestamps=True)
    return place_words(text, transcript.words, audio.duration_ms)


def place_words(text: str, recognized: Sequence[Word], duration_ms: int) -> list[TimedWord]:
    """Every whitespace-separated word of `text`, in order, placed on the times of the
    recognized words it matches (see align_words), with its confidence."""
    words = text.split()
    if not words:
        return []
    heard = tuple(recognized)
    spans, confidences = _matched_spans(words, heard)
    first_ms = heard[0].start_ms if heard else 0
    last_ms = heard[-1].end_ms if heard else duration_ms
    _interpolate(words, spans, first_ms, last_ms)
    return _timed(words, spans, confidences, duration_ms)


def _recognizer_for(language: str | None) -> Transcriber:
    if language is not None:
        try:
            english = whisper_language(language) == "en"
        except UnsupportedLanguage:
            english = False
        if english:
            try:
                return get_transcriber(TINY_EN)
            except TranscriberUnavailable:
                pass
    return get_transcriber()


def _pieces(word: str) -> list[str]:
    return [key for part in _JOINERS.split(word.lower()) if (key := _NOT_WORD.sub("", part))]


def _recognized_pieces(words: tuple[Word, ...]) -> list[_Piece]:
    """The recognizer's words cut into pieces, each piece given its share of the word's time
    in proportion to its length."""
    pieces: list[_Piece] = []
    for index, word in enumerate(words):
        keys = _pieces(word.word)
        total = sum(len(key) for key in keys)
        done = 0
        for key in keys:
            start = word.start_ms + (word.end_ms - word.start_ms) * done // total
            done += len(key)
            end = word.start_ms + (word.end_ms - word.start_ms) * done // total
            pieces.append(_Piece(key, index, start, end, word.probability))
    return pieces


def _matched_spans(
    words: list[str], recognized: tuple[Word, ...]
) -> tuple[list[tuple[int, int] | None], list[float]]:
    """For each text word, the span of its pieces that matched recognized ones (or None),
    and its confidence: the recognizer's in the pieces matched, weighted by their length,
    over all the word's pieces (a word half heard is half as sure)."""
    text_pieces = [_Piece(key, index) for index, word in enumerate(words) for key in _pieces(word)]
    heard = _recognized_pieces(recognized)
    matcher = SequenceMatcher(
        None, [piece.key for piece in text_pieces], [piece.key for piece in heard], autojunk=False
    )
    spans: list[tuple[int, int] | None] = [None] * len(words)
    sure = [0.0] * len(words)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            text_piece = text_pieces[block.a + offset]
            index = text_piece.word
            piece = heard[block.b + offset]
            span = spans[index]
            spans[index] = (
                (piece.start_ms, piece.end_ms)
                if span is None
                else (min(span[0], piece.start_ms), max(span[1], piece.end_ms))
            )
            sure[index] += piece.probability * len(text_piece.key)
    lengths = [sum(len(key) for key in _pieces(word)) for word in words]
    confidences = [min(1.0, sure[i] / lengths[i]) if lengths[i] else 0.0 for i in range(len(words))]
    return spans, confidences


def _interpolate(
    words: list[str], spans: list[tuple[int, int] | None], first_ms: int, last_ms: int
) -> None:
    """Fill each run of unmatched words in, in place, over the time between the matched words
    around it (the recognizer's first or last word at the ends), by length."""
    index = 0
    while index < len(words):
        if spans[index] is not None:
            index += 1
            continue
        end = index
        while end < len(words) and spans[end] is None:
            end += 1
        before, after = (
            spans[index - 1] if index else None,
            spans[end] if end < len(words) else None,
        )
        low = before[1] if before else min(first_ms, after[0] if after else first_ms)
        high = max(after[0] if after else last_ms, low)
        lengths = [max(1, sum(len(key) for key in _pieces(word))) for word in words[index:end]]
        total, done = sum(lengths), 0
        for offset, length in enumerate(lengths):
            start = low + (high - low) * done // total
            done += length
            spans[index + offset] = (start, low + (high - low) * done // total)
        index = end


def _timed(
    words: list[str],
    spans: list[tuple[int, int] | None],
    confidences: list[float],
    duration_ms: int,
) -> list[TimedWord]:
    timed: list[TimedWord] = []
    cursor = 0
    for word, span, confidence in zip(words, spans, confidences, strict=True):
        start, end = span or (cursor, cursor)
        start = min(max(start, cursor, 0), duration_ms)
        end = min(max(end, start), duration_ms)
        timed.append(TimedWord(word, start, end, round(confidence, 3)))
        cursor = end
    return timed
