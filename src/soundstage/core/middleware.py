"""ASGI middleware: request ids and last-resort errors; the API gateway (authentication,
rate limits per account and environment or per client address, request size cap)."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from urllib.parse import unquote

from fastapi.routing import iter_route_contexts
from starlette.datastructures import Headers, MutableHeaders
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from soundstage.core import metrics
from soundstage.core.db import is_overloaded
from soundstage.core.errors import (
    AppError,
    AuthenticationError,
    InternalError,
    MalformedRequest,
    Overloaded,
    PayloadTooLarge,
    StorageFull,
    is_disk_full,
)
from soundstage.core.ids import request_token
from soundstage.core.logs import request_id_var
from soundstage.core.principal import Principal
from soundstage.core.ratelimit import Decision, RateLimiter
from soundstage.core.responses import (
    ErrorShape,
    error_response,
    error_shape_for,
    for_surface,
    use_error_shape,
)

log = logging.getLogger("soundstage")

API_PREFIX = "/api/"


def authorization_header(headers: Headers) -> str | None:
    """The native API's credential: `Authorization: Bearer sk_…`."""
    return headers.get("authorization")


# Reads the credential of a request as an `Authorization` header value (None: none sent).
KeyReader = Callable[[Headers], str | None]


class RequestContextMiddleware:
    """Outermost: gives every request an id, puts `Request-Id` on every response, picks the
    error shape of the path's surface (`error_shapes`, by prefix; the native envelope
    elsewhere), and turns an unexpected exception into a 500 in that shape (a 500 is a bug:
    it is logged). Records the request's metrics (by route template, never the raw path) and
    puts its id on every log record written while it runs (core.logs). A surface whose
    clients read the id under another name (`id_headers`, by prefix) gets it there too."""

    def __init__(
        self,
        app: ASGIApp,
        error_shapes: Mapping[str, ErrorShape] | None = None,
        *,
        id_headers: Mapping[str, str] | None = None,
        retry_after_seconds: int = 1,
    ) -> None:
        self.app = app
        self.error_shapes = dict(error_shapes or {})
        self.id_headers = dict(id_headers or {})
        # What a request the database could not serve in time is told (503 `overloaded`).
        self.retry_after_seconds = retry_after_seconds
        self.templates = RouteTemplates()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = "req_" + request_token(20)
        scope.setdefault("state", {})["request_id"] = request_id
        use_error_shape(scope, error_shape_for(scope["path"], self.error_shapes))
        id_header = for_surface(scope["path"], self.id_headers)
        status = 500
        began = time.perf_counter()
        token = request_id_var.set(request_id)

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = MutableHeaders(scope=message)
                headers["Request-Id"] = request_id
                if id_header is not None:
                    headers[id_header] = request_id
            await send(message)

        try:
            await self._answer(scope, receive, send_with_id, request_id)
        finally:
            metrics.observe_request(
                self.templates.of(scope), scope["method"], status, time.perf_counter() - began
            )
            request_id_var.reset(token)

    async def _answer(self, scope: Scope, receive: Receive, send: Send, request_id: str) -> None:
        started = False

        async def send_started(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, send_started)
        except Exception as exc:
            error: AppError
            if is_disk_full(exc):
                log.error("disk full in %s %s (%s)", scope["method"], scope["path"], request_id)
                error = StorageFull()
            elif is_overloaded(exc):
                log.warning(
                    "database busy in %s %s (%s): %s",
                    scope["method"],
                    scope["path"],
                    request_id,
                    exc,
                )
                error = Overloaded(
                    "The database is at capacity; retry after the Retry-After delay.",
                    retry_after_seconds=self.retry_after_seconds,
                )
            else:
                log.exception(
                    "unhandled error in %s %s (%s)", scope["method"], scope["path"], request_id
                )
                error = InternalError(
                    f"An internal error occurred; quote {request_id} when reporting it."
                )
            if started:
                raise
            await error_response(error, scope)(scope, receive, send)


# The route label of a request that matched no route (404s, scanners): one series for all.
UNMATCHED_ROUTE = "unmatched"


class RouteTemplates:
    """The path template of a request's route (`/api/v1/jobs/{job_id}`), for metrics: never
    the raw path, whose ids would make a series each. Matched on the path alone, so that a
    request answered before routing (401, 429, 413) is counted under its route too. The
    table is read from the app on first use (every router is included by then)."""

    def __init__(self) -> None:
        self._table: list[tuple[re.Pattern[str], str]] | None = None

    def of(self, scope: Scope) -> str:
        if self._table is None:
            self._table = _route_table(scope.get("app"))
        path = scope["path"]
        for pattern, template in self._table:
            if pattern.match(path):
                return template
        return UNMATCHED_ROUTE


def _route_table(app: object) -> list[tuple[re.Pattern[str], str]]:
    table = []
    for context in iter_route_contexts(getattr(app, "routes", [])):
        template = context.path_format or context.path
        if template:
            table.append((compile_path(template)[0], template))
    return table


Authenticator = Callable[[str | None], Awaitable[Principal]]


@dataclass(frozen=True)
class PublicSurface:
    """Paths that need no API key (signed media URLs, voice previews, the console), metered
    in a bucket per client address of their own (`policy`: "media", "previews", "console"),
    never in the anonymous one. `admits(path, raw_query)`, when given, tells a request the
    surface serves (a validly signed URL) from one it refuses: a refused one spends the
    anonymous bucket, so a scanner gains nothing by aiming at these paths."""

    policy: str
    admits: Callable[[str, str], bool] | None = None


