"""HTTP endpoints of the ElevenLabs-compatible API, all under `/elevenlabs`: what the official
`elevenlabs` SDK calls with `base_url="http://host:8000/elevenlabs"`. Each declares every
query parameter and body field the SDK (2.78) sends; those it does not act on are accepted
and ignored, as their descriptions say."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Path, Query, UploadFile, WebSocket
from fastapi.responses import FileResponse, Response, StreamingResponse
from pydantic import Field
from starlette.websockets import WebSocketDisconnect

from soundstage.compat.elevenlabs import catalog, realtime_stt, realtime_tts, service
from soundstage.compat.elevenlabs.auth import api_key_header
from soundstage.compat.elevenlabs.params import (
    ANSWERED_WHOLE,
    EnableLogging,
    IgnoredBool,
    Latency,
    StreamFormatQuery,
    WholeFormatQuery,
    content_types,
)
from soundstage.compat.elevenlabs.schemas import (
    DEFAULT_FORMAT,
    MAX_ID,
    MAX_SEED,
    ElevenLabsAudioWithTimestamps,
    ElevenLabsModel,
    ElevenLabsSoundGenerationBody,
    ElevenLabsSpeechToTextChunk,
    ElevenLabsSpeechToTextForm,
    ElevenLabsSubscription,
    ElevenLabsTextToSpeechBody,
    ElevenLabsUser,
    ElevenLabsVoice,
    ElevenLabsVoicesResponse,
    ElevenLabsVoicesV2Response,
    FormBool,
    FormInt,
    FormModel,
    StreamFormat,
    WholeFormat,
)
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.deps import DatabaseDep, PrincipalDep, SessionDep, SettingsDep
from soundstage.core.errors import AppError
from soundstage.core.openapi import errors
from soundstage.core.params import QueryBool, QueryInt
from soundstage.core.routing import UnitOfWorkRoute
from soundstage.realtime import gate
from soundstage.realtime.messages import read_opening
from soundstage.speech.stt import realtime as stt_realtime
from soundstage.speech.tts import realtime as tts_realtime

TAG = "ElevenLabs compatible"
JOB_ID_HEADER = "Soundstage-Job-Id"

router = APIRouter(prefix="/elevenlabs", tags=[TAG], route_class=UnitOfWorkRoute)

VoiceId = Annotated[str, Path(min_length=1, max_length=MAX_ID)]


def _speech_response(speech: service.Speech) -> StreamingResponse:
    return StreamingResponse(
        speech.chunks,
        media_type=speech.content_type,
        headers={JOB_ID_HEADER: speech.job_id, "Cache-Control": "no-store"},
    )


def _file_response(answer: service.AudioFile) -> Response:
    return answer.response


@router.post(
    "/v1/text-to-speech/{voice_id}",
    response_class=StreamingResponse,
    responses={200: {"content": content_types(WholeFormat)}, **errors(402, 404, 409, 504)},
)
async def text_to_speech(
    voice_id: VoiceId,
    body: ElevenLabsTextToSpeechBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: WholeFormatQuery = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
    optimize_streaming_latency: Latency = None,
) -> StreamingResponse:
    """The speech in `output_format`, sent as it is synthesized (WAV whole, with its sizes).
    1 credit a character as spoken (aliases in place), charged as the audio is sent."""
    speech = await service.convert(db, settings, principal, voice_id, body, output_format)
    return _speech_response(speech)


@router.post(
    "/v1/text-to-speech/{voice_id}/stream",
    response_class=StreamingResponse,
    responses={200: {"content": content_types(StreamFormat)}, **errors(402, 404, 409, 504)},
)
async def text_to_speech_stream(
    voice_id: VoiceId,
    body: ElevenLabsTextToSpeechBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: StreamFormatQuery = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
    optimize_streaming_latency: Latency = None,
) -> StreamingResponse:
    """The speech streamed as it is synthesized (chunked), the native stream's path."""
    speech = await service.convert(db, settings, principal, voice_id, body, output_format)
    return _speech_response(speech)


@router.post(
    "/v1/text-to-speech/{voice_id}/with-timestamps",
    response_model=ElevenLabsAudioWithTimestamps,
    responses=errors(402, 404, 409, 504),
)
async def text_to_speech_with_timestamps(
    voice_id: VoiceId,
    body: ElevenLabsTextToSpeechBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: WholeFormatQuery = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
    optimize_streaming_latency: Latency = None,
) -> ElevenLabsAudioWithTimestamps:
    """The audio (base64) and when each character of the text is spoken: the native job's
    word times spread over the characters (see `alignment`)."""
    return await service.convert_with_timestamps(
        db, settings, principal, voice_id, body, output_format
    )


