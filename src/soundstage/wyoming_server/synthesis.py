"""`synthesize` and the streamed `synthesize-start`/`-chunk`/`-stop`: each text spoken by the
text-to-speech job as POST /api/v1/speech/tts/stream runs it (the voice checked, the text read
by the front end and bounded, its characters reserved and charged as spoken, the job listed
under the account), its audio relayed as it is made, as raw 16-bit mono PCM at 22,050 Hz in
`audio-chunk` events between `audio-start` and `audio-stop`.

A streamed text is spoken piece by piece as its sentences complete (the realtime sessions' cuts,
speech.tts.segments): one job per piece, so speech starts before the text has all arrived,
each piece with its own `audio-start` and `audio-stop`, as Wyoming's reference server sends
them."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Final

from starlette.concurrency import run_in_threadpool
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.tts import SynthesizeVoice

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import InvalidField
from soundstage.core.pagination import PageParams
from soundstage.core.principal import Principal
from soundstage.media import encodings
from soundstage.speech.tts import service as tts
from soundstage.speech.tts.schemas import MAX_TEXT_CHARACTERS, TtsRequest
from soundstage.speech.tts.segments import Segmenter
from soundstage.voices import service as voices
from soundstage.voices.errors import VoiceNotFound
from soundstage.wyoming_server.fields import validated

# 22.05 kHz: Piper's and espeak-ng's own rate, and above every other engine's of the catalog
# but Kokoro's 24 kHz, so that few voices are resampled; Wyoming clients convert it to theirs.
ENCODING: Final = encodings.encoding("pcm_22050")
SAMPLE_WIDTH: Final = 2
CHANNELS: Final = 1
# Samples per `audio-chunk` (46 ms), the reference Piper server's size.
SAMPLES_PER_CHUNK: Final = 1024

Send = Callable[[Event], Awaitable[None]]


def _voice_id(db: Database, settings: Settings, voice: SynthesizeVoice | None) -> str:
    """The catalog voice asked for: by name (a voice id, as `describe` lists them), else the
    best rated of the language asked for, else `wyoming.default_voice`. 404 voice_not_found
    for an unknown name or a language no voice speaks. Blocking."""
    with db.read_session() as session:
        if voice is not None and voice.name:
            return voices.get_active_voice(session, voice.name).id
        if voice is not None and voice.language:
            language = voice.language.replace("_", "-")
            found, _more = voices.list_voices(
                session, settings, PageParams(limit=1), language=language, gender=None
            )
            if not found:
                raise VoiceNotFound(
                    f"No voice of the catalog speaks {voice.language!r}.", param="voice.language"
                )
            return found[0].voice_id
        return voices.get_active_voice(session, settings.wyoming.default_voice).id


async def voice_id(db: Database, settings: Settings, voice: SynthesizeVoice | None) -> str:
    return await run_in_threadpool(_voice_id, db, settings, voice)


class _Frames:
    """Relayed bytes cut into whole-sample chunks of SAMPLES_PER_CHUNK (a relayed piece may
    end inside a sample)."""

    def __init__(self) -> None:
        self._size = SAMPLES_PER_CHUNK * SAMPLE_WIDTH * CHANNELS
        self._held = b""

    def add(self, data: bytes) -> list[bytes]:
        self._held += data
        cut = len(self._held) - len(self._held) % self._size
        ready, self._held = self._held[:cut], self._held[cut:]
        return [ready[start : start + self._size] for start in range(0, cut, self._size)]

    def rest(self) -> bytes:
        whole = len(self._held) - len(self._held) % (SAMPLE_WIDTH * CHANNELS)
        return self._held[:whole]


def _chunk(audio: bytes) -> Event:
    return AudioChunk(
        rate=ENCODING.sample_rate, width=SAMPLE_WIDTH, channels=CHANNELS, audio=audio
    ).event()


async def speak(
    db: Database,
    settings: Settings,
    principal: Principal,
    text: str,
    voice: str,
    send: Send,
) -> None:
    """Speak `text` with the catalog voice `voice`: `audio-start`, the audio as it is made,
    `audio-stop`. What fails before the first audio (402, an unknown voice, text the front
    end refuses) raises before `audio-start`, nothing charged; a client gone midway cancels
    the job, charged for the audio it had been sent."""
    body = validated(TtsRequest, {"text": text, "voice_id": voice})
    speech = await tts.stream(db, settings, principal, body, encoding=ENCODING.name)
    await send(AudioStart(rate=ENCODING.sample_rate, width=SAMPLE_WIDTH, channels=CHANNELS).event())
    frames = _Frames()
    chunks = speech.body()
    try:
        async for data in chunks:
            for piece in frames.add(data):
                await send(_chunk(piece))
    finally:
        # Closed at once, not when collected: an abandoned stream cancels its job now.
        if isinstance(chunks, AsyncGenerator):
            await chunks.aclose()
    rest = frames.rest()
    if rest:
        await send(_chunk(rest))
    await send(AudioStop().event())


class TextStream:
    """One streamed text (`synthesize-start` to `synthesize-stop`): who asked, the voice,
    and the text received and not yet spoken, cut into the pieces to speak. The whole text
    is held to what one synthesis takes (5,000 characters), refused (422 naming `text`) at
    the chunk that passes it."""

    def __init__(self, principal: Principal, voice: str) -> None:
        self.principal = principal
        self.voice = voice
        self._segmenter = Segmenter()
        self._received = 0

    def add(self, text: str) -> list[str]:
        """Take a chunk of text: the pieces now ready to speak."""
        if not isinstance(text, str):
            raise InvalidField("text: must be a string.", param="text")
        self._received += len(text)
        if self._received > MAX_TEXT_CHARACTERS:
            raise InvalidField(
                f"text: the streamed text passed {MAX_TEXT_CHARACTERS:,} characters, the most "
                "one synthesis takes.",
                param="text",
            )
        self._segmenter.add(text)
        return self._ready(flush=False)

    def finish(self) -> list[str]:
        """The text's end: the pieces left to speak."""
        return self._ready(flush=True)

    def _ready(self, *, flush: bool) -> list[str]:
        pieces = []
        while (cut := self._segmenter.next_cut(flush=flush)) is not None:
            # A piece with nothing to say (an emoji, a lone dash between sentences) is
            # skipped, unspoken and uncharged, rather than ending the whole answer in error.
            if any(character.isalnum() for character in cut.text):
                pieces.append(cut.text)
        return pieces