class GatewayMiddleware:
    """Authenticates the API's requests (/api, and the compatible surfaces, each reading its
    credential its own way: `authenticated` maps a path prefix to its KeyReader), spends the
    account's rate limit (one bucket per account and environment, whichever of its keys is
    used; a bad key never spends a real account's quota: unauthenticated traffic has its own
    bucket per client address), caps the request size, and adds the RateLimit headers to the
    response. The `public` surfaces (by path prefix, whole segments) have buckets of their
    own. Probe paths (`probes`: /healthz, /readyz, /metrics) pass unmetered: a load
    balancer's probe must report on the service, not spend a client bucket or fail because
    the limiter's storage (Redis) is down."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        authenticate: Authenticator,
        limiter: RateLimiter,
        max_bytes: int,
        large_bodies: dict[str, int] | None = None,
        authenticated: Mapping[str, KeyReader] | None = None,
        public: Mapping[str, PublicSurface] | None = None,
        probes: frozenset[str] = frozenset(),
    ) -> None:
        self.app = app
        self.authenticate = authenticate
        self.limiter = limiter
        self.max_bytes = max_bytes
        # Paths that take bigger bodies than JSON (uploads), with their own caps: an exact
        # path, or a prefix when the key ends with "/" (a route with a path parameter).
        self.large_bodies = large_bodies or {}
        self.authenticated = dict(authenticated or {API_PREFIX: authorization_header})
        self.public = {prefix.rstrip("/"): surface for prefix, surface in (public or {}).items()}
        self.probes = probes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] in self.probes and scope["method"] in ("GET", "HEAD"):
            scope["state"]["principal"] = None
            await self.app(scope, _capped(receive, self.max_bytes), send)
            return
        headers = Headers(scope=scope)
        principal: Principal | None = None
        error: AppError | None = None
        try:
            read_key = self._key_reader(scope["path"])
            if read_key is not None:
                try:
                    principal = await self.authenticate(read_key(headers))
                except AuthenticationError as exc:
                    error = exc
            decision = await self._spend(scope, principal, keyed=read_key is not None)
        except AppError as exc:  # storage down, or the key lookup failed
            await error_response(exc, scope)(scope, receive, send)
            return
        send = _with_rate_headers(send, decision)
        if not decision.allowed:
            error = decision.error()
        cap = self._cap(scope["path"])
        if error is None:
            error = _size_error(headers, cap) or _control_character_error(scope, headers)
        if error is not None:
            await error_response(error, scope)(scope, receive, send)
            return
        scope["state"]["principal"] = principal
        await self.app(scope, _capped(receive, cap), send)

    def _key_reader(self, path: str) -> KeyReader | None:
        for prefix, reader in self.authenticated.items():
            if path.startswith(prefix):
                return reader
        return None

    async def _spend(self, scope: Scope, principal: Principal | None, *, keyed: bool) -> Decision:
        """Spend a request of this request's bucket: its account's; else, per client address,
        its public surface's or the anonymous one (always for a path that takes a key)."""
        if principal is not None:
            return await self.limiter.hit_account(principal)
        client = scope.get("client")
        address = client[0] if client else "unknown"
        surface = None if keyed else self._surface(scope)
        if surface is None:
            return await self.limiter.hit_anonymous(address)
        return await self.limiter.hit_public(surface.policy, address)

    def _surface(self, scope: Scope) -> PublicSurface | None:
        """The public surface that serves this request, if it is one it admits."""
        path = scope["path"]
        for prefix, surface in self.public.items():
            if path == prefix or path.startswith(prefix + "/"):
                query = scope.get("query_string", b"").decode("latin-1")
                if surface.admits is None or surface.admits(path, query):
                    return surface
                return None
        return None

    def _cap(self, path: str) -> int:
        if path in self.large_bodies:
            return self.large_bodies[path]
        for prefix, cap in self.large_bodies.items():
            if prefix.endswith("/") and path.startswith(prefix):
                return cap
        return self.max_bytes


def _size_error(headers: Headers, cap: int) -> AppError | None:
    length = headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > cap:
        return PayloadTooLarge(f"The request body exceeds {cap} bytes.")
    return None


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _control_character_error(scope: Scope, headers: Headers) -> AppError | None:
    """Control characters in the path, the query or the idempotency key are never valid
    here (and PostgreSQL cannot store NUL): refuse them up front."""
    query = unquote(scope.get("query_string", b"").decode("latin-1"))
    key = headers.get("idempotency-key", "")
    if _CONTROL.search(scope["path"]) or _CONTROL.search(query) or _CONTROL.search(key):
        return MalformedRequest("The URL or a header contains control characters.")
    return None


def _with_rate_headers(send: Send, decision: Decision) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            message.setdefault("headers", [])
            message["headers"] = list(message["headers"]) + decision.headers()
        await send(message)

    return wrapped


def _capped(receive: Receive, max_bytes: int) -> Receive:
    """Refuse a body that grows past the cap even without a Content-Length."""
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > max_bytes:
                raise PayloadTooLarge(f"The request body exceeds {max_bytes} bytes.")
        return message

    return wrapped
