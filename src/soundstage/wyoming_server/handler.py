"""One Wyoming connection (the `wyoming` package's AsyncEventHandler): its events read with a
bound on each, each request run as the server key's account, each failure answered with an
`error` event (the HTTP API's code and message).

After an error the request is over and the connection is closed; while the client is still
streaming that request (the rest of its audio, or of its text), what it sends is read and
dropped until the stream's end (`audio-stop`, `synthesize-stop`), DRAIN_SECONDS at most,
then the connection is closed: a client that reads only once it has sent everything still
receives its error rather than a reset, and one that never stops is cut."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar, cast

from starlette.concurrency import run_in_threadpool
from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event, Eventable, async_read_event
from wyoming.info import AsrProgram, Describe
from wyoming.server import AsyncEventHandler
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
)

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError, InternalError, MalformedRequest, PayloadTooLarge
from soundstage.engines.transcribers.base import UnknownModel
from soundstage.media.audio import InvalidMedia
from soundstage.realtime.errors import SessionTimeout
from soundstage.wyoming_server import catalog, synthesis, transcription
from soundstage.wyoming_server.access import Access
from soundstage.wyoming_server.synthesis import TextStream
from soundstage.wyoming_server.transcription import Spool, Transcription

log = logging.getLogger("soundstage.wyoming")

# The largest data or payload one event may carry. An audio chunk is a few KB (Home
# Assistant's: 1,024 samples, 2 KB) and a synthesis' text at most 5,000 characters; a
# larger event is refused from its header, its bytes dropped as they come, never held. The
# header line itself is held to the reader's own limit (asyncio's 64 KiB).
MAX_EVENT_BYTES: Final = 1024 * 1024
# How long a refused stream is read and dropped before the connection is cut.
DRAIN_SECONDS: Final = 10.0
_SKIP_BYTES: Final = 64 * 1024

EventableT = TypeVar("EventableT", bound=Eventable)


@dataclass(frozen=True)
class Context:
    """What every connection of the server shares."""

    db: Database
    settings: Settings
    access: Access
    # Made once, as the server starts (catalog.asr_program).
    asr: AsrProgram


class _BoundedReader:
    """The connection's reader as the `wyoming` package's event parser uses it, refusing an
    event's data or payload longer than MAX_EVENT_BYTES: never held, it is read and dropped
    (DRAIN_SECONDS at most), so that the client's write ends and it reads its error rather
    than a reset."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def readline(self) -> bytes:
        return await self._reader.readline()

    async def readexactly(self, n: int) -> bytes:
        if n > MAX_EVENT_BYTES:
            with contextlib.suppress(TimeoutError, asyncio.IncompleteReadError):
                async with asyncio.timeout(DRAIN_SECONDS):
                    for left in range(n, 0, -_SKIP_BYTES):
                        await self._reader.readexactly(min(left, _SKIP_BYTES))
            raise PayloadTooLarge(
                f"An event carries {n:,} bytes; the most one may carry is {MAX_EVENT_BYTES:,}."
            )
        return await self._reader.readexactly(n)


def _parsed(kind: type[EventableT], event: Event) -> EventableT:
    """The event read as `kind`; 400 malformed_request when its fields do not fit."""
    try:
        return cast(EventableT, kind.from_event(event))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MalformedRequest(f"{event.type}: missing or invalid field ({exc}).") from exc


def _stream_end(kind: str) -> Callable[[str], bool] | None:
    """When an event of `kind` fails, whether a later event ends the stream the client is
    still sending for that request (None: it sends nothing more for it)."""
    if Transcribe.is_type(kind) or AudioStart.is_type(kind) or AudioChunk.is_type(kind):
        return AudioStop.is_type
    if SynthesizeStart.is_type(kind) or SynthesizeChunk.is_type(kind):
        return SynthesizeStop.is_type
    return None


