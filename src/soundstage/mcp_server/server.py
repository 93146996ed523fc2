"""The MCP server (the `mcp` package's `MCPServer`): its tools, each validating its arguments
with the request model of its HTTP endpoint, and its resources, the voice catalog.

A tool's input schema is its request model's, and its arguments are validated by that model
itself (strict types, unknown fields refused, its own validators), so a bound is the HTTP
API's bound and a violation is the HTTP API's error. Its output schema is the endpoint's
answer model."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from mcp.server.context import ServerMiddleware
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import BaseModel, create_model

from soundstage import __version__
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.schemas import RequestModel
from soundstage.creative.music.schemas import MusicRequest
from soundstage.creative.sound.schemas import SoundRequest
from soundstage.mcp_server import errors
from soundstage.mcp_server.schemas import NoArguments, StudioSearch, TalentSearch, VoiceSearch
from soundstage.mcp_server.tools import Tools
from soundstage.speech.isolator.schemas import IsolationRequest
from soundstage.speech.stt.schemas import SttRequest
from soundstage.speech.tts.schemas import TtsRequest

NAME = "soundstage"
INSTRUCTIONS = (
    "Soundstage: text to speech, speech to text, voice isolation, sound effects and music, "
    "the voice catalog, voice talent and recording studios, as the account of the API key. "
    "Audio inputs are http(s) URLs; audio outputs are signed URLs that expire 24 h after "
    "issue. Paid tools charge the account's credits (get_credits shows the balance); a "
    "failure is a tool error carrying the API's error code."
)

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
# Makes media and charges credits; each call makes new media (not idempotent).
MAKES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
# The same, from audio fetched from a URL the caller gives.
FETCHES = MAKES.model_copy(update={"open_world_hint": True})


class _WholeRequest(ArgModelBase):
    """A tool's arguments read as the request model they are (the SDK's argument models hand
    each field to the tool as a keyword): the tool takes the validated model whole."""

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"body": self}


def request_tool(
    run: Callable[[Any], Awaitable[BaseModel]],
    request: type[RequestModel],
    *,
    description: str,
    annotations: ToolAnnotations,
    exclude_none: bool = False,
) -> Tool:
    """The tool `run` (named after it) taking `request`'s fields as its arguments. Its answer
    is structured content (and the same JSON as text); `exclude_none` leaves out what is
    absent, as its HTTP endpoint does."""
    described = Tool.from_function(
        run, description=description, annotations=annotations, structured_output=True
    )
    arguments = cast(
        type[ArgModelBase], create_model(request.__name__, __base__=(request, _WholeRequest))
    )

    async def answer(body: RequestModel) -> CallToolResult:
        data = (await run(body)).model_dump(mode="json", exclude_none=exclude_none)
        return CallToolResult(content=[errors.as_text(data)], structured_content=data)

    return described.model_copy(
        update={
            "fn": answer,
            "parameters": arguments.model_json_schema(by_alias=True),
            "fn_metadata": described.fn_metadata.model_copy(update={"arg_model": arguments}),
        }
    )


class SoundstageMCP(MCPServer[dict[str, Any]]):
    """MCPServer whose tool failures are the API's errors: a tool error result with the
    API's code and message, never a protocol error (an unknown tool name excepted: the SDK's
    own error)."""

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        context: Context[dict[str, Any], Any] | None = None,
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if exc.__cause__ is None:  # the SDK's own (an unknown tool): its message
                raise
            return errors.tool_error(errors.api_error(exc))


def build_server(db: Database, settings: Settings, caller: ServerMiddleware[Any]) -> SoundstageMCP:
    """The MCP server over `db` and `settings`, its requests made as `caller` says
    (mcp_server.callers: the gateway's principal over HTTP, the process's key over stdio)."""
    tools = Tools(db, settings)
    server = SoundstageMCP(
        NAME,
        title="Soundstage",
        version=__version__,
        instructions=INSTRUCTIONS,
        # The process's logging is its own (core.logs): the SDK configures the root logger
        # only when nothing did, and then at this level.
        log_level="WARNING",
        tools=[
            request_tool(
                tools.text_to_speech,
                TtsRequest,
                description="Speak a text (at most 5,000 characters, plain or SSML) with a "
                "catalog voice (list_voices). Charged 1 credit per character, when the audio "
                "is ready. Answers the signed `output_url` of the audio, its `duration_ms`, "
                "and with `timestamps: true` each word's times.",
                annotations=MAKES,
                exclude_none=True,
            ),
            request_tool(
                tools.speech_to_text,
                SttRequest,
                description="Transcribe the speech of an audio file at `audio_url` (MP3, "
                "WAV, FLAC, M4A...), punctuated; with `timestamps: true` each word with its "
                "times, with `diarize: true` the speakers. Charged 250 credits per minute of "
                "audio (per started second), when the transcript is ready.",
                annotations=FETCHES,
                exclude_none=True,
            ),
            request_tool(
                tools.isolate_voice,
                IsolationRequest,
                description="Separate the voice of the audio at `audio_url` from music and "
                "noise: the signed `vocals_url` (and `background_url` with "
                "`return_background: true`). Charged 750 credits per minute of audio (per "
                "started second), when the stems are ready.",
                annotations=FETCHES,
                exclude_none=True,
            ),
            request_tool(
                tools.generate_sound_effect,
                SoundRequest,
                description="Make a sound effect from a text prompt ('rain on a tin roof with "
                "distant thunder'), exactly `duration_seconds` (1 to 30) long. Charged 150 "
                "credits a generation, when the audio is ready. Answers its signed "
                "`output_url` and what the prompt was understood as.",
                annotations=MAKES,
            ),
            request_tool(
                tools.generate_music,
                MusicRequest,
                description="Compose and render a piece from a text prompt (genre, mood, "
                "tempo, key, instruments), `duration_seconds` (10 to 300) long, optionally "
                "sung (`instrumental: false`). Charged 750 credits per minute of output (per "
                "started second), when the audio is ready. Answers its signed `output_url`, "
                "`midi_url`, tempo, key and sections.",
                annotations=MAKES,
                exclude_none=True,
            ),
            request_tool(
                tools.list_voices,
                VoiceSearch,
                description="The catalog's voices (their `voice_id` for text_to_speech), of a "
                "language or gender if given, the best-rated first; paged (`limit`, "
                "`starting_after`). Free.",
                annotations=READS,
            ),
            request_tool(
                tools.search_talent,
                TalentSearch,
                description="Search voice talent by free text and role, genre, language, "
                "gender, accent, age range; ranked, paged. Requires a verified buyer account "
                "(the error `buyer_not_verified` otherwise). Free.",
                annotations=READS,
            ),
            request_tool(
                tools.search_studios,
                StudioSearch,
                description="Find recording studios by city, state, type of work and booth "
                "capacity, best rated first; paged. Free.",
                annotations=READS,
            ),
            request_tool(
                tools.get_credits,
                NoArguments,
                description="The account's credit balance in the key's environment: "
                "`balance` (available to spend) and `reserved` (held by running jobs).",
                annotations=READS,
            ),
        ],
        middleware=[caller],
    )
    server.resource(
        "voices://catalog",
        name="voice_catalog",
        title="Voice catalog",
        description="Every voice of the catalog (as list_voices answers them), language by "
        "language, the best-rated first.",
        mime_type="application/json",
    )(tools.voice_catalog)
    server.resource(
        "voices://{voice_id}",
        name="voice",
        title="Voice",
        description="One voice of the catalog by its `voice_id`.",
        mime_type="application/json",
    )(tools.voice)
    return server
