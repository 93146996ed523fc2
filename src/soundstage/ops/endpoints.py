"""Operations endpoints, outside /api and without an API key: liveness (/healthz), readiness
(/readyz) and Prometheus metrics (/metrics, optionally behind its own bearer token)."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, Response

from soundstage.core import metrics as core_metrics
from soundstage.core.deps import DatabaseDep, SettingsDep
from soundstage.core.errors import (
    InvalidApiKey,
    MissingApiKey,
    RouteNotFound,
    ServiceUnavailable,
    error_payload,
)
from soundstage.core.responses import request_id_of
from soundstage.core.routing import UnitOfWorkRoute
from soundstage.ops import metrics, readiness
from soundstage.ops.schemas import CheckOut, Health, Readiness

router = APIRouter(tags=["Operations"], route_class=UnitOfWorkRoute)

# Paths the gateway lets through without a key or a rate limit (core.middleware).
PROBE_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
# Seconds a load balancer is told to wait before asking /readyz again after a 503.
RETRY_AFTER_SECONDS = 5


@router.get("/healthz")
async def healthz() -> Health:
    """Liveness: the process answers (no key needed). It asks no dependency, so that an
    outage of the database does not get every API process restarted; /readyz does."""
    return Health(status="ok")


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={
        503: {
            "description": "A dependency did not answer: `service_unavailable`, "
            "with `checks` beside the error"
        }
    },
)
async def readyz(
    request: Request,
    db: DatabaseDep,
    settings: SettingsDep,
) -> Readiness | JSONResponse:
    """Whether this process can take work now: the database (a connection from the pool the
    requests use), Redis (when configured) and the media store each answered within
    `readiness_timeout_seconds`, and the event loop kept no request waiting longer than
    `readiness_max_loop_lag_seconds` in the last 5 s (no key needed). Answered within the
    timeout whatever the load: the probes are never queued behind requests."""
    results = await readiness.run_checks(db, settings)
    checks = {
        r.name: CheckOut(status=r.status, duration_ms=r.duration_ms, error=r.error) for r in results
    }
    down = [r.name for r in results if r.error is not None]
    if not down:
        return Readiness(status="ready", checks=checks)
    error = ServiceUnavailable(
        f"Not ready: {', '.join(down)} did not answer.",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )
    body = error_payload(error, request_id_of(request.scope))
    body["checks"] = {name: check.model_dump() for name, check in checks.items()}
    return JSONResponse(body, status_code=error.status, headers=error.headers)


@router.get("/metrics", response_class=Response)
def prometheus_metrics(
    request: Request,
    db: DatabaseDep,
    settings: SettingsDep,
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> Response:
    """Prometheus text exposition of this machine's API and job processes, and the queue
    (no API key; `metrics.bearer_token` when set; 404 when `metrics.enabled` is false)."""
    if not settings.metrics.enabled:
        raise RouteNotFound(f"Unrecognized request URL (GET {request.url.path}).")
    token = settings.metrics.bearer_token
    if token:
        if not authorization:
            raise MissingApiKey("Send the metrics token as `Authorization: Bearer <token>`.")
        scheme, _, sent = authorization.partition(" ")
        if scheme.lower() != "bearer" or not secrets.compare_digest(sent.strip(), token):
            raise InvalidApiKey("The metrics token is not valid.")
    return Response(metrics.scrape(db), media_type=core_metrics.CONTENT_TYPE)
