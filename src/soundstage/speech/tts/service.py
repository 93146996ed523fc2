"""Text-to-speech as the endpoints see it: check the voice, price the text, run the job, and
either wait for its file or relay its stream."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError, InvalidField
from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines.errors import SynthesisFailed
from soundstage.engines.tts.frontend import reading
from soundstage.engines.tts.frontend.script import Rule
from soundstage.jobs import service as jobs
from soundstage.jobs.streams import Relay
from soundstage.media import encodings
from soundstage.media.audio import CONTENT_TYPES
from soundstage.pronunciation import service as pronunciation
from soundstage.speech.tts import dialogue, scripted
from soundstage.speech.tts.dialogue import DialogueJob
from soundstage.speech.tts.schemas import (
    MAX_TEXT_CHARACTERS,
    DialogueRequest,
    DialogueResponse,
    DictionaryLocator,
    TtsRequest,
    TtsResponse,
)
from soundstage.speech.tts.tasks import KIND, TtsJob
from soundstage.voices import service as voices


async def engine_voice(db: Database, voice_id: str) -> dict[str, Any]:
    """The catalog voice `voice_id` as its engine reads it: `engine`, `engine_voice` and
    `language` (404 when there is no such active voice)."""

    def lookup() -> dict[str, Any]:
        with db.read_session() as session:
            voice = voices.get_active_voice(session, voice_id)
            return {
                "engine": voice.engine,
                "engine_voice": voice.engine_voice,
                "language": voice.language,
            }

    return await run_in_threadpool(lookup)


def _resolve_rules(
    db: Database, principal: Principal, locators: list[DictionaryLocator]
) -> list[Rule]:
    """The rules of the principal's dictionaries asked for, in order (404 for an unknown one)."""
    if not locators:
        return []
    with db.read_session() as session:
        return pronunciation.resolve_rules(
            session,
            principal,
            [(locator.dictionary_id, locator.version_id) for locator in locators],
        )


def billed_characters(text: str, rules: list[Rule], *, param: str = "text") -> int:
    """The characters `text` is charged, as spoken (reading.billed_characters: its aliases
    in place, never fewer than written); 422 naming `param` when the spoken text passes
    the bound the written one is held to (aliases cannot stretch a request past it)."""
    characters = reading.billed_characters(text, rules)
    if characters > MAX_TEXT_CHARACTERS:
        raise InvalidField(
            f"{param}: the spoken text (each alias in place of what it stands for) is "
            f"{characters:,} characters, beyond the bound of {MAX_TEXT_CHARACTERS:,}.",
            param=param,
        )
    return characters


async def _job_request(
    db: Database,
    principal: Principal,
    body: TtsRequest,
    *,
    stream: bool,
    encoding: str | None = None,
    text_param: str = "text",
) -> tuple[TtsJob, int]:
    """The job's request and the credits it costs. The text is read through the front end
    here, so invalid SSML (or a say-as, a phoneme that does not fit) and a spoken text
    beyond the bound are 422 (naming `text_param`) before anything is submitted or
    reserved."""
    voice = await engine_voice(db, body.voice_id)

    def prepare() -> tuple[list[Rule], int]:
        rules = _resolve_rules(db, principal, body.pronunciation_dictionary_locators)
        reading.script(
            body.text,
            voice["language"] or "en",
            normalization=body.apply_text_normalization,
            rules=rules,
        )
        return rules, billed_characters(body.text, rules, param=text_param)

    rules, characters = await run_in_threadpool(prepare)
    request = TtsJob.model_validate(
        {
            **body.model_dump(exclude={"pronunciation_dictionary_locators"}),
            **voice,
            "stream": stream,
            "rules": [asdict(rule) for rule in rules],
            "encoding": encoding,
        }
    )
    return request, rates.for_characters(Operation.TTS, characters)


async def synthesize(
    db: Database, settings: Settings, principal: Principal, body: TtsRequest
) -> TtsResponse:
    request, credits = await _job_request(db, principal, body, stream=False)
    job = await jobs.run(db, settings, principal, KIND, request, credits_needed=credits)
    return TtsResponse.of(job)


@dataclass(frozen=True)
class SpeechStream:
    job_id: str
    content_type: str
    # The characters the whole text is charged (as spoken).
    characters: int
    first_chunk: bytes
    relay: Relay

    async def body(self) -> AsyncIterator[bytes]:
        yield self.first_chunk
        async for chunk in self.relay.rest():
            yield chunk


