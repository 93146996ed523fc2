"""DAW export as the endpoint sees it: check what the schema cannot (unique track names, the
output's bounds known before any fetch), then fetch and measure every track, check the
session they make and reserve its price (jobs.inputs), and submit the asynchronous job."""

from __future__ import annotations

from typing import Final

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import InvalidField
from soundstage.core.principal import Principal
from soundstage.creative.daw import limits
from soundstage.creative.daw.schemas import DawExportRequest
from soundstage.creative.daw.stems import OPERATION
from soundstage.creative.daw.tasks import (
    KIND,
    DawJob,
    session_length,
    stem_spec,
    track_param,
)
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs import inputs
from soundstage.jobs.schemas import JobAccepted

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
    db: Database, settings: Settings, principal: Principal, body: DawExportRequest
) -> JobAccepted:
    """Blocking: call it from a thread."""
    check_track_names(body)
    with db.read_session() as session:
        limits.check_request(session, settings, body)
    # Planned from the request as the job will read it.
    job = DawJob.model_validate(body.model_dump())

    def plan(fetched: list[inputs.Fetched]) -> inputs.Plan:
        specs = [
            (stem_spec(settings, job, index, item.path, item.info), item.info)
            for index, item in enumerate(fetched)
        ]
        length_ms = session_length(settings, job, specs)
        return inputs.Plan(
            request=job,
            credits=rates.for_duration(Operation.DAW, length_ms),
            estimated_completion_ms=_BASE_ESTIMATE_MS + _PER_TRACK_ESTIMATE_MS * len(specs),
            duration_ms=length_ms,
        )

    limit_ms = settings.daw.max_track_duration_ms
    wanted = [
        inputs.Wanted(track.audio_url, track_param(index), limit_ms, OPERATION)
        for index, track in enumerate(body.tracks)
    ]
    return inputs.submit(db, settings, principal, KIND, wanted, plan)
