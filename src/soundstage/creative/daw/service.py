"""DAW export as the endpoint sees it: check what the schema cannot (unique track names, the
output's bounds, a balance that can pay for at least a second), then submit the
asynchronous job."""

from __future__ import annotations

from typing import Final

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.errors import InsufficientCredits, InvalidField
from soundstage.core.principal import Principal
from soundstage.creative.daw import limits
from soundstage.creative.daw.schemas import DawExportJob, DawExportRequest
from soundstage.creative.daw.tasks import KIND
from soundstage.credits import rates
from soundstage.credits import service as credits
from soundstage.credits.rates import Operation
from soundstage.jobs import service as jobs

# A rough figure for the answer's estimated_completion_ms: fetching and rendering a typical
# track of a few minutes takes a couple of seconds on two cores.
_BASE_ESTIMATE_MS: Final = 3_000
_PER_TRACK_ESTIMATE_MS: Final = 2_500


def check_track_names(body: DawExportRequest) -> None:
    """Names become track names and stem file names: unique, ignoring case."""
    seen: dict[str, int] = {}
    for index, track in enumerate(body.tracks):
        key = track.name.casefold()
        if key in seen:
            raise InvalidField(
                f"tracks[{index}].name: {track.name!r} is already the name of "
                f"tracks[{seen[key]}]; track names must be unique.",
                param=f"tracks[{index}].name",
            )
        seen[key] = index


def submit_export(
    session: Session, settings: Settings, principal: Principal, body: DawExportRequest
) -> DawExportJob:
    check_track_names(body)
    limits.check_request(session, settings, body)
    # Priced by the session's length, which the job measures and reserves before rendering;
    # a balance that cannot pay for one second is refused now rather than by the job.
    balance = credits.get_balance(session, principal.account_id, principal.environment)
    if balance.available < rates.for_duration(Operation.DAW, 1):
        raise InsufficientCredits(
            "Insufficient credits: a DAW export costs 750 credits per minute of output "
            "(per started second).",
        )
    job = jobs.submit(
        session,
        settings,
        principal,
        KIND,
        body.model_dump(),
        credits_needed=0,
        is_async=True,
        estimated_completion_ms=_BASE_ESTIMATE_MS + _PER_TRACK_ESTIMATE_MS * len(body.tracks),
    )
    session.flush()
    return DawExportJob.accepted(jobs.job_out(job, settings))