@router.post(
    "/v1/text-to-speech/{voice_id}/stream/with-timestamps",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}}, **errors(402, 404, 409, 504)},
)
async def text_to_speech_stream_with_timestamps(
    voice_id: VoiceId,
    body: ElevenLabsTextToSpeechBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: StreamFormatQuery = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
    optimize_streaming_latency: Latency = None,
) -> StreamingResponse:
    """One JSON object a line, `{audio_base64, alignment, normalized_alignment}`: the audio
    as it is made with `alignment` null, then a last line with empty audio and the alignment
    of the whole text (the words are aligned once the audio is complete)."""
    speech = await service.stream_with_timestamps(
        db, settings, principal, voice_id, body, output_format
    )
    return _speech_response(speech)


@router.post(
    "/v1/speech-to-text",
    response_model=ElevenLabsSpeechToTextChunk,
    response_model_exclude_none=True,
    responses=errors(402, 409, 413, 504),
)
async def speech_to_text(
    form: Annotated[ElevenLabsSpeechToTextForm, Form()],
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    file: Annotated[UploadFile | None, File(description="The audio or video file.")] = None,
    enable_logging: EnableLogging = None,
) -> ElevenLabsSpeechToTextChunk:
    """The native speech-to-text job on the upload: 250 credits a minute of audio (per
    started second), charged when the transcript is made."""
    return await service.transcribe(db, settings, principal, form, file)


@router.post(
    "/v1/sound-generation",
    response_class=FileResponse,
    responses={200: {"content": content_types(WholeFormat)}, **errors(402, 409, 504)},
)
async def sound_generation(
    body: ElevenLabsSoundGenerationBody,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: Annotated[WholeFormat, Query(description=ANSWERED_WHOLE)] = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
) -> Response:
    """The native sound-effect generator (stereo where the codec holds it), made in
    `output_format` at its exact rate and bit rate; 150 credits a generation."""
    return _file_response(
        await service.generate_sound(db, settings, principal, body, output_format)
    )


class AudioIsolationForm(FormModel):
    file_format: str | None = Field(
        default=None, max_length=16, description="Accepted, ignored: the file is probed."
    )


