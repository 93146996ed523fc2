"""Talent as catalog content: the profile format of `soundstage catalog import-talent FILE`
(and of the demo catalog), validated as a whole before anything is written, and the upsert
that writes profiles with their rate cards, demos and search rows in one transaction."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, ValidationError, field_validator
from sqlalchemy.orm import Session

from soundstage.accounts import service as accounts
from soundstage.accounts.errors import AccountNotFound
from soundstage.core.schemas import RequestModel
from soundstage.core.timeutil import utcnow
from soundstage.models import Creator, CreatorRate, TalentDemo
from soundstage.voices import service as voices
from soundstage.voices.errors import VoiceNotFound
from soundstage.workforce.errors import InvalidTalentImport
from soundstage.workforce.talent import repository
from soundstage.workforce.vocabulary import (
    AgeRange,
    Gender,
    Genre,
    LanguageTag,
    Role,
    UsageType,
)

CREATOR_ID_PATTERN = r"^cr_[a-z0-9_]{1,37}$"
MAX_ERRORS_SHOWN = 20
_BATCH = 2000  # rows per IN (...) lookup: well under SQLite's bound-parameter limit

Accent = Annotated[str, Field(min_length=1, max_length=100)]
VocalStyle = Annotated[str, Field(min_length=1, max_length=50)]
FeeCents = Annotated[int, Field(ge=100, le=100_000_000)]


def _unique(values: list[Any]) -> list[Any]:
    if len(set(values)) != len(values):
        raise ValueError("must not repeat a value")
    return values


class DemoIn(RequestModel):
    title: str = Field(min_length=1, max_length=200)
    genre: Genre
    language: LanguageTag | None = Field(
        default=None, description="The script's language; default: the creator's first."
    )
    script: str = Field(min_length=1, max_length=2000)
    voice_id: str = Field(max_length=40, description="The catalog voice that reads the script.")


class TalentIn(RequestModel):
    """One creator profile of an import file."""

    creator_id: str = Field(pattern=CREATOR_ID_PATTERN, description="`cr_` + a-z, 0-9, _.")
    display_name: str = Field(min_length=1, max_length=200)
    bio: str = Field(default="", max_length=5000)
    roles: list[Role] = Field(min_length=1, max_length=4)
    genres: list[Genre] = Field(default_factory=list, max_length=6)
    languages: list[LanguageTag] = Field(min_length=1, max_length=20)
    accents: list[Accent] = Field(default_factory=list, max_length=10)
    vocal_styles: list[VocalStyle] = Field(default_factory=list, max_length=20)
    gender: Gender | None = None
    age_range: AgeRange | None = None
    verified: bool = False
    rating: float | None = Field(default=None, ge=1.0, le=5.0)
    ratings_count: int = Field(default=0, ge=0, le=10_000_000)
    rate_card: dict[UsageType, FeeCents] = Field(min_length=1)
    demos: list[DemoIn] = Field(default_factory=list, max_length=10)
    account_id: str | None = Field(
        default=None,
        max_length=40,
        description="The account that answers the creator's license requests.",
    )

    _unique_lists = field_validator("roles", "genres", "languages", "accents", "vocal_styles")(
        _unique
    )


class TalentFile(RequestModel):
    talent: list[TalentIn] = Field(min_length=1, max_length=500_000)


@dataclass(frozen=True)
class TalentCounts:
    created: int
    updated: int
    unchanged: int


def parse_file(path: Path) -> list[TalentIn]:
    """The profiles of an import file, or InvalidTalentImport listing what is wrong."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidTalentImport(f"{path}: not a readable JSON file ({exc}).") from exc
    try:
        profiles = TalentFile.model_validate(raw).talent
    except ValidationError as exc:
        problems = [f"{_location(e['loc'])}: {e['msg']}" for e in exc.errors()[:MAX_ERRORS_SHOWN]]
        more = exc.error_count() - len(problems)
        suffix = f"\n… and {more} more" if more > 0 else ""
        raise InvalidTalentImport(
            f"{path}: {exc.error_count()} invalid field(s); nothing was imported:\n"
            + "\n".join(problems)
            + suffix
        ) from exc
    return profiles


