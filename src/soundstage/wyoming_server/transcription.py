"""`transcribe` and its audio stream: the audio spooled to a WAV file as it arrives (never held
whole in memory) and refused the moment it passes `wyoming.max_audio_seconds`; once it ends,
kept as an upload of the account (the storage quota and retention apply, as to POST
/api/v1/uploads) and transcribed by the speech-to-text job from its URL, as the OpenAI-compatible
transcriptions endpoint does; the transcript answered as Wyoming's events."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from starlette.concurrency import run_in_threadpool
from wyoming.asr import Transcript, TranscriptChunk, TranscriptStart, TranscriptStop
from wyoming.audio import AudioFormat
from wyoming.event import Event

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import MalformedRequest, StorageFull, is_disk_full
from soundstage.core.principal import Principal
from soundstage.media.input_limits import AudioOutOfRange, MediaTooLong
from soundstage.speech.stt import service as stt
from soundstage.speech.stt.schemas import SttRequest, SttResponse
from soundstage.storage import service as storage
from soundstage.wyoming_server.fields import validated

PARAM: Final = "audio"
# A microphone's stream, as Wyoming sends it: 8 to 48 kHz (telephone to studio), 8 to 32-bit
# samples (WAV's widths), mono or stereo. Anything else is refused before anything is spooled.
MIN_SAMPLE_RATE: Final = 8_000
MAX_SAMPLE_RATE: Final = 48_000
SAMPLE_WIDTHS: Final = (1, 2, 3, 4)
MAX_CHANNELS: Final = 2
FILENAME: Final = "wyoming.wav"


def _checked(audio: AudioFormat) -> AudioFormat:
    """The stream's format, if a microphone's (AudioOutOfRange otherwise)."""
    rate, width, channels = audio.rate, audio.width, audio.channels
    if not all(isinstance(value, int) for value in (rate, width, channels)):
        raise MalformedRequest("audio: rate, width and channels must be integers.", param=PARAM)
    if not MIN_SAMPLE_RATE <= rate <= MAX_SAMPLE_RATE:
        raise AudioOutOfRange(
            f"The audio's rate is {rate} Hz; a transcription takes {MIN_SAMPLE_RATE} to "
            f"{MAX_SAMPLE_RATE} Hz.",
            param=PARAM,
        )
    if width not in SAMPLE_WIDTHS or not 1 <= channels <= MAX_CHANNELS:
        raise AudioOutOfRange(
            f"The audio has {width}-byte samples in {channels} channels; a transcription "
            f"takes 1 to 4-byte samples in 1 or 2 channels.",
            param=PARAM,
        )
    return AudioFormat(rate=rate, width=width, channels=channels)


class Spool:
    """One audio stream written to a WAV file in a private directory under `data_dir/tmp`
    as it arrives: a chunk that would take it past `max_seconds` is refused (MediaTooLong)
    before it is written, so a stream of any length never costs more than the bound."""

    def __init__(self, settings: Settings, audio: AudioFormat, max_seconds: float) -> None:
        self.format = _checked(audio)
        self._max_seconds = max_seconds
        self._max_frames = int(max_seconds * self.format.rate)
        self._frame_bytes = self.format.width * self.format.channels
        self.frames = 0
        root = settings.data_dir / "tmp"
        root.mkdir(parents=True, exist_ok=True)
        self._directory = Path(tempfile.mkdtemp(prefix="wyoming-", dir=root))
        self.path = self._directory / FILENAME
        # Open for the stream's life, closed by close() or discard().
        self._wav: wave.Wave_write | None = wave.open(str(self.path), "wb")  # noqa: SIM115
        self._wav.setframerate(self.format.rate)
        self._wav.setsampwidth(self.format.width)
        self._wav.setnchannels(self.format.channels)

    @property
    def duration_ms(self) -> int:
        return self.frames * 1000 // self.format.rate

    def write(self, chunk: AudioFormat, audio: bytes) -> None:
        """Append one chunk's samples. Written on the event loop: a chunk is a few KB into
        the page cache, less time than a thread hop."""
        if (chunk.rate, chunk.width, chunk.channels) != (
            self.format.rate,
            self.format.width,
            self.format.channels,
        ):
            raise MalformedRequest(
                f"audio-chunk: {chunk.rate} Hz, {chunk.width}-byte samples, {chunk.channels} "
                f"channel(s), not the stream's {self.format.rate} Hz, {self.format.width}-byte "
                f"samples, {self.format.channels} channel(s).",
                param=PARAM,
            )
        if len(audio) % self._frame_bytes:
            raise MalformedRequest(
                f"audio-chunk: {len(audio)} bytes is not a whole number of "
                f"{self._frame_bytes}-byte frames.",
                param=PARAM,
            )
        frames = len(audio) // self._frame_bytes
        if self.frames + frames > self._max_frames:
            raise MediaTooLong(
                f"The audio stream passed {self._max_seconds:g} s, the longest a Wyoming "
                "transcription takes here (wyoming.max_audio_seconds); the rest of it is not "
                "heard.",
                param=PARAM,
            )
        assert self._wav is not None, "written after it was closed"
        try:
            self._wav.writeframesraw(audio)
        except OSError as exc:
            if is_disk_full(exc):
                raise StorageFull() from exc
            raise
        self.frames += frames

    def close(self) -> None:
        """Finish the file (its header then holds its length)."""
        if self._wav is not None:
            wav, self._wav = self._wav, None
            wav.close()

    def discard(self) -> None:
        """Delete the file and its directory (idempotent)."""
        with contextlib.suppress(OSError):  # a disk that filled up: the directory goes anyway
            self.close()
        shutil.rmtree(self._directory, ignore_errors=True)


@dataclass
class Transcription:
    """One `transcribe` request: who asked, in which language, and its audio so far."""

    principal: Principal
    language: str | None
    spool: Spool | None = field(default=None)

    def discard(self) -> None:
        if self.spool is not None:
            self.spool.discard()


async def transcribe(
    db: Database, settings: Settings, principal: Principal, spool: Spool, language: str | None
) -> SttResponse:
    """Keep the finished spool as the account's upload and transcribe it with the
    speech-to-text job (the HTTP API's service: its price, bounds and job, listed under the
    account). No language: the job detects it."""

    def keep() -> tuple[str, str]:
        with db.session() as session:
            media = storage.save_upload(session, settings, principal, spool.path, FILENAME)
            url, _expires = storage.url_of(settings, media)
            return media.id, url

    media_id, url = await run_in_threadpool(keep)
    body = validated(SttRequest, {"audio_url": url, "language": language or stt.AUTO})
    # Read by the job by its id: the URL is signed with this process's public base URL,
    # which a worker started by `serve` (its own port's) may not take for the service's.
    return await stt.transcribe(db, settings, principal, body, kept_media_id=media_id)


def transcript_events(result: SttResponse) -> list[Event]:
    """The transcript as Wyoming's events: the streaming ones (the whole text in one chunk:
    the job writes it at once), with the plain `transcript` inside them for clients that
    read only that, as the protocol asks."""
    language = result.language
    events = [TranscriptStart(language=language).event()]
    if result.transcript:
        events.append(TranscriptChunk(text=result.transcript).event())
    events.append(Transcript(text=result.transcript, language=language).event())
    events.append(TranscriptStop().event())
    return events
