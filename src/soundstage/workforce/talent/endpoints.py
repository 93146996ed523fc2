"""HTTP endpoints of talent: discover, search, one creator (discovery: verified buyers
only), and the signed demo files (the signature is the credential)."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import FileResponse, Response

from soundstage.accounts.verification import VerifiedBuyerDep
from soundstage.core.deps import DatabaseDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.params import QueryBool, raw_query
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.workforce.talent import demos, service
from soundstage.workforce.talent.repository import TalentFilters
from soundstage.workforce.talent.schemas import CreatorOut, CreatorSearchHit
from soundstage.workforce.vocabulary import LANGUAGE_PATTERN, AgeRange, Gender, Genre, Role

router = APIRouter(prefix=f"{API_V1}/workforce", tags=["Workforce"], route_class=UnitOfWorkRoute)
public_router = APIRouter(prefix="/demos", tags=["Workforce"], route_class=UnitOfWorkRoute)

CreatorId = Annotated[str, Path(min_length=1, max_length=40, description="The creator's id.")]
GenreQuery = Annotated[Genre | None, Query(description="Only creators working in this genre.")]
RoleQuery = Annotated[Role | None, Query(description="Only creators taking this role.")]
LanguageQuery = Annotated[
    str | None,
    Query(
        max_length=35,
        pattern=LANGUAGE_PATTERN,
        description="BCP-47 tag, case-insensitive; a base tag takes in its regional variants "
        "(`en` finds `en-GB` and `en-US`; `en-GB` finds `en-GB` only).",
    ),
]
VerifiedQuery = Annotated[
    QueryBool | None,
    Query(description="`true`: only creators verified by the platform (`false`: any)."),
]


async def _filters(
    genre: GenreQuery = None,
    language: LanguageQuery = None,
    role: RoleQuery = None,
    verified: VerifiedQuery = None,
) -> TalentFilters:
    return TalentFilters(genre=genre, language=language, role=role, verified=verified)


GenderQuery = Annotated[Gender | None, Query(description="Only creators of this gender.")]
AccentQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=100,
        description='Only creators with this accent, e.g. "Scottish" (case and accents ignored).',
    ),
]
AgeRangeQuery = Annotated[
    AgeRange | None, Query(description="Only creators whose voice sounds this age.")
]
TextQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=200,
        description="Free text matched against names, bios, roles, genres, languages, accents "
        "and vocal styles; every word must match (case and accents ignored). It puts the best "
        "text matches first. Optional: the other criteria search alone.",
    ),
]


async def _search_filters(
    base: Annotated[TalentFilters, Depends(_filters)],
    gender: GenderQuery = None,
    accent: AccentQuery = None,
    age_range: AgeRangeQuery = None,
) -> TalentFilters:
    return replace(base, gender=gender, accent=accent, age_range=age_range)


@router.get("/discover", response_model=ListResponse[CreatorOut], responses=errors(403))
def discover_talent(
    session: SessionDep,
    settings: SettingsDep,
    _buyer: VerifiedBuyerDep,
    page: Annotated[PageParams, Depends(page_params)],
    filters: Annotated[TalentFilters, Depends(_filters)],
) -> ListResponse[CreatorOut]:
    """Browse voice talent, newest first, with cursor pagination. Each creator carries its
    rate card, signed demo URLs and the catalog `voice_ids` it performs. Requires a verified
    buyer account (403 `buyer_not_verified`)."""
    creators, has_more = service.discover(session, settings, page, filters)
    return ListResponse[CreatorOut](data=creators, has_more=has_more)


@router.get("/search", response_model=ListResponse[CreatorSearchHit], responses=errors(403))
def search_talent(
    session: SessionDep,
    settings: SettingsDep,
    _buyer: VerifiedBuyerDep,
    page: Annotated[PageParams, Depends(page_params)],
    filters: Annotated[TalentFilters, Depends(_search_filters)],
    q: TextQuery = None,
) -> ListResponse[CreatorSearchHit]:
    """Search talent by role, genre, language or attribute (gender, accent, age range,
    verified), with optional free text `q`; every criterion given must match, and none at all
    lists every creator. Ranked: with `q` by text relevance (names weigh most, then
    attributes, then bios, in `relevance`), then verified creators first, then by rating
    (unrated last), then by `creator_id`. Cursor pagination: `starting_after` / `ending_before`
    take a `creator_id` of this search's results (404 if it is not one). Requires a verified
    buyer account (403 `buyer_not_verified`)."""
    hits, has_more = service.search(session, settings, q, filters, page)
    return ListResponse[CreatorSearchHit](data=hits, has_more=has_more)


@router.get("/creators/{creator_id}", response_model=CreatorOut, responses=errors(403))
def get_creator(
    creator_id: CreatorId, session: SessionDep, settings: SettingsDep, _buyer: VerifiedBuyerDep
) -> CreatorOut:
    """One creator's profile (404 `creator_not_found`). Requires a verified buyer account
    (403 `buyer_not_verified`)."""
    return service.get_creator(session, settings, creator_id)


@public_router.get(
    "/{demo_id}/{filename}",
    response_class=FileResponse,
    responses={
        200: {"description": "The demo's MP3.", "content": {"audio/mpeg": {}}},
        **errors(403, 404, 503),
    },
)
@raw_query
async def demo_audio(
    demo_id: Annotated[str, Path(max_length=40)],
    filename: Annotated[str, Path(max_length=255)],
    request: Request,
    db: DatabaseDep,
    settings: SettingsDep,
) -> Response:
    """A demo's signed URL (no API key: the signature is the credential). Tampered or expired
    URLs are 403. The first request has a worker render the demo."""
    return await demos.demo_response(
        db, settings, demo_id, filename, request.url.query, request.headers.get("range")
    )
