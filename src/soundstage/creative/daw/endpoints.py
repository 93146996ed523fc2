"""HTTP endpoint of the DAW export: POST /api/v1/creative/daw."""

from __future__ import annotations

from fastapi import APIRouter, Request

from soundstage.core.deps import PrincipalDep, SessionDep
from soundstage.core.openapi import errors
from soundstage.creative.daw import service
from soundstage.creative.daw.schemas import DawExportJob, DawExportRequest

router = APIRouter(tags=["Creative"])


@router.post("/creative/daw", response_model=DawExportJob, responses=errors(402, 422))
def export_to_daw(
    body: DawExportRequest, request: Request, session: SessionDep, principal: PrincipalDep
) -> DawExportJob:
    """Compile tracks into a DAW project: broadcast WAVE stems of equal length and an AAF or
    OMF session, in one ZIP. Asynchronous: the answer is the job, `processing`, with
    `estimated_completion_ms`; `GET /api/v1/jobs/{job_id}` or the `daw.completed` webhook
    give the signed `download_url`. Charged 750 credits per minute of output (the longest
    track's end, per started second) when the ZIP is ready; a failed export (a track that
    cannot be fetched or decoded fails it, `daw.failed`) is not charged. The session lasts
    at most `daw.max_session_ms` (30 min) and the export weighs at most
    `daw.max_output_bytes` (2 GiB): checked at submit from the starts and the durations of
    this service's own media (422 `session_too_long` / `export_too_large`), again once the
    inputs are measured. The ZIP expires with the storage retention (`outputs_expire_at`)."""
    return service.submit_export(session, request.app.state.settings, principal, body)
