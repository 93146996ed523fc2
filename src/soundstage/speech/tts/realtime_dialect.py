"""The native protocol's dialect of the realtime text-to-speech session (speech.tts.realtime's
Dialect): its messages (speech.tts.realtime_messages) read into turns, the session's pieces
shaped into binary frames and `alignment`, or base64 `audio` messages. ElevenLabs' stream-input
and multi-stream-input are in compat."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from soundstage.core.errors import InvalidField
from soundstage.realtime.messages import read_json, validation_error
from soundstage.speech.tts.realtime import (
    AudioTail,
    CloseContext,
    Frame,
    SpokenChunk,
    TextInput,
    TextTurn,
)
from soundstage.speech.tts.realtime_messages import (
    AlignmentMessage,
    AudioMessage,
    CharacterAlignment,
    FinalMessage,
    RealtimeTtsInput,
    RealtimeTtsOpening,
)


class NativeDialect:
    """GET /api/v1/speech/tts/realtime's own protocol: binary frames and `alignment`, or
    base64 `audio` messages; `final` with the totals."""

    def __init__(self, opening: RealtimeTtsOpening) -> None:
        self._opening = opening
        self._base64 = opening.output_mode == "base64"

    def opening(self) -> TextTurn:
        first = self._opening
        if first.text.strip() or first.flush:
            return TextTurn((TextInput(first.text, flush=first.flush),))
        return TextTurn()

    def read(self, message: dict[str, Any]) -> TextTurn:
        body = read_json(message)
        try:
            read = RealtimeTtsInput.model_validate(body)
        except ValidationError as exc:
            param, text = validation_error(exc, "message")
            raise InvalidField(text, param=param) from None
        inputs = (TextInput(read.text or "", flush=read.flush),) if read.text or read.flush else ()
        return TextTurn(inputs, ends=read.ends)

    def spoken(self, chunk: SpokenChunk) -> Sequence[Frame]:
        alignment = AlignmentMessage(
            chunk=chunk.index,
            text=chunk.text,
            start_ms=chunk.start_ms,
            duration_ms=chunk.duration_ms,
            words=list(chunk.words),
            alignment=CharacterAlignment.of_words(chunk.words),
        )
        if not self._base64:
            # The audio is the client's: charged, whatever happens to the alignment after it.
            return [chunk.audio, alignment] if chunk.audio else [alignment]
        audio = AudioMessage(
            audio=encode(chunk.audio),
            chunk=alignment.chunk,
            text=alignment.text,
            start_ms=alignment.start_ms,
            duration_ms=alignment.duration_ms,
            words=alignment.words,
            alignment=alignment.alignment,
        )
        return [audio]

    def tail(self, tail: AudioTail) -> Sequence[Frame]:
        if self._base64:
            return [AudioMessage(audio=encode(tail.audio))]
        return [tail.audio]

    def context_closed(self, close: CloseContext) -> Sequence[Frame]:
        return []

    def finished(self, totals: FinalMessage) -> Sequence[Frame]:
        return [totals]


def encode(audio: bytes) -> str:
    return base64.b64encode(audio).decode("ascii")
