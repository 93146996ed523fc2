"""Text streamed in, cut into the pieces a realtime session speaks: a piece is ready as soon as
a sentence (or paragraph) is complete, or a clause once it is long enough, so that speech
starts before the text has all arrived."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from soundstage.engines.tts import text as text_pieces

# ElevenLabs' `generation_config.chunk_length_schedule` default is (120, 160, 250, 290): ours
# starts lower, since the first piece decides how soon speech starts, and the later ones are
# spoken while the earlier ones play.
DEFAULT_CHUNK_LENGTH_SCHEDULE: Final = (50, 120, 160, 250)


@dataclass(frozen=True)
class Cut:
    """One piece of the text to speak."""

    # What the engine is given: the piece with its white space folded.
    text: str
    # The silence the reader leaves after it.
    pause_after_ms: int
    # How many characters of the text as sent it uses up (its white space included): what it
    # is charged.
    characters: int


class Segmenter:
    """The text received and not yet spoken, and where to cut it.

    A sentence is known to be complete once white space follows its end ("Hello. " but not
    "Hello." at the end of the buffer: "3." may go on as "3.5"); a paragraph break ends one
    too. Without a complete sentence, the i-th piece may end at a clause mark (, ; : and
    dashes, then white space) once it holds `schedule[i]` characters (the last value for the
    pieces after); text with no break at all is cut at a word once it reaches
    MAX_PIECE_CHARACTERS. A flush takes everything."""

    def __init__(self, schedule: Sequence[int] = DEFAULT_CHUNK_LENGTH_SCHEDULE) -> None:
        if not schedule:
            raise ValueError("the chunk length schedule needs at least one length")
        self._schedule = tuple(schedule)
        self._buffer = ""
        self._cuts = 0

    @property
    def buffered(self) -> int:
        """Characters received and not yet cut."""
        return len(self._buffer)

    def add(self, text: str) -> None:
        self._buffer += text

    def next_cut(self, *, flush: bool = False) -> Cut | None:
        """The next piece ready to speak (with `flush`, whatever is left), or None."""
        while self._buffer.strip():
            found = self._find(flush)
            if found is None:
                return None
            end, following, pause_ms = found
            piece = " ".join(self._buffer[:end].split())
            self._buffer = self._buffer[following:]
            if piece:
                self._cuts += 1
                return Cut(piece, pause_ms, following)
            # A break with nothing before it (blank lines): consumed, nothing to say.
        return None

    def _find(self, flush: bool) -> tuple[int, int, int] | None:
        """(end of the piece, start of what follows, pause after it) or None."""
        buffer = self._buffer
        paragraph = text_pieces.PARAGRAPH_BREAK.search(buffer)
        region = buffer[: paragraph.start()] if paragraph else buffer
        sentence = next(text_pieces.sentence_ends(region), None)
        if sentence is not None and sentence[0] <= text_pieces.MAX_PIECE_CHARACTERS:
            return sentence[0], sentence[1], text_pieces.PAUSE_AFTER_SENTENCE_MS
        if paragraph is not None and len(region) <= text_pieces.MAX_PIECE_CHARACTERS:
            return paragraph.start(), paragraph.end(), text_pieces.PAUSE_AFTER_PARAGRAPH_MS
        # No complete sentence short enough: a long enough clause, a word of an overlong text.
        threshold = self._schedule[min(self._cuts, len(self._schedule) - 1)]
        limit = text_pieces.MAX_PIECE_CHARACTERS
        for clause in text_pieces.CLAUSE_END.finditer(region):
            if clause.start() > limit:
                break
            if len(region[: clause.start()].strip()) >= threshold:
                return clause.start(), clause.end(), text_pieces.PAUSE_AFTER_CLAUSE_MS
        if len(region) > limit:
            space = region.rfind(" ", 0, limit + 1)
            end = space if space > 0 else limit
            return end, end, 0
        if flush:
            return len(buffer), len(buffer), 0
        return None
