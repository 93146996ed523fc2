"""HTTP endpoint of ElevenLabs' usage statistics (the SDK 2.78's `usage.get`) from the
credits ledger."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query

from soundstage.compat.elevenlabs.usage import service
from soundstage.compat.elevenlabs.usage.schemas import (
    Breakdown,
    ElevenLabsUsageCharacters,
    Interval,
    Metric,
)
from soundstage.core.deps import PrincipalDep, SessionDep
from soundstage.core.openapi import errors
from soundstage.core.params import QueryBool, QueryInt
from soundstage.core.routing import UnitOfWorkRoute

router = APIRouter(
    prefix="/elevenlabs/v1/usage", tags=["ElevenLabs compatible"], route_class=UnitOfWorkRoute
)

# Unix milliseconds up to the end of year 9999 (the last instant a datetime holds).
MAX_UNIX_MS = 253_402_300_799_999
UnixMs = Annotated[QueryInt, Query(ge=0, le=MAX_UNIX_MS, description="Unix milliseconds (UTC).")]


def _instant(unix_ms: int) -> datetime:
    return datetime.fromtimestamp(unix_ms / 1000, tz=UTC)


@router.get("/character-stats", response_model=ElevenLabsUsageCharacters, responses=errors(422))
def character_stats(
    session: SessionDep,
    principal: PrincipalDep,
    start_unix: UnixMs,
    end_unix: UnixMs,
    include_workspace_metrics: Annotated[
        QueryBool | None,
        Query(description="Accepted: an account is its own workspace, so it changes nothing."),
    ] = None,
    breakdown_type: Annotated[
        Breakdown,
        Query(description="`none` (one series, `All`) or `product_type` (one per operation)."),
    ] = "none",
    aggregation_interval: Annotated[
        Interval,
        Query(
            description="UTC hours, days, ISO weeks (from Monday), calendar months, or one "
            "`cumulative` bucket from `start_unix`."
        ),
    ] = "day",
    aggregation_bucket_size: Annotated[
        QueryInt | None,
        Query(
            ge=1,
            le=MAX_UNIX_MS // 1000,
            description="Seconds: buckets of this length from `start_unix`, instead of the "
            "interval.",
        ),
    ] = None,
    metric: Annotated[
        Metric,
        Query(
            description="`credits` (charged, every operation), `tts_characters` (text to "
            "speech's characters as billed) or `request_count` (charges)."
        ),
    ] = "credits",
) -> ElevenLabsUsageCharacters:
    """What the caller's account was charged in the key's environment from `start_unix` to
    `end_unix` (both included), per bucket, from the credits ledger: credits captured when
    work completed (held or returned credits count nothing). At most 10,000 buckets (422
    naming the interval or the bucket size)."""
    return service.character_stats(
        session,
        principal,
        start=_instant(start_unix),
        end=_instant(end_unix),
        interval=aggregation_interval,
        bucket_seconds=aggregation_bucket_size,
        breakdown=breakdown_type,
        metric=metric,
    )
