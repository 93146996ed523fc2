"""create_app(): middleware, routers and error handlers."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import anyio
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse
from starlette.routing import Match, Route

from soundstage import __version__, app_tasks
from soundstage.accounts import endpoints as accounts_endpoints
from soundstage.accounts import service as accounts
from soundstage.agents import endpoints as agents_endpoints
from soundstage.compat.elevenlabs import auth as elevenlabs_auth
from soundstage.compat.elevenlabs import endpoints as elevenlabs_endpoints
from soundstage.compat.elevenlabs import errors as elevenlabs_errors
from soundstage.compat.elevenlabs.dialogue import endpoints as elevenlabs_dialogue_endpoints
from soundstage.compat.elevenlabs.dubbing import endpoints as elevenlabs_dubbing_endpoints
from soundstage.compat.elevenlabs.forced_alignment import (
    endpoints as elevenlabs_forced_alignment_endpoints,
)
from soundstage.compat.elevenlabs.history import endpoints as elevenlabs_history_endpoints
from soundstage.compat.elevenlabs.music import endpoints as elevenlabs_music_endpoints
from soundstage.compat.elevenlabs.pronunciation import (
    endpoints as elevenlabs_pronunciation_endpoints,
)
from soundstage.compat.elevenlabs.usage import endpoints as elevenlabs_usage_endpoints
from soundstage.compat.openai import endpoints as openai_endpoints
from soundstage.compat.openai import errors as openai_errors
from soundstage.config import Settings, get_settings
from soundstage.console import endpoints as console_endpoints
from soundstage.core import metrics, openapi
from soundstage.core.admission import AdmissionMiddleware
from soundstage.core.db import Database
from soundstage.core.errors import (
    AppError,
    MalformedRequest,
    MethodNotAllowed,
    RouteNotFound,
    field_error,
)
from soundstage.core.middleware import (
    API_PREFIX,
    GatewayMiddleware,
    PublicSurface,
    RequestContextMiddleware,
    authorization_header,
)
from soundstage.core.params import refuse_unknown_parameters
from soundstage.core.principal import Principal
from soundstage.core.ratelimit import RateLimiter
from soundstage.core.responses import error_response
from soundstage.core.routing import UnitOfWorkRoute
from soundstage.creative.daw import endpoints as daw_endpoints
from soundstage.creative.music import endpoints as music_endpoints
from soundstage.creative.sound import endpoints as sound_endpoints
from soundstage.credits import endpoints as credits_endpoints
from soundstage.guide import endpoints as guide_endpoints
from soundstage.history import endpoints as history_endpoints
from soundstage.idempotency import IdempotencyMiddleware, IdempotencyStore
from soundstage.jobs import endpoints as jobs_endpoints
from soundstage.mcp_server import endpoints as mcp_endpoints
from soundstage.ops import endpoints as ops_endpoints
from soundstage.ops import readiness
from soundstage.pronunciation import endpoints as pronunciation_endpoints
from soundstage.realtime.sending import SendTimeoutMiddleware
from soundstage.realtime.slots import SlotPool
from soundstage.speech.alignment import endpoints as alignment_endpoints
from soundstage.speech.dubbing import endpoints as dubbing_endpoints
from soundstage.speech.isolator import endpoints as isolator_endpoints
from soundstage.speech.stt import endpoints as stt_endpoints
from soundstage.speech.stt import realtime as stt_realtime
from soundstage.speech.stt import realtime_endpoints as stt_realtime_endpoints
from soundstage.speech.tts import dialogue_endpoints
from soundstage.speech.tts import endpoints as tts_endpoints
from soundstage.speech.tts import realtime_endpoints as tts_realtime_endpoints
from soundstage.speech.voice_changer import endpoints as voice_changer_endpoints
from soundstage.storage import endpoints as storage_endpoints
from soundstage.storage import signing
from soundstage.storage.backend import make_store
from soundstage.studios import endpoints as studios_endpoints
from soundstage.voices import endpoints as voices_endpoints
from soundstage.webhooks import endpoints as webhooks_endpoints
from soundstage.workforce.campaigns import endpoints as campaigns_endpoints
from soundstage.workforce.licensing import endpoints as licensing_endpoints
from soundstage.workforce.media import endpoints as licensed_media_endpoints
from soundstage.workforce.talent import endpoints as talent_endpoints

log = logging.getLogger("soundstage")

DESCRIPTION = """Voice, Audio, Studio and Talent Service API (v1).