class Connection(AsyncEventHandler):
    """One client's connection: a request at a time, in the order its events come."""

    def __init__(
        self, context: Context, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        super().__init__(reader, writer)
        self.context = context
        # The package's parser calls only readline() and readexactly(), which it has.
        self._events = cast(asyncio.StreamReader, _BoundedReader(reader))
        self._transcription: Transcription | None = None
        self._text: TextStream | None = None
        # After an error while the client still streams its request: whether an event ends
        # that stream, and until when its events are dropped.
        self._dropping: Callable[[str], bool] | None = None
        self._drop_until = 0.0

    async def run(self) -> None:
        """AsyncEventHandler's loop, with its waits bounded: the idle timeout between events
        (the drain's end while dropping), and each event's size."""
        try:
            while (event := await self._next_event()) is not None:
                if not await self.handle_event(event):
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away
        finally:
            await self.disconnect()
            self.writer.close()

    async def _next_event(self) -> Event | None:
        dropping = self._dropping is not None
        if dropping:
            timeout = max(0.0, self._drop_until - time.monotonic())
        else:
            timeout = self.context.settings.wyoming.idle_timeout_seconds
        try:
            async with asyncio.timeout(timeout):
                return await async_read_event(self._events)
        except TimeoutError:
            if not dropping and self._open_stream_end() is not None:
                seconds = self.context.settings.wyoming.idle_timeout_seconds
                await self._fail(
                    SessionTimeout(f"Nothing was received for {seconds:g} s mid-request.")
                )
            return None
        except PayloadTooLarge as exc:
            if dropping or not await self._fail(exc, self._open_stream_end()):
                return None
            return await self._next_event()

    async def disconnect(self) -> None:
        self._end_requests()

    async def handle_event(self, event: Event) -> bool:
        if self._dropping is not None:
            return not self._dropping(event.type)
        try:
            await self._dispatch(event)
        except AppError as exc:
            return await self._fail(exc, _stream_end(event.type))
        except ConnectionError:
            raise  # the client went away: nothing to answer
        except Exception:
            log.exception("wyoming: %s failed", event.type)
            error = InternalError("The request failed on the server.")
            return await self._fail(error, _stream_end(event.type))
        return True

    async def _dispatch(self, event: Event) -> None:
        kind = event.type
        if Describe.is_type(kind):
            await self._describe()
        elif Transcribe.is_type(kind):
            await self._transcribe(_parsed(Transcribe, event))
        elif AudioStart.is_type(kind):
            await self._audio_start(_parsed(AudioStart, event))
        elif AudioChunk.is_type(kind):
            await self._audio_chunk(_parsed(AudioChunk, event))
        elif AudioStop.is_type(kind):
            await self._audio_stop()
        elif Synthesize.is_type(kind):
            # Inside a streamed text, its whole text again, for older servers: not spoken.
            if self._text is None:
                await self._synthesize(_parsed(Synthesize, event))
        elif SynthesizeStart.is_type(kind):
            await self._synthesize_start(_parsed(SynthesizeStart, event))
        elif SynthesizeChunk.is_type(kind):
            await self._synthesize_chunk(_parsed(SynthesizeChunk, event))
        elif SynthesizeStop.is_type(kind):
            await self._synthesize_stop()
        # Any other event is dropped, as the protocol asks of a server (a newer client's).

    # describe

    async def _describe(self) -> None:
        context = self.context
        await context.access.admit()

        def read() -> Event:
            with context.db.read_session() as session:
                return catalog.info(session, context.settings, context.asr).event()

        await self.write_event(await run_in_threadpool(read))

    # transcribe, audio-start, audio-chunk, audio-stop

    async def _transcribe(self, request: Transcribe) -> None:
        self._end_requests()
        principal = await self.context.access.admit()
        model = self.context.settings.stt.default_model
        if request.name is not None and request.name != model:
            raise UnknownModel(
                f"There is no speech-to-text model named {request.name!r} here; `describe` "
                f"lists {model!r}.",
                param="name",
            )
        self._transcription = Transcription(principal, request.language or None)

    async def _transcribing(self) -> Transcription:
        """The open transcription; audio without a `transcribe` opens one (any language)."""
        if self._transcription is None:
            self._end_requests()
            self._transcription = Transcription(await self.context.access.admit(), None)
        return self._transcription

    def _spool(self, request: Transcription, start: AudioStart | AudioChunk) -> Spool:
        settings = self.context.settings
        request.spool = Spool(settings, start, settings.wyoming.max_audio_seconds)
        return request.spool

    async def _audio_start(self, start: AudioStart) -> None:
        request = await self._transcribing()
        if request.spool is not None:
            raise MalformedRequest("audio-start: this transcription's audio has started already.")
        self._spool(request, start)

    async def _audio_chunk(self, chunk: AudioChunk) -> None:
        request = await self._transcribing()
        spool = request.spool or self._spool(request, chunk)
        spool.write(chunk, chunk.audio)

    async def _audio_stop(self) -> None:
        request, self._transcription = self._transcription, None
        if request is None:
            return  # the end of a stream already answered (or refused)
        try:
            spool = request.spool
            if spool is None or spool.frames == 0:
                raise InvalidMedia(
                    "No audio was received between `transcribe` and `audio-stop`: nothing "
                    "to transcribe (nothing was charged).",
                    param=transcription.PARAM,
                )
            spool.close()
            context = self.context
            result = await transcription.transcribe(
                context.db, context.settings, request.principal, spool, request.language
            )
        finally:
            request.discard()
        for event in transcription.transcript_events(result):
            await self.write_event(event)

    # synthesize, synthesize-start, synthesize-chunk, synthesize-stop

    async def _synthesize(self, request: Synthesize) -> None:
        context = self.context
        principal = await context.access.admit()
        voice = await synthesis.voice_id(context.db, context.settings, request.voice)
        await synthesis.speak(
            context.db, context.settings, principal, request.text, voice, self.write_event
        )

    async def _synthesize_start(self, request: SynthesizeStart) -> None:
        self._end_requests()
        context = self.context
        principal = await context.access.admit()
        voice = await synthesis.voice_id(context.db, context.settings, request.voice)
        self._text = TextStream(principal, voice)

    async def _synthesize_chunk(self, chunk: SynthesizeChunk) -> None:
        if self._text is None:
            return  # no stream open (the rest of one refused, or never started)
        for piece in self._text.add(chunk.text):
            await self._speak_piece(self._text, piece)

    async def _synthesize_stop(self) -> None:
        stream, self._text = self._text, None
        if stream is None:
            return
        for piece in stream.finish():
            await self._speak_piece(stream, piece)
        await self.write_event(SynthesizeStopped().event())

    async def _speak_piece(self, stream: TextStream, piece: str) -> None:
        context = self.context
        await synthesis.speak(
            context.db, context.settings, stream.principal, piece, stream.voice, self.write_event
        )

    # failures

    def _open_stream_end(self) -> Callable[[str], bool] | None:
        """Whether an event ends the stream the open request is receiving, if one is open."""
        if self._transcription is not None:
            return AudioStop.is_type
        if self._text is not None:
            return SynthesizeStop.is_type
        return None

    def _end_requests(self) -> None:
        if self._transcription is not None:
            self._transcription.discard()
        self._transcription = None
        self._text = None

    async def _fail(self, error: AppError, stream_end: Callable[[str], bool] | None = None) -> bool:
        """Answer `error` and end the request: whether to go on reading, dropping the rest
        of the stream the client is still sending until `stream_end` says it has ended."""
        log.info("wyoming: refused (%s): %s", error.code, error.message)
        self._end_requests()
        try:
            await self.write_event(Error(text=error.message, code=error.code).event())
        except ConnectionError:
            return False
        if stream_end is None:
            return False
        self._dropping = stream_end
        self._drop_until = time.monotonic() + DRAIN_SECONDS
        return True
