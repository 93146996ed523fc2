"""The transcript cut into phrases a reader can follow (subtitle cues), and written as SRT and
WebVTT, with the speaker's label when the speakers were told apart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from soundstage.engines.transcribers.base import Segment, Word

# Netflix-style limits: two lines of 42 characters, at most 7 seconds on screen.
MAX_CHARACTERS: Final = 84
MAX_DURATION_MS: Final = 7000
# A pause this long between words starts a new phrase.
_PAUSE_MS: Final = 700
_SENTENCE_END: Final = (".", "!", "?", "\u3002", "\uff01", "\uff1f", "\u2026")


@dataclass(frozen=True)
class Phrase:
    text: str
    start_ms: int
    end_ms: int
    speaker: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "start_ms": self.start_ms, "end_ms": self.end_ms}
        if self.speaker:
            out["speaker"] = self.speaker
        return out


def from_segments(segments: Sequence[Segment]) -> list[Phrase]:
    return [
        Phrase(segment.text.strip(), segment.start_ms, segment.end_ms)
        for segment in segments
        if segment.text.strip()
    ]


def from_words(words: Sequence[Word], speakers: Sequence[str | None]) -> list[Phrase]:
    """Words grouped into phrases: a new one at a change of speaker, after a long pause, after
    a sentence once the phrase is half full, or when the next word would overflow it."""
    phrases: list[Phrase] = []
    current: list[Word] = []
    speaker: str | None = None

    def close() -> None:
        if current:
            text = " ".join(w.word.strip() for w in current if w.word.strip())
            phrases.append(Phrase(text, current[0].start_ms, current[-1].end_ms, speaker))
            current.clear()

    for word, who in zip(words, speakers, strict=True):
        if current:
            length = sum(len(w.word.strip()) + 1 for w in current)
            last = current[-1]
            if (
                who != speaker
                or word.start_ms - last.end_ms >= _PAUSE_MS
                or length + len(word.word.strip()) > MAX_CHARACTERS
                or word.end_ms - current[0].start_ms > MAX_DURATION_MS
                or (last.word.strip().endswith(_SENTENCE_END) and length >= MAX_CHARACTERS // 2)
            ):
                close()
        if not current:
            speaker = who
        current.append(word)
    close()
    return phrases


def to_srt(phrases: Sequence[Phrase]) -> str:
    blocks = []
    for number, phrase in enumerate(phrases, start=1):
        text = f"[{phrase.speaker}] {phrase.text}" if phrase.speaker else phrase.text
        span = f"{_clock(phrase.start_ms, ',')} --> {_clock(phrase.end_ms, ',')}"
        blocks.append(f"{number}\n{span}\n{text}\n")
    return "\n".join(blocks)


def to_vtt(phrases: Sequence[Phrase]) -> str:
    blocks = ["WEBVTT\n"]
    for phrase in phrases:
        # WebVTT's voice span names the speaker; cue text must not hold "-->" or raw "<" "&".
        text = phrase.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        if phrase.speaker:
            text = f"<v {phrase.speaker}>{text}"
        span = f"{_clock(phrase.start_ms, '.')} --> {_clock(phrase.end_ms, '.')}"
        blocks.append(f"{span}\n{text}\n")
    return "\n".join(blocks)


def _clock(ms: int, separator: str) -> str:
    hours, rest = divmod(max(ms, 0), 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{separator}{millis:03d}"
