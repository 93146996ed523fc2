"""Arguments of the MCP tools that have no request body over HTTP (the lists and searches, whose
HTTP endpoints take query parameters), with those parameters' bounds; and their answers."""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from soundstage.core.pagination import ListResponse, PageParams
from soundstage.core.schemas import RequestModel
from soundstage.studios.catalog import MAX_BOOTH_CAPACITY, StudioType
from soundstage.studios.schemas import StudioSummaryOut
from soundstage.voices.schemas import VoiceGender, VoiceOut, VoiceSort
from soundstage.workforce.talent.schemas import CreatorSearchHit
from soundstage.workforce.talent.service import TalentFilters
from soundstage.workforce.vocabulary import LANGUAGE_PATTERN, AgeRange, Gender, Genre, Role


class NoArguments(RequestModel):
    """A tool that takes no argument (any argument is refused, as an unknown field is)."""


class PageArguments(RequestModel):
    """Cursor pagination, as every list of the HTTP API takes it (`core.pagination`)."""

    limit: int = Field(default=20, ge=1, le=100, description="Page size, 1 to 100.")
    starting_after: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="Cursor: the id of the last object of the previous page.",
    )
    ending_before: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="Cursor: the id of the first object of the next page.",
    )

    @field_validator("ending_before")
    @classmethod
    def _one_cursor(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and info.data.get("starting_after") is not None:
            raise ValueError("pass starting_after or ending_before, not both")
        return value

    def page(self) -> PageParams:
        return PageParams(self.limit, self.starting_after, self.ending_before)


class VoiceSearch(PageArguments):
    """GET /api/v1/voices's parameters."""

    language: str | None = Field(
        default=None,
        max_length=35,
        pattern=LANGUAGE_PATTERN,
        description="BCP-47 tag, case-insensitive; a base tag takes in its regional variants "
        "(`en` finds `en-US` and `en-GB`).",
    )
    gender: VoiceGender | None = Field(default=None, description="Only voices of this gender.")
    sort: VoiceSort = Field(
        default="quality",
        description="`quality`: language by language, the best-rated voice first; `newest`: "
        "newest first.",
    )


class TalentSearch(PageArguments):
    """GET /api/v1/workforce/search's parameters (`starting_after` / `ending_before` take a
    `creator_id` of this search's results)."""

    q: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Free text matched against names, bios, roles, genres, languages, accents "
        "and vocal styles; every word must match (case and accents ignored). Optional: the "
        "other criteria search alone.",
    )
    genre: Genre | None = Field(default=None, description="Only creators working in this genre.")
    role: Role | None = Field(default=None, description="Only creators taking this role.")
    language: str | None = Field(
        default=None,
        max_length=35,
        pattern=LANGUAGE_PATTERN,
        description="BCP-47 tag; a base tag takes in its regional variants.",
    )
    verified: bool | None = Field(
        default=None, description="true: only creators verified by the platform."
    )
    gender: Gender | None = Field(default=None, description="Only creators of this gender.")
    accent: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description='Only creators with this accent, e.g. "Scottish".',
    )
    age_range: AgeRange | None = Field(
        default=None, description="Only creators whose voice sounds this age."
    )

    def filters(self) -> TalentFilters:
        return TalentFilters(
            genre=self.genre,
            language=self.language,
            role=self.role,
            verified=self.verified,
            gender=self.gender,
            accent=self.accent,
            age_range=self.age_range,
        )


class StudioSearch(PageArguments):
    """GET /api/v1/studios/discover's parameters (the cursors take a studio id)."""

    city: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="City name; case, accents and punctuation are ignored.",
    )
    state: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="State or province: its name or, when no state has that name, its code.",
    )
    type: StudioType | None = Field(default=None, description="Studios offering this kind of work.")
    capacity: int | None = Field(
        default=None,
        ge=1,
        le=MAX_BOOTH_CAPACITY,
        description="Minimum booth capacity: one of the studio's rooms holds at least this many.",
    )


class VoiceList(ListResponse[VoiceOut]):
    """A page of the voice catalog."""


class TalentList(ListResponse[CreatorSearchHit]):
    """A page of talent search results, in search order."""


class StudioList(ListResponse[StudioSummaryOut]):
    """A page of studios, best rated first."""
