"""A realtime transcription session in its slot process: the client's audio (16-bit PCM or
mu-law at its rate) decoded to 16 kHz, fed to the streaming recognizer, its events turned
into the protocol's messages."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Final

import numpy as np
import soxr

from soundstage.config import Settings
from soundstage.core.errors import MalformedRequest
from soundstage.engines.transcribers.streaming import (
    SAMPLE_RATE,
    Event,
    FinalTranscript,
    Partial,
    Samples,
    SpeechStarted,
    SpeechStopped,
    StreamingOptions,
    load_recognizer,
)
from soundstage.speech.stt.schemas import SttRealtimeOpening

BYTES_PER_SAMPLE: Final = {"pcm_s16le": 2, "mulaw": 1}


def open_session(settings: Settings, params: dict[str, Any]) -> RealtimeTranscription:
    """The handler of one session (realtime core's factory); params: a SttRealtimeOpening's
    fields. Loads the model on the slot's first session (about 0.5 s), then reuses it."""
    opening = SttRealtimeOpening.model_validate(params)
    return RealtimeTranscription(settings, opening)


class RealtimeTranscription:
    """handle(bytes): an audio frame; handle({"commit": True}): an utterance boundary;
    close(): the final of the utterance under way, then `session.stats` (for the endpoint:
    the time spent on the session's audio)."""

    def __init__(self, settings: Settings, opening: SttRealtimeOpening) -> None:
        language = None if opening.language in (None, "auto") else opening.language
        self._recognizer = load_recognizer(
            settings,
            model=opening.model_id,
            language=language,
            options=StreamingOptions(vad=opening.vad),
            diarize=opening.diarize,
        )
        self._decoder = AudioDecoder(opening.encoding, opening.sample_rate)
        self._busy = 0.0

    def handle(self, message: Any) -> Iterator[dict[str, Any]]:
        started = time.perf_counter()
        try:
            yield from self._handle(message)
        finally:
            self._busy += time.perf_counter() - started

    def _handle(self, message: Any) -> Iterator[dict[str, Any]]:
        if isinstance(message, bytes):
            events = self._recognizer.feed(self._decoder.decode(message))
        elif isinstance(message, dict) and message.get("commit"):
            events = self._recognizer.commit()
        else:
            raise MalformedRequest("Expected an audio frame or a commit.", param="message")
        for event in events:
            yield message_of(event)

    def close(self) -> Iterator[dict[str, Any]]:
        started = time.perf_counter()
        for event in self._recognizer.feed(self._decoder.flush()):
            yield message_of(event)
        for event in self._recognizer.finish():
            yield message_of(event)
        self._busy += time.perf_counter() - started
        yield {"type": "session.stats", "processing_ms": round(self._busy * 1000)}


def message_of(event: Event) -> dict[str, Any]:
    """The protocol's message for a recognizer event (README, "Realtime transcription")."""
    if isinstance(event, SpeechStarted):
        return {
            "type": "speech.started",
            "utterance": event.utterance,
            "audio_start_ms": event.at_ms,
        }
    if isinstance(event, SpeechStopped):
        return {"type": "speech.stopped", "utterance": event.utterance, "audio_end_ms": event.at_ms}
    if isinstance(event, Partial):
        return {
            "type": "partial",
            "utterance": event.utterance,
            "text": event.text,
            "stable_text": event.stable_text,
            "start_ms": event.start_ms,
        }
    assert isinstance(event, FinalTranscript)
    speaker = {} if event.speaker is None else {"speaker": event.speaker}
    return {
        "type": "final",
        "utterance": event.utterance,
        "text": event.text,
        "start_ms": event.start_ms,
        "end_ms": event.end_ms,
        "language": event.language,
        **speaker,
        "words": [
            {
                "word": word.word,
                "start_ms": word.start_ms,
                "end_ms": word.end_ms,
                "probability": word.probability,
            }
            for word in event.words
        ],
    }


class AudioDecoder:
    """The client's byte stream as 16 kHz float32: a sample split across two frames is
    joined, and one resampler runs across frames (no seams)."""

    def __init__(self, encoding: str, sample_rate: int) -> None:
        self._width = BYTES_PER_SAMPLE[encoding]
        self._mulaw = encoding == "mulaw"
        self._pending = b""
        self._resampler = (
            None
            if sample_rate == SAMPLE_RATE
            else soxr.ResampleStream(sample_rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
        )

    def decode(self, data: bytes) -> Samples:
        data = self._pending + data
        whole = len(data) - len(data) % self._width
        self._pending = data[whole:]
        if self._mulaw:
            samples = _MULAW[np.frombuffer(data[:whole], dtype=np.uint8)]
        else:
            samples = np.frombuffer(data[:whole], dtype="<i2").astype(np.float32) / 32768.0
        return self._resampled(samples, last=False)

    def flush(self) -> Samples:
        """What the resampler still holds, at the end of the stream."""
        return self._resampled(np.zeros(0, dtype=np.float32), last=True)

    def _resampled(self, samples: Samples, *, last: bool) -> Samples:
        if self._resampler is None:
            return samples
        out: Samples = self._resampler.resample_chunk(samples, last=last)
        return out


def _mulaw_table() -> Samples:
    """G.711 mu-law: each byte's linear value, scaled to -1..1."""
    codes = ~np.arange(256, dtype=np.uint8)
    sign = codes & 0x80
    exponent = (codes >> 4) & 0x07
    mantissa = codes & 0x0F
    magnitude = ((mantissa.astype(np.int32) << 3) + 0x84) << exponent
    linear = np.where(sign != 0, 0x84 - magnitude, magnitude - 0x84)
    return (linear / 32768.0).astype(np.float32)


_MULAW: Final = _mulaw_table()