@router.post(
    "/v1/audio-isolation",
    response_class=FileResponse,
    responses={200: {"content": {"audio/mpeg": {}}}, **errors(402, 409, 413, 504)},
)
# The SDK's `audio_isolation.stream`: the same operation, its answer sent as it is read.
@router.post(
    "/v1/audio-isolation/stream",
    response_class=FileResponse,
    responses={200: {"content": {"audio/mpeg": {}}}, **errors(402, 409, 413, 504)},
)
async def audio_isolation(
    audio: Annotated[UploadFile, File(description="The mixed audio.")],
    form: Annotated[AudioIsolationForm, Form()],
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> Response:
    """The voice alone (native isolator), as MP3; 750 credits a minute of audio."""
    return _file_response(await service.isolate(db, settings, principal, audio))


class SpeechToSpeechForm(FormModel):
    model_id: str | None = Field(default=None, max_length=MAX_ID, description="Ignored.")
    voice_settings: str | None = Field(default=None, max_length=4096, description="Ignored.")
    seed: FormInt | None = Field(default=None, ge=0, le=MAX_SEED, description="Ignored.")
    remove_background_noise: FormBool = False
    file_format: str | None = Field(default=None, max_length=16, description="Ignored.")


async def _speech_to_speech(
    voice_id: str,
    audio: UploadFile,
    form: SpeechToSpeechForm,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: str,
) -> Response:
    answer = await service.change_voice(
        db,
        settings,
        principal,
        voice_id,
        audio,
        remove_background_noise=form.remove_background_noise,
        output_format=output_format,
    )
    return _file_response(answer)


@router.post(
    "/v1/speech-to-speech/{voice_id}",
    response_class=FileResponse,
    responses={200: {"content": content_types(WholeFormat)}, **errors(402, 404, 409, 413, 504)},
)
# `speech_to_speech.stream` (ElevenLabs' documented path, and the one the SDK 2.78 calls):
# the same operation, its answer sent as it is read.
@router.post(
    "/v1/speech-to-speech/{voice_id}/stream",
    response_class=FileResponse,
    responses={200: {"content": content_types(WholeFormat)}, **errors(402, 404, 409, 413, 504)},
)
@router.post(
    "/v1/voice-changer/{voice_id}/stream",
    response_class=FileResponse,
    responses={200: {"content": content_types(WholeFormat)}, **errors(402, 404, 409, 413, 504)},
)
# The path the SDK 2.78 calls for `speech_to_speech.convert`: the same operation.
@router.post(
    "/v1/voice-changer/{voice_id}",
    response_class=FileResponse,
    responses={200: {"content": content_types(WholeFormat)}, **errors(402, 404, 409, 413, 504)},
)
async def speech_to_speech(
    voice_id: VoiceId,
    audio: Annotated[UploadFile, File(description="The speech to re-voice.")],
    form: Annotated[SpeechToSpeechForm, Form()],
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    output_format: Annotated[WholeFormat, Query(description=ANSWERED_WHOLE)] = DEFAULT_FORMAT,
    enable_logging: EnableLogging = None,
    optimize_streaming_latency: Latency = None,
) -> Response:
    """The same words and timing in a catalog voice (native voice changer), made in
    `output_format` at its exact rate and bit rate; 1,000 credits a minute of input. The
    voice is a catalog voice id or one of ElevenLabs' premade ids (docs/elevenlabs.md). Served at
    /v1/speech-to-speech/{voice_id} and at /v1/voice-changer/{voice_id}, where the SDK 2.78
    sends `speech_to_speech.convert`, each also with /stream (`speech_to_speech.stream`)."""
    return await _speech_to_speech(voice_id, audio, form, db, settings, principal, output_format)


@router.get("/v1/voices", response_model=ElevenLabsVoicesResponse)
def list_voices(
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    show_legacy: IgnoredBool = None,
) -> ElevenLabsVoicesResponse:
    """Every voice of the catalog, newest first (`show_legacy` accepted, ignored)."""
    return catalog.list_voices(session, settings)


@router.get("/v1/voices/{voice_id}", response_model=ElevenLabsVoice, responses=errors(404))
def get_voice(
    voice_id: VoiceId,
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    with_settings: Annotated[QueryBool, Query()] = True,
) -> ElevenLabsVoice:
    return catalog.get_voice(session, settings, voice_id, with_settings=with_settings)


Ignored = Annotated[str | None, Query(max_length=64, description="Accepted, ignored.")]
Names = Annotated[list[str] | None, Query(max_length=100)]


@router.get("/v2/voices", response_model=ElevenLabsVoicesV2Response, responses=errors(422))
def search_voices(
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    search: Annotated[str | None, Query(max_length=200)] = None,
    page_size: Annotated[QueryInt, Query(ge=1, le=100)] = 10,
    next_page_token: Annotated[str | None, Query(max_length=MAX_ID)] = None,
    gender: Annotated[str | None, Query(max_length=16)] = None,
    language: Names = None,
    voice_ids: Names = None,
    sort: Ignored = None,
    sort_direction: Ignored = None,
    voice_type: Ignored = None,
    category: Ignored = None,
    fine_tuning_state: Ignored = None,
    collection_id: Ignored = None,
    age: Ignored = None,
    accent: Ignored = None,
    use_cases: Names = None,
    min_notice_period_days: Annotated[QueryInt | None, Query(ge=0)] = None,
    include_custom_rates: IgnoredBool = None,
    include_live_moderated: IgnoredBool = None,
    high_quality: IgnoredBool = None,
    include_total_count: IgnoredBool = None,
) -> ElevenLabsVoicesV2Response:
    """The voices matching `search` (name, description, accent), `gender`, `language` and
    `voice_ids`, newest first, `page_size` at a time (`next_page_token` from the previous
    page). The other filters are accepted and ignored."""
    return catalog.search_voices(
        session,
        settings,
        search=search,
        page_size=page_size,
        next_page_token=next_page_token,
        gender=gender,
        languages=language or [],
        voice_ids=voice_ids or [],
    )


@router.get("/v1/models", response_model=list[ElevenLabsModel])
def list_models(session: SessionDep, principal: PrincipalDep) -> list[ElevenLabsModel]:
    """One text-to-speech and one speech-to-speech model: the voice decides the engine, so
    any `model_id` is accepted where one is taken."""
    return catalog.models(session)


@router.get("/v1/user", response_model=ElevenLabsUser)
def get_user(session: SessionDep, principal: PrincipalDep) -> ElevenLabsUser:
    """The key's account as ElevenLabs' user (and workspace), with its subscription."""
    return catalog.user(session, principal)


@router.get("/v1/user/subscription", response_model=ElevenLabsSubscription)
def get_subscription(session: SessionDep, principal: PrincipalDep) -> ElevenLabsSubscription:
    """The key's credit balance as ElevenLabs' character quota: `character_limit` is the
    balance, `character_count` 0."""
    return catalog.subscription(session, principal)


@router.websocket("/v1/speech-to-text/realtime")
async def speech_to_text_realtime(websocket: WebSocket) -> None:
    """Realtime transcription as ElevenLabs' SDKs speak it (docs/elevenlabs.md): the native
    session (GET /api/v1/speech/stt/realtime: same credits, limits and slots) in ElevenLabs'
    messages. The key in `xi-api-key` (or `Authorization`),
    or a native realtime token (POST /api/v1/speech/stt/realtime/tokens) as `token`."""
    try:
        principal = await gate.authenticate(websocket, stt_realtime.PURPOSE, api_key_header)
        settings = realtime_stt.session_settings(websocket.query_params)
        await websocket.accept()
        dialect = realtime_stt.ElevenLabsDialect(settings)
        await stt_realtime.transcribe(websocket, principal, settings.opening, dialect)
    except WebSocketDisconnect:
        pass
    except AppError as exc:
        await gate.refuse(websocket, exc, realtime_stt.ScribeError.of)


async def _text_to_speech_realtime(
    websocket: WebSocket, voice_id: str, db: Database, settings: Settings, *, multi: bool
) -> None:
    """The native realtime text-to-speech session in ElevenLabs' stream-input dialect (or
    multi-stream-input's): the key from the headers, else from the first message."""
    try:
        encoding = realtime_tts.output_format(websocket.query_params)
        auto = realtime_tts.auto_mode(websocket.query_params)
        timeout = settings.realtime.idle_timeout_seconds
        if api_key_header(websocket.headers) is not None or "token" in websocket.query_params:
            principal = await gate.authenticate(websocket, tts_realtime.PURPOSE, api_key_header)
            await websocket.accept()
            first = await read_opening(websocket, realtime_tts.ClientMessage, timeout)
        else:
            await websocket.accept()
            first = await read_opening(websocket, realtime_tts.ClientMessage, timeout)
            key = first.api_key
            principal = await gate.authenticate(websocket, tts_realtime.PURPOSE, lambda _: key)
        opening = realtime_tts.native_opening(voice_id, first)
        dialect: tts_realtime.Dialect = (
            realtime_tts.MultiStreamDialect(first, auto=auto)
            if multi
            else realtime_tts.StreamInputDialect(first, auto=auto)
        )
        await tts_realtime.speak(
            websocket, principal, opening, db, settings, dialect, encoding=encoding
        )
    except WebSocketDisconnect:
        pass
    except AppError as exc:
        await gate.refuse(websocket, exc, realtime_tts.SocketError.of)


@router.websocket("/v1/text-to-speech/{voice_id}/stream-input")
async def text_to_speech_stream_input(
    websocket: WebSocket, voice_id: str, db: DatabaseDep, settings: SettingsDep
) -> None:
    """Text streamed in, speech streamed out, as ElevenLabs' SDKs speak it (docs/elevenlabs.md):
    the native session (GET /api/v1/speech/tts/realtime: same credits, limits and slots) in
    ElevenLabs' messages. The key in `xi-api-key` (or
    `Authorization`), or in the first message (`xi_api_key`, `authorization`)."""
    await _text_to_speech_realtime(websocket, voice_id, db, settings, multi=False)


@router.websocket("/v1/text-to-speech/{voice_id}/multi-stream-input")
async def text_to_speech_multi_stream_input(
    websocket: WebSocket, voice_id: str, db: DatabaseDep, settings: SettingsDep
) -> None:
    """As stream-input, with up to 5 contexts (`context_id`) on one socket, each its own
    stream of text and audio (`contextId` on each message back)."""
    await _text_to_speech_realtime(websocket, voice_id, db, settings, multi=True)
