"""HTTP endpoint of the DAW export: POST /api/v1/creative/daw."""

from __future__ import annotations

from fastapi import APIRouter, Request

from soundstage.core.deps import PrincipalDep, SessionDep
from soundstage.core.openapi import errors
from soundstage.creative.daw import service
from soundstage.creative.daw.schemas import DawExportJob, DawExportRequest

router = APIRouter(tags=["Creative"])


@router.post("/creative/daw", response_model=DawExportJob, responses=errors(402))
def export_to_daw(
    body: DawExportRequest, request: Request, session: SessionDep, principal: PrincipalDep
) -> DawExportJob:
    """Compile tracks into a DAW project: broadcast WAVE stems of equal length and an AAF or
    OMF session, in one ZIP. Asynchronous: the answer is the job, `processing`, with
    `estimated_completion_ms`; `GET /api/v1/jobs/{job_id}` or the `daw.completed` webhook
    give the signed `download_url`. Charged 750 credits per minute of output (the longest
    track's end, per started second) when the ZIP is ready; a failed export (a track that
    cannot be fetched or decoded fails it, `daw.failed`) is not charged."""
    return service.submit_export(session, request.app.state.settings, principal, body)
