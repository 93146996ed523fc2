"""HTTP endpoint of licensed media (verified buyers only)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from soundstage.accounts.verification import VerifiedBuyerDep
from soundstage.core.deps import SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.workforce.media import service
from soundstage.workforce.media.schemas import LicensedMediaOut

router = APIRouter(
    prefix=f"{API_V1}/workforce/media", tags=["Workforce"], route_class=UnitOfWorkRoute
)


@router.get("", response_model=ListResponse[LicensedMediaOut], responses=errors(403))
def list_licensed_media(
    session: SessionDep,
    settings: SettingsDep,
    buyer: VerifiedBuyerDep,
    page: Annotated[PageParams, Depends(page_params)],
    creator_id: Annotated[
        str | None, Query(min_length=1, max_length=40, description="Only this creator's.")
    ] = None,
    license_id: Annotated[
        str | None, Query(min_length=1, max_length=40, description="Only this license's.")
    ] = None,
) -> ListResponse[LicensedMediaOut]:
    """The media assets the caller holds under completed licenses whose term has not ended,
    newest first, each with a signed URL and its license terms. Nothing is listed for
    creators never licensed, or once a license has expired. Requires a verified buyer account
    (403 `buyer_not_verified`)."""
    media, has_more = service.list_held(
        session,
        settings,
        buyer,
        page,
        creator_id=creator_id,
        license_id=license_id,
    )
    return ListResponse[LicensedMediaOut](data=media, has_more=has_more)
