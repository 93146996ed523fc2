"""HTTP endpoints of jobs: read one, list, cancel."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from soundstage.core.deps import PrincipalDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.jobs import service
from soundstage.jobs.schemas import JobOut, JobStatus, KindsJobOut

router = APIRouter(prefix=f"{API_V1}/jobs", tags=["Jobs"], route_class=UnitOfWorkRoute)


@router.get(
    "/{job_id}",
    response_model=None,
    responses={200: {"model": KindsJobOut, "description": "Successful Response"}},
)
def get_job(
    job_id: str, session: SessionDep, principal: PrincipalDep, settings: SettingsDep
) -> Response:
    """A job at any time: status, progress, result or error, credits. Its `result` is its
    kind's (the schemas below, one per `kind`)."""
    job = service.job_out(service.get(session, principal, job_id), settings)
    # Serialized as a route whose response model is JobOut would be: the result as stored.
    return Response(job.model_dump_json(by_alias=True), media_type="application/json")


@router.get("", response_model=ListResponse[JobOut])
def list_jobs(
    session: SessionDep,
    principal: PrincipalDep,
    settings: SettingsDep,
    page: Annotated[PageParams, Depends(page_params)],
    status: Annotated[JobStatus | None, Query(description="Only jobs in this state.")] = None,
    kind: Annotated[str | None, Query(max_length=40, description="Only jobs of this kind.")] = None,
) -> ListResponse[JobOut]:
    """The caller's jobs, newest first."""
    jobs, has_more = service.list_jobs(session, principal, page, status=status, kind=kind)
    return ListResponse[JobOut](
        data=[service.job_out(j, settings) for j in jobs], has_more=has_more
    )


@router.post("/{job_id}/cancel", response_model=JobOut, responses=errors(409))
def cancel_job(
    job_id: str, session: SessionDep, principal: PrincipalDep, settings: SettingsDep
) -> JobOut:
    """Cancel a queued or running job. A cancelled job is never charged; an asynchronous
    one announces it by webhook: `dubbing.cancelled`, `daw.cancelled`, or `job.cancelled`
    for the other kinds (speech-to-text with `Prefer: respond-async`)."""
    return service.job_out(service.cancel(session, settings, principal, job_id), settings)