def _location(loc: Sequence[Any]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def check_references(session: Session, profiles: Sequence[TalentIn]) -> None:
    """What the schema cannot check: unique creator ids, and voices and accounts that exist."""
    problems: list[str] = []
    seen: set[str] = set()
    for index, profile in enumerate(profiles):
        if profile.creator_id in seen:
            problems.append(f"talent[{index}].creator_id: {profile.creator_id} appears twice")
        seen.add(profile.creator_id)
    for voice_id in sorted({d.voice_id for p in profiles for d in p.demos}):
        try:
            voices.get_active_voice(session, voice_id)
        except VoiceNotFound:
            problems.append(f"demos.voice_id: no such voice in the catalog: {voice_id}")
    for account_id in sorted({p.account_id for p in profiles if p.account_id}):
        try:
            accounts.get_account(session, account_id)
        except AccountNotFound:
            problems.append(f"account_id: no such account: {account_id}")
    if problems:
        shown = problems[:MAX_ERRORS_SHOWN]
        raise InvalidTalentImport(
            f"{len(problems)} problem(s); nothing was imported:\n" + "\n".join(shown)
        )


def import_file(session: Session, path: Path) -> TalentCounts:
    """Validate the whole file, then write it; any problem writes nothing."""
    return import_profiles(session, parse_file(path))


def import_profiles(session: Session, profiles: Sequence[TalentIn]) -> TalentCounts:
    """Profiles parsed by parse_file (before the transaction, which on SQLite holds the
    write lock from its first statement to its commit)."""
    check_references(session, profiles)
    return upsert_talent(session, profiles)


def demo_id(creator_id: str, position: int) -> str:
    """Stable, so that a reload updates a demo in place and its URL never changes."""
    digest = hashlib.sha256(f"{creator_id}\0{position}".encode()).hexdigest()
    return f"demo_{digest[:24]}"


def _creator_values(profile: TalentIn) -> dict[str, Any]:
    values: dict[str, Any] = {
        "display_name": profile.display_name,
        "bio": profile.bio,
        "roles": list(profile.roles),
        "genres": list(profile.genres),
        "languages": list(profile.languages),
        "accents": list(profile.accents),
        "vocal_styles": list(profile.vocal_styles),
        "gender": profile.gender,
        "age_range": profile.age_range,
        "verified": profile.verified,
        "rating": profile.rating,
        "ratings_count": profile.ratings_count,
    }
    # A profile without an account leaves the creator's owner as an operator set it.
    if profile.account_id is not None:
        values["account_id"] = profile.account_id
    return values


def _demo_values(profile: TalentIn, now: datetime) -> list[dict[str, Any]]:
    return [
        {
            "id": demo_id(profile.creator_id, position),
            "creator_id": profile.creator_id,
            "position": position,
            "title": demo.title,
            "genre": demo.genre,
            "language": demo.language or profile.languages[0],
            "script": demo.script,
            "voice_id": demo.voice_id,
            "created_at": now,
        }
        for position, demo in enumerate(profile.demos)
    ]


def _batches(items: Sequence[TalentIn]) -> Iterator[Sequence[TalentIn]]:
    for start in range(0, len(items), _BATCH):
        yield items[start : start + _BATCH]


def upsert_talent(session: Session, profiles: Sequence[TalentIn]) -> TalentCounts:
    """Create or update creators by id with their rate cards, demos and search rows; a
    profile already equal to its content is left alone. Flushes; the caller commits."""
    now = utcnow()
    created = updated = unchanged = 0
    position = 0
    for batch in _batches(profiles):
        existing = repository.creators_by_id(session, (p.creator_id for p in batch))
        fresh: list[TalentIn] = []
        for profile in batch:
            current = existing.get(profile.creator_id)
            if current is None:
                fresh.append(profile)
            elif _update(session, current, profile, now):
                updated += 1
            else:
                unchanged += 1
        # Lists are newest first: the first profile of the file is stamped newest.
        _insert(
            session, fresh, [now - timedelta(microseconds=position + i) for i in range(len(fresh))]
        )
        position += len(fresh)
        created += len(fresh)
    session.flush()
    return TalentCounts(created=created, updated=updated, unchanged=unchanged)


def _insert(session: Session, profiles: Sequence[TalentIn], stamps: Sequence[datetime]) -> None:
    creators = [
        Creator(id=p.creator_id, created_at=stamp, **_creator_values(p))
        for p, stamp in zip(profiles, stamps, strict=True)
    ]
    repository.insert_rows(
        session,
        Creator,
        [
            {"id": c.id, "created_at": c.created_at, **_creator_values(p)}
            for c, p in zip(creators, profiles, strict=True)
        ],
    )
    repository.insert_rows(
        session,
        CreatorRate,
        [
            {"creator_id": p.creator_id, "usage_type": usage, "base_fee_cents": fee}
            for p in profiles
            for usage, fee in p.rate_card.items()
        ],
    )
    repository.insert_rows(
        session,
        TalentDemo,
        [d for p, at in zip(profiles, stamps, strict=True) for d in _demo_values(p, at)],
    )
    repository.insert_index(session, creators)


def _update(session: Session, creator: Creator, profile: TalentIn, now: datetime) -> bool:
    changed = False
    for name, value in _creator_values(profile).items():
        if getattr(creator, name) != value:
            setattr(creator, name, value)
            changed = True
    rates = {
        r.usage_type: r.base_fee_cents
        for r in repository.rates_of(session, [creator.id]).get(creator.id, [])
    }
    if rates != _fees(profile):
        repository.replace_rates(session, creator.id, _fees(profile))
        changed = True
    wanted = _demo_values(profile, now)
    current = [
        {**_demo_fields(d), "created_at": now}
        for d in repository.demos_of(session, [creator.id]).get(creator.id, [])
    ]
    if current != wanted:
        repository.replace_demos(session, creator.id, wanted)
        changed = True
    # A changed profile is re-indexed when it is flushed (models/workforce.py).
    return changed


def _fees(profile: TalentIn) -> dict[str, int]:
    return {str(usage): fee for usage, fee in profile.rate_card.items()}


def _demo_fields(demo: TalentDemo) -> dict[str, Any]:
    return {
        "id": demo.id,
        "creator_id": demo.creator_id,
        "position": demo.position,
        "title": demo.title,
        "genre": demo.genre,
        "language": demo.language,
        "script": demo.script,
        "voice_id": demo.voice_id,
    }


def index_unindexed(session: Session) -> int:
    """Search rows for creators that have none (the voice catalog's, before their talent
    profiles are loaded), so that every creator can be found."""
    creators = repository.unindexed_creators(session)
    repository.insert_index(session, creators)
    return len(creators)