Authenticate with `Authorization: Bearer sk_sandbox_…` (sandbox) or `sk_live_…` (production).
Errors share one envelope: `{"error": {"type", "code", "message", "param", "request_id"}}`.
Every code is listed on the documentation's Errors page (`soundstage errors --markdown` prints
the table). A missing object is 404 `<resource>_not_found` (`param` names the id field); a URL
no route serves is 404 `route_not_found`. Every 401 carries an RFC 6750
`WWW-Authenticate: Bearer realm="soundstage"` challenge, with `error="invalid_token"` when the
key sent was refused.

Parameters: a query parameter, JSON field or form part an endpoint does not take is 422
`parameter_unknown` (signed media URLs excepted: their query is the credential). Bodies are
strict: a string is never a number or a boolean, a number never a string (an integer is a valid
number). Query booleans are exactly `true` / `false`; query integers are decimal digits.
Lists answer `{"object": "list", "data": [...], "has_more": bool}` and take `limit`,
`starting_after`, `ending_before`. Every instant is RFC 3339 UTC with milliseconds:
`2026-11-23T10:00:00.000Z`.
"""


OPENAI_PREFIX = openai_endpoints.router.prefix
ELEVENLABS_PREFIX = elevenlabs_endpoints.router.prefix
# Routes that take files (multipart), capped at the upload size rather than the JSON body's;
# a key ending in "/" is a prefix (the route has a path parameter).
UPLOAD_PATHS = (
    "/api/v1/uploads",
    OPENAI_PREFIX + "/audio/transcriptions",
    OPENAI_PREFIX + "/audio/translations",
    ELEVENLABS_PREFIX + "/v1/speech-to-text",
    ELEVENLABS_PREFIX + "/v1/audio-isolation",
    ELEVENLABS_PREFIX + "/v1/speech-to-speech/",
    # The path the elevenlabs SDK (2.78) calls for speech_to_speech.convert.
    ELEVENLABS_PREFIX + "/v1/voice-changer/",
    elevenlabs_dubbing_endpoints.router.prefix,
    elevenlabs_forced_alignment_endpoints.router.prefix,
)


def public_surfaces(settings: Settings) -> dict[str, PublicSurface]:
    """The paths that take no key, each metered in its own bucket per client address (a
    page of players never spends the anonymous bucket); a signed URL only when valid."""
    signed = partial(signing.is_signed_path, settings)
    return {
        "/media": PublicSurface("media", admits=signed),
        "/demos": PublicSurface("media", admits=signed),
        "/previews": PublicSurface("previews"),
        "/console": PublicSurface("console"),
        "/guide": PublicSurface("console"),
    }


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app_tasks.install()
    metrics.set_enabled(settings.metrics.enabled)
    db = Database(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # The media store's clients are made before the first request (S3: a second of CPU),
        # so neither the first download nor the first /readyz pays for them.
        await asyncio.to_thread(make_store, settings)
        # As many threads for blocking work as database connections: a unit of work begins
        # and ends on one thread (core.routing), so no thread waits for a connection.
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.database.pool_size
        watching = readiness.watch_this_loop()
        async with mcp.serving():
            yield
        watching.cancel()
        realtime_pool.close()
        db.dispose()

    app = FastAPI(
        title="Soundstage API",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        # FastAPI's OpenTelemetry hooks off: the service's metrics are its own (/metrics), and
        # the hooks' provider checks cost every request (bench/api_overhead.py).
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
        # Every route, before its own parameters: a query parameter it does not take is 422.
        dependencies=[Depends(refuse_unknown_parameters)],
    )
    # Routes added to the app itself run their unit of work on one thread too.
    app.router.route_class = UnitOfWorkRoute
    app.state.settings = settings
    app.state.db = db
    # One limiter for requests and realtime sessions' openings (realtime.gate).
    app.state.limiter = limiter = RateLimiter(settings)
    # Slot processes of realtime sessions: started by the first session that needs one; the
    # partials of realtime transcriptions decoded together in the pool's batch process.
    realtime_pool = SlotPool(settings, batch=stt_realtime.decode_partials)
    app.state.realtime_pool = realtime_pool

    # The native API's routers, each carrying its own prefix and included at the app itself
    # (a router included in a router is matched twice per request by FastAPI: once to choose,
    # once to handle).
    app.include_router(accounts_endpoints.router)
    app.include_router(credits_endpoints.router)
    app.include_router(webhooks_endpoints.router)
    app.include_router(jobs_endpoints.router)
    app.include_router(history_endpoints.router)
    app.include_router(storage_endpoints.router)
    app.include_router(voices_endpoints.router)
    app.include_router(pronunciation_endpoints.router)
    app.include_router(tts_endpoints.router)
    app.include_router(tts_realtime_endpoints.router)
    app.include_router(dialogue_endpoints.router)
    app.include_router(stt_endpoints.router)
    app.include_router(stt_realtime_endpoints.router)
    app.include_router(alignment_endpoints.router)
    app.include_router(isolator_endpoints.router)
    app.include_router(voice_changer_endpoints.router)
    app.include_router(daw_endpoints.router)
    app.include_router(music_endpoints.router)
    app.include_router(studios_endpoints.router)
    app.include_router(talent_endpoints.router)
    app.include_router(campaigns_endpoints.router)
    app.include_router(licensing_endpoints.router)
    app.include_router(licensed_media_endpoints.router)
    app.include_router(agents_endpoints.router)
    app.include_router(dubbing_endpoints.router)
    app.include_router(sound_endpoints.router)

    # Other APIs' dialects over the same services (soundstage.compat).
    app.include_router(openai_endpoints.router)
    app.include_router(elevenlabs_endpoints.router)
    app.include_router(elevenlabs_dialogue_endpoints.router)
    app.include_router(elevenlabs_forced_alignment_endpoints.router)
    app.include_router(elevenlabs_history_endpoints.router)
    app.include_router(elevenlabs_pronunciation_endpoints.router)
    app.include_router(elevenlabs_dubbing_endpoints.router)
    app.include_router(elevenlabs_music_endpoints.router)
    app.include_router(elevenlabs_usage_endpoints.router)
    app.include_router(storage_endpoints.public_router)
    app.include_router(voices_endpoints.public_router)
    app.include_router(talent_endpoints.public_router)
    app.include_router(ops_endpoints.router)
    app.include_router(console_endpoints.router)
    app.include_router(guide_endpoints.router)
    # The Model Context Protocol (streamable HTTP) for LLM agents, over the same services.
    mcp = mcp_endpoints.McpEndpoint(settings, db)
    # An ASGI app of its own (the SDK's transport), every method, not in the OpenAPI document.
    app.router.routes.append(Route(mcp_endpoints.MCP_PATH, mcp, include_in_schema=False))

    _install_error_handlers(app)
    openapi.install(
        app,
        error_envelopes={
            OPENAI_PREFIX: openai_errors.OpenAIErrorEnvelope,
            ELEVENLABS_PREFIX: elevenlabs_errors.ElevenLabsErrorEnvelope,
        },
    )

    database_url = settings.resolved_database_url
    key_ttl = settings.accounts.key_cache_seconds

    async def authenticate(header: str | None) -> Principal:
        recent = accounts.authenticate_recent(database_url, header)
        if recent is not None:
            return recent

        def lookup() -> Principal:
            with db.read_session() as session:
                return accounts.authenticate(session, header)

        principal = await run_in_threadpool(lookup)
        if header is not None:
            accounts.remember(database_url, header, principal, key_ttl)
        return principal

    # Added innermost first: the request passes context -> admission -> gateway ->
    # idempotency -> routes. A WebSocket's sends have a deadline (a client that stops
    # reading frees its slot).
    app.add_middleware(SendTimeoutMiddleware, seconds=settings.realtime.send_timeout_seconds)
    app.add_middleware(
        IdempotencyMiddleware, store=IdempotencyStore(db, settings), settings=settings
    )
    app.add_middleware(
        GatewayMiddleware,
        authenticate=authenticate,
        limiter=limiter,
        max_bytes=settings.max_request_bytes,
        large_bodies={path: settings.media.upload_max_bytes for path in UPLOAD_PATHS},
        authenticated={
            API_PREFIX: authorization_header,
            OPENAI_PREFIX + "/": authorization_header,
            ELEVENLABS_PREFIX + "/": elevenlabs_auth.api_key_header,
            mcp_endpoints.MCP_PATH: authorization_header,
        },
        public=public_surfaces(settings),
        probes=ops_endpoints.PROBE_PATHS,
    )
    app.add_middleware(
        AdmissionMiddleware, settings=settings.server, exempt=ops_endpoints.PROBE_PATHS
    )
    app.add_middleware(
        RequestContextMiddleware,
        error_shapes={
            OPENAI_PREFIX: openai_errors.error_body,
            ELEVENLABS_PREFIX: elevenlabs_errors.error_body,
        },
        # The header OpenAI answers with, which its SDK reads (`_request_id`).
        id_headers={OPENAI_PREFIX: "X-Request-Id"},
        retry_after_seconds=settings.server.retry_after_seconds,
    )
    return app


def create_served_app() -> FastAPI:
    """The app as `soundstage serve` runs it (uvicorn's factory): `create_app`, then every
    object made so far (modules, routes, schemas, settings: never garbage) is moved out of the
    garbage collector's reach, so that a full collection walks only what requests make. At
    1,000 connections, full collections of the startup heap took 8% of the process's time,
    up to 165 ms each, every request waiting behind them (bench/load.py)."""
    app = create_app()
    gc.collect()
    gc.freeze()
    return app


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def on_app_error(request: Request, exc: AppError) -> JSONResponse:
        return error_response(exc, request.scope)

    @app.exception_handler(RequestValidationError)
    async def on_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        content_type = request.headers.get("content-type", "application/json")
        whole_body = any(tuple(e.get("loc", ())) == ("body",) for e in exc.errors())
        if whole_body and "json" not in content_type:
            error: AppError = MalformedRequest(
                "Send the body as JSON with `Content-Type: application/json`."
            )
        else:
            error = validation_error(exc.errors())
        return error_response(error, request.scope)

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        error: AppError
        if isinstance(exc.__cause__, AppError):
            # Raised while the body was read (over the size cap): FastAPI wraps it in a 400.
            error = exc.__cause__
        elif exc.status_code == 404:
            error = RouteNotFound(
                f"Unrecognized request URL ({request.method} {request.url.path})."
            )
        elif exc.status_code == 405:
            allow = ", ".join(allowed_methods(request))
            error = MethodNotAllowed(
                f"{request.method} is not allowed on {request.url.path}; allowed: {allow}.",
                headers={"Allow": allow},
            )
        else:  # Starlette's other HTTP errors are 400s: a body or form it cannot parse
            error = MalformedRequest(str(exc.detail))
        return error_response(error, request.scope)


HTTP_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def allowed_methods(request: Request) -> list[str]:
    """Every method the request's path answers (Starlette's 405 names only those of the
    first route matching the path): each method tried against the routes."""
    base = {
        "type": "http",
        "path": request.scope["path"],
        "root_path": request.scope.get("root_path", ""),
        "headers": request.scope.get("headers", []),
        "query_string": b"",
    }
    routes = request.app.router.routes
    return [
        method
        for method in HTTP_METHODS
        if any(route.matches({**base, "method": method})[0] == Match.FULL for route in routes)
    ]


def validation_error(errors: Any) -> AppError:
    """The first pydantic error, as one 422 naming its field (or a 400 for a bad body)."""
    first = errors[0]
    loc = tuple(first.get("loc", ()))
    kind = first.get("type", "")
    if kind == "json_invalid":
        return MalformedRequest("The request body is not valid JSON.")
    if loc[:1] == ("body",) and len(loc) == 1:
        return MalformedRequest("The request body must be a JSON object.")
    if loc[:1] == ("header",) and len(loc) > 1:
        return field_error(first, (str(loc[1]).title(),))
    return field_error(first, loc[1:] if loc[:1] in (("body",), ("query",), ("path",)) else ())