async def stream(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: TtsRequest,
    *,
    encoding: str | None = None,
    content_type: str | None = None,
    text_param: str = "text",
) -> SpeechStream:
    """Submit a streamed job and wait for its first audio bytes: errors before them (402, a
    voice or text the engine refuses) are answered as usual, with nothing charged.

    `encoding` (a name of media.encodings; `content_type` defaults to its own) streams the
    audio in that encoding rather than `body.format`, which the stored file keeps (the
    compatible APIs' output formats). Once the stream has ended, `jobs.wait(job_id)` gives
    the job's result (`words` with `timestamps`)."""
    request, credits = await _job_request(
        db, principal, body, stream=True, encoding=encoding, text_param=text_param
    )
    if content_type is None:
        content_type = (
            encodings.encoding(encoding).content_type if encoding else CONTENT_TYPES[body.format]
        )
    return await _streamed(db, settings, principal, KIND, request, credits, content_type)


async def _streamed(
    db: Database,
    settings: Settings,
    principal: Principal,
    kind: str,
    request: TtsJob | DialogueJob,
    credits: int,
    content_type: str,
) -> SpeechStream:
    def submit() -> str:
        with db.session() as session:
            job = jobs.submit(
                session, settings, principal, kind, request, credits_needed=credits, is_async=False
            )
            return job.id

    job_id = await run_in_threadpool(submit)
    relay = Relay(db, settings, job_id)
    first = await relay.first_chunk()
    return SpeechStream(job_id, content_type, credits, first, relay)


def _engine_voices(db: Database, voice_ids: list[str], param: str) -> dict[str, dict[str, Any]]:
    """Each voice as its engine reads it (404 naming `param` with the index of the first turn
    whose voice is unknown)."""
    found: dict[str, dict[str, Any]] = {}
    with db.read_session() as session:
        for index, voice_id in enumerate(voice_ids):
            if voice_id in found:
                continue
            try:
                voice = voices.get_active_voice(session, voice_id)
            except AppError as exc:
                exc.param = f"{param}[{index}].voice_id"
                raise
            found[voice_id] = {
                "engine": voice.engine,
                "engine_voice": voice.engine_voice,
                "language": voice.language,
            }
    return found


async def _dialogue_request(
    db: Database,
    principal: Principal,
    body: DialogueRequest,
    *,
    stream: bool,
    encoding: str | None = None,
    param: str = "inputs",
) -> tuple[DialogueJob, int]:
    """The dialogue job's request and the credits it costs: every turn read through the
    front end (an error names the turn: `inputs[2].text`), the turns' spoken characters
    held to the bound of one text to speech."""

    def prepare() -> tuple[DialogueJob, int]:
        engines = _engine_voices(db, [turn.voice_id for turn in body.inputs], param)
        rules = _resolve_rules(db, principal, body.pronunciation_dictionary_locators)
        characters = 0
        for index, turn in enumerate(body.inputs):
            try:
                script = reading.script(
                    turn.text,
                    engines[turn.voice_id]["language"] or "en",
                    normalization=body.apply_text_normalization,
                    rules=rules,
                )
            except AppError as exc:
                if exc.param in (None, "text"):
                    exc.param = f"{param}[{index}].text"
                raise
            if not scripted.pieces(script, turn.text):
                raise SynthesisFailed(
                    f"{param}[{index}].text: there is nothing to say in it.",
                    param=f"{param}[{index}].text",
                )
            characters += reading.billed_characters(turn.text, rules)
        if characters > MAX_TEXT_CHARACTERS:
            raise InvalidField(
                f"{param}: the turns' text as spoken is {characters:,} characters in all, "
                f"beyond the bound of {MAX_TEXT_CHARACTERS:,}.",
                param=param,
            )
        request = DialogueJob.model_validate(
            {
                **body.model_dump(exclude={"pronunciation_dictionary_locators", "inputs"}),
                "inputs": [{**turn.model_dump(), **engines[turn.voice_id]} for turn in body.inputs],
                "stream": stream,
                "rules": [asdict(rule) for rule in rules],
                "encoding": encoding,
            }
        )
        return request, characters

    request, characters = await run_in_threadpool(prepare)
    return request, rates.for_characters(Operation.TTS, characters)


async def synthesize_dialogue(
    db: Database, settings: Settings, principal: Principal, body: DialogueRequest
) -> DialogueResponse:
    request, credits = await _dialogue_request(db, principal, body, stream=False)
    job = await jobs.run(db, settings, principal, dialogue.KIND, request, credits_needed=credits)
    return DialogueResponse.of(job)


async def stream_dialogue(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: DialogueRequest,
    *,
    encoding: str | None = None,
    param: str = "inputs",
) -> SpeechStream:
    """The dialogue's audio as it is synthesized, turn by turn, sentence by sentence (as
    `stream`; `encoding` as there)."""
    request, credits = await _dialogue_request(
        db, principal, body, stream=True, encoding=encoding, param=param
    )
    content_type = (
        encodings.encoding(encoding).content_type if encoding else CONTENT_TYPES[body.format]
    )
    return await _streamed(db, settings, principal, dialogue.KIND, request, credits, content_type)
