"""Sharper word timings for English by forced alignment with PocketSphinx (its bundled US
English acoustic model and CMU dictionary).

Whisper's word times come from its attention, which drifts by up to a few hundred
milliseconds around pauses and long consonants; a forced aligner places each word of a known
text on the audio frame by frame. Whisper's text is aligned phrase by phrase (each segment in
its own stretch of audio); words the dictionary lacks (names, numbers) keep Whisper's times,
fitted between their aligned neighbours. Languages other than English keep Whisper's times.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

import numpy as np

from soundstage.engines.transcribers.base import Segment, Word
from soundstage.media.audio import Audio

SAMPLE_RATE: Final = 16_000
_FRAME_MS: Final = 10
# Audio taken on each side of a segment, so that its first and last words fit whole.
_MARGIN_MS: Final = 400
_FILLERS: Final = frozenset({"<s>", "</s>", "<sil>", "[NOISE]", "[SPEECH]"})
# Pieces of a word as the dictionary spells them: "ill-disposed" is "ill" + "disposed".
_PIECES: Final = re.compile(r"[a-z0-9]+(?:'[a-z]+)*\.?")
_local = threading.local()


def refine_segments(audio: Audio, segments: Sequence[Segment], language: str) -> list[Segment]:
    """Segments with their words' times from forced alignment (English); others unchanged.
    audio is what the times count from: 16 kHz mono."""
    if language != "en" or audio.sample_rate != SAMPLE_RATE:
        return list(segments)
    pcm = (np.clip(audio.samples[:, 0], -1.0, 1.0) * 32767).astype(np.int16)
    refined = []
    for index, segment in enumerate(segments):
        if not segment.words:
            refined.append(segment)
            continue
        low = segments[index - 1].end_ms if index else 0
        high = segments[index + 1].start_ms if index + 1 < len(segments) else audio.duration_ms
        start = max(low, segment.start_ms - _MARGIN_MS, 0)
        end = min(max(high, segment.end_ms), segment.end_ms + _MARGIN_MS, audio.duration_ms)
        words = _aligned(pcm, start, end, segment.words)
        refined.append(replace(segment, words=tuple(words)))
    return refined


def _decoder() -> Any:
    decoder = getattr(_local, "decoder", None)
    if decoder is None:
        # Imported here: loading the model takes a third of a second, once per thread.
        from pocketsphinx import Decoder

        decoder = Decoder(samprate=SAMPLE_RATE, bestpath=False, loglevel="FATAL")
        _local.decoder = decoder
    return decoder


def _aligned(pcm: np.ndarray, start_ms: int, end_ms: int, words: Sequence[Word]) -> list[Word]:
    decoder = _decoder()
    pieces: list[tuple[int, str]] = []  # (index of the word, dictionary word)
    for index, word in enumerate(words):
        for piece in _PIECES.findall(word.word.lower()):
            if decoder.lookup_word(piece) is not None:
                pieces.append((index, piece))
            elif decoder.lookup_word(piece.rstrip(".")) is not None:
                pieces.append((index, piece.rstrip(".")))
    if not pieces:
        return list(words)
    chunk = pcm[start_ms * SAMPLE_RATE // 1000 : end_ms * SAMPLE_RATE // 1000]
    try:
        decoder.set_align_text(" ".join(piece for _, piece in pieces))
        decoder.start_utt()
        decoder.process_raw(chunk.tobytes(), full_utt=True)
        decoder.end_utt()
        segmentation = decoder.seg()
    except RuntimeError:
        return list(words)
    # None when no alignment reached the end (the text and the audio disagree too much).
    found = [s for s in segmentation or () if s.word not in _FILLERS]
    if len(found) != len(pieces):
        return list(words)
    spans: dict[int, tuple[int, int]] = {}
    for (index, _), seg in zip(pieces, found, strict=True):
        begin = start_ms + seg.start_frame * _FRAME_MS
        finish = start_ms + (seg.end_frame + 1) * _FRAME_MS
        first, _last = spans.get(index, (begin, finish))
        spans[index] = (first, finish)
    return _fitted(words, spans, start_ms, end_ms)


def _fitted(
    words: Sequence[Word], spans: dict[int, tuple[int, int]], low: int, high: int
) -> list[Word]:
    """Aligned words take their aligned span; the others keep Whisper's, clamped between the
    aligned words around them, so that times stay in order."""
    out: list[Word] = []
    floor = low
    for index, word in enumerate(words):
        if index in spans:
            begin, end = spans[index]
        else:
            ceiling = next((spans[j][0] for j in range(index + 1, len(words)) if j in spans), high)
            begin = min(max(word.start_ms, floor), ceiling)
            end = min(max(word.end_ms, begin), ceiling)
        begin = max(begin, floor)
        end = max(end, begin)
        out.append(replace(word, start_ms=begin, end_ms=end))
        floor = end
    return out
