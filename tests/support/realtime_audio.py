"""A live speech session for the realtime transcription tests: the LibriVox clips with silence
between them as 16-bit PCM in 40 ms frames, where each clip lies in it, and how to score the
finals against the clips' text and forced alignments."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import numpy as np

from tests.support.audio_fixtures import Clip, librivox_clips, word_error_rate

RATE = 16_000
FRAME_MS = 40
# Silence before the first clip and after each: longer than the 500 ms that ends an utterance.
GAP_MS = 1500


@dataclass(frozen=True)
class Placed:
    clip: Clip
    offset_ms: int


@dataclass(frozen=True)
class Session:
    samples: np.ndarray[Any, np.dtype[np.float32]]
    placed: tuple[Placed, ...]

    @property
    def duration_ms(self) -> int:
        return len(self.samples) * 1000 // RATE

    def pcm_frames(self) -> list[bytes]:
        """The audio as 16-bit little-endian PCM frames of 40 ms."""
        pcm = (np.clip(self.samples, -1, 1) * 32767).astype("<i2").tobytes()
        step = RATE * FRAME_MS // 1000 * 2
        return [pcm[i : i + step] for i in range(0, len(pcm), step)]

    @property
    def text(self) -> str:
        return " ".join(p.clip.text for p in self.placed)

    def reference_words(self) -> list[tuple[str, int, int]]:
        return [
            (w.word, p.offset_ms + w.start_ms, p.offset_ms + w.end_ms)
            for p in self.placed
            for w in p.clip.words
        ]


def librivox_session(clips: list[Clip] | None = None) -> Session:
    parts = [np.zeros(RATE * GAP_MS // 1000, dtype=np.float32)]
    placed = []
    position = len(parts[0])
    for clip in clips or librivox_clips():
        samples = clip.audio().samples[:, 0].astype(np.float32)
        placed.append(Placed(clip, position * 1000 // RATE))
        parts += [samples, np.zeros(RATE * GAP_MS // 1000, dtype=np.float32)]
        position += len(samples) + RATE * GAP_MS // 1000
    return Session(np.concatenate(parts), tuple(placed))


def finals_error_rate(session: Session, finals: list[dict[str, Any]]) -> float:
    return word_error_rate(session.text, " ".join(f["text"] for f in finals))


def timing_offsets(
    words: list[tuple[str, int, int]], reference: list[tuple[str, int, int]]
) -> list[int]:
    """How far each word boundary lies from the reference's, for the words both share. Words
    are compared in pieces ("ill-disposed" is "ill" and "disposed"): a piece's start is its
    word's start if it comes first, its end its word's end if it comes last."""
    ours, theirs = _pieces(words), _pieces(reference)
    matcher = difflib.SequenceMatcher(
        a=[p for p, _, _ in ours], b=[p for p, _, _ in theirs], autojunk=False
    )
    offsets = []
    for block in matcher.get_matching_blocks():
        for i in range(block.size):
            (_, start, end), (_, ref_start, ref_end) = ours[block.a + i], theirs[block.b + i]
            if start is not None and ref_start is not None:
                offsets.append(abs(start - ref_start))
            if end is not None and ref_end is not None:
                offsets.append(abs(end - ref_end))
    return offsets


def first_piece(word: str) -> str:
    """A word's first piece ("ill" of "ill-disposed"): where the word starts."""
    return word.split("-")[0]


def final_words(finals: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    return [(w["word"], w["start_ms"], w["end_ms"]) for f in finals for w in f["words"]]


def _pieces(words: list[tuple[str, int, int]]) -> list[tuple[str, int | None, int | None]]:
    pieces: list[tuple[str, int | None, int | None]] = []
    for word, start, end in words:
        parts = [_plain(p) for p in word.split("-") if _plain(p)]
        for i, part in enumerate(parts):
            pieces.append((part, start if i == 0 else None, end if i == len(parts) - 1 else None))
    return pieces


def _plain(word: str) -> str:
    return "".join(ch for ch in word.lower() if ch.isalnum())
