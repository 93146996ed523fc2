"""Talent as buyers see it: discovery (filtered, newest first), search (by criteria and
optional full text, ranked), creator profiles, and what campaigns and licensing need to know
about creators."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.errors import InvalidField
from soundstage.core.pagination import PageParams, paginate
from soundstage.models import Creator, TalentDemo
from soundstage.voices import service as voices
from soundstage.workforce.errors import CreatorNotFound
from soundstage.workforce.talent import demos, repository
from soundstage.workforce.talent.repository import TalentFilters as TalentFilters
from soundstage.workforce.talent.schemas import CreatorOut, CreatorSearchHit, DemoOut, RateOut
from soundstage.workforce.talent.text import query_terms


def creators_out(
    session: Session, settings: Settings, creators: Sequence[Creator]
) -> list[CreatorOut]:
    """Profiles with rate cards, voices and signed demo URLs (four queries for any number).
    A demo read by a voice retired from the catalog is left out: its URL could only be 404."""
    ids = [c.id for c in creators]
    rates = repository.rates_of(session, ids)
    demos_by_creator = repository.demos_of(session, ids)
    voice_ids = voices.voice_ids_by_creator(session, ids)
    speaking = voices.active_voice_ids(
        session, {d.voice_id for found in demos_by_creator.values() for d in found}
    )
    return [
        CreatorOut(
            creator_id=c.id,
            display_name=c.display_name,
            bio=c.bio,
            roles=c.roles,
            genres=c.genres,
            languages=c.languages,
            accents=c.accents,
            vocal_styles=c.vocal_styles,
            gender=c.gender,
            age_range=c.age_range,
            verified=c.verified,
            rating=c.rating,
            ratings_count=c.ratings_count,
            rate_card=[
                RateOut(usage_type=r.usage_type, base_fee_cents=r.base_fee_cents)
                for r in rates.get(c.id, [])
            ],
            voice_ids=voice_ids.get(c.id, []),
            demos=[
                demo_out(settings, d)
                for d in demos_by_creator.get(c.id, [])
                if d.voice_id in speaking
            ],
            created_at=c.created_at,
        )
        for c in creators
    ]


def demo_out(settings: Settings, demo: TalentDemo) -> DemoOut:
    """The demo with a URL signed now, and when that URL expires."""
    url, expires_at = demos.signed_url(settings, demo)
    return DemoOut(
        demo_id=demo.id,
        title=demo.title,
        genre=demo.genre,
        language=demo.language,
        voice_id=demo.voice_id,
        url=url,
        url_expires_at=expires_at,
    )


def discover(
    session: Session, settings: Settings, page: PageParams, filters: TalentFilters
) -> tuple[list[CreatorOut], bool]:
    """Creators matching the filters, newest first, cursor-paginated."""
    creators, has_more = paginate(
        session, repository.creators_query(filters), Creator, page, CreatorNotFound
    )
    return creators_out(session, settings, creators), has_more


def search(
    session: Session,
    settings: Settings,
    q: str | None,
    filters: TalentFilters,
    page: PageParams,
) -> tuple[list[CreatorSearchHit], bool]:
    """Creators matching the criteria and, with `q`, holding every word of it, in search
    order (repository.Rank: relevance with `q`, then verified, rating and id), cursor-paginated
    by creator id: the cursor creator's own rank in this search is where the page starts."""
    terms: list[str] | None = None
    if q is not None:
        terms = query_terms(q)
        if not terms:
            raise InvalidField("q: must contain at least one word.", param="q")
    cursor_id = page.starting_after or page.ending_before
    cursor = None
    if cursor_id is not None:
        cursor = repository.rank_of(session, terms, filters, cursor_id)
        if cursor is None:
            param = "starting_after" if page.starting_after else "ending_before"
            raise CreatorNotFound(f"No such creator in this search: {cursor_id}", param=param)
    backward = page.ending_before is not None
    # One more than asked tells whether another page follows.
    ranks = repository.search(session, terms, filters, page.limit + 1, cursor, backward=backward)
    has_more = len(ranks) > page.limit
    ranks = ranks[: page.limit]
    if backward:
        ranks.reverse()
    found = repository.creators_by_id(session, [r.creator_id for r in ranks])
    profiles = creators_out(session, settings, [found[r.creator_id] for r in ranks])
    hits = [
        CreatorSearchHit(**dict(p), relevance=r.score) for p, r in zip(profiles, ranks, strict=True)
    ]
    return hits, has_more


def require_creator(session: Session, creator_id: str, *, param: str = "creator_id") -> Creator:
    creator = repository.get_creator(session, creator_id)
    if creator is None:
        raise CreatorNotFound(f"No such creator: {creator_id}", param=param)
    return creator


def get_creator(session: Session, settings: Settings, creator_id: str) -> CreatorOut:
    return creators_out(session, settings, [require_creator(session, creator_id)])[0]


def base_fee_cents(session: Session, creator_id: str, usage_type: str) -> int | None:
    """The creator's rate-card fee for the usage, or None if the creator does not offer it."""
    rate = repository.rate_of(session, creator_id, usage_type)
    return rate.base_fee_cents if rate is not None else None


def creators_by_id(session: Session, creator_ids: Sequence[str]) -> dict[str, Creator]:
    return repository.creators_by_id(session, creator_ids)


def set_owner(session: Session, creator_id: str, account_id: str | None) -> Creator:
    """Operators link a creator profile to the account that speaks for it (or unlink it)."""
    creator = require_creator(session, creator_id, param="creator")
    creator.account_id = account_id
    session.flush()
    return creator


# Campaign matching: creators who speak one of the brief's languages and offer its usage
# within budget, scored by shared roles and genres (see the repository).
best_matches = repository.best_matches


def demos_of(session: Session, creator_id: str) -> list[TalentDemo]:
    return repository.demos_of(session, [creator_id]).get(creator_id, [])


def demos_by_id(session: Session, demo_ids: Sequence[str]) -> dict[str, TalentDemo]:
    return repository.demos_by_id(session, demo_ids)


def signed_demo_url(settings: Settings, demo: TalentDemo) -> tuple[str, datetime]:
    """The demo's URL, valid for `media.url_ttl_seconds`, and when it expires (licensed media
    lists its demos by it)."""
    return demos.signed_url(settings, demo)
