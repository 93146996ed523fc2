"""All SQL of the voice catalog. Voices and creators are platform data: no owner filter."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from sqlalchemy import ColumnElement, Float, Select, case, func, literal, or_, select
from sqlalchemy.orm import Session

from soundstage.core.pagination import Order
from soundstage.models import Creator, Voice


def add_all(session: Session, rows: Sequence[Creator | Voice]) -> None:
    session.add_all(rows)
    session.flush()


def active_voices_query(*, language: str | None, gender: str | None) -> Select[Voice]:
    """Active voices; `language` is a BCP-47 range matched as RFC 4647 basic filtering,
    case-insensitively: `en` finds `en`, `en-US` and `en-GB`; `en-US` finds `en-US` only."""
    stmt = select(Voice).where(Voice.is_active.is_(True))
    if language is not None:
        tag = func.lower(Voice.language)
        wanted = language.lower()
        stmt = stmt.where(or_(tag == wanted, tag.startswith(wanted + "-", autoescape=True)))
    if gender is not None:
        stmt = stmt.where(Voice.gender == gender)
    return stmt


def quality_order(mos: Mapping[str, float]) -> Order:
    """Language by language (the tag, case-insensitively), the best-rated voice first (`mos`
    by voice id; a voice not rated comes after those that are), then newest first."""
    rated: ColumnElement[float] = (
        case(dict(mos), value=Voice.id, else_=literal(0.0, Float)) if mos else literal(0.0, Float)
    )
    return (
        (func.lower(Voice.language), False),
        (rated, True),
        (Voice.created_at, True),
        (Voice.id, True),
    )


def get_active_voice(session: Session, voice_id: str) -> Voice | None:
    stmt = active_voices_query(language=None, gender=None).where(Voice.id == voice_id)
    return session.scalars(stmt).first()


def voices_by_id(session: Session, voice_ids: Iterable[str]) -> dict[str, Voice]:
    ids = set(voice_ids)
    if not ids:
        return {}
    return {v.id: v for v in session.scalars(select(Voice).where(Voice.id.in_(ids)))}


def creators_by_id(session: Session, creator_ids: Iterable[str]) -> dict[str, Creator]:
    ids = set(creator_ids)
    if not ids:
        return {}
    return {c.id: c for c in session.scalars(select(Creator).where(Creator.id.in_(ids)))}


def voice_ids_by_engine_voice(session: Session) -> dict[tuple[str, str], str]:
    """Every voice's id (active or not) by its (engine, engine_voice)."""
    rows = session.execute(select(Voice.engine, Voice.engine_voice, Voice.id))
    return {(engine, engine_voice): voice_id for engine, engine_voice, voice_id in rows}


def active_voices(session: Session, language: str | None) -> list[Voice]:
    stmt = active_voices_query(language=language, gender=None).order_by(Voice.id)
    return list(session.scalars(stmt))


def active_voice_ids(session: Session, voice_ids: Iterable[str]) -> set[str]:
    ids = set(voice_ids)
    if not ids:
        return set()
    stmt = select(Voice.id).where(Voice.is_active.is_(True), Voice.id.in_(ids))
    return set(session.scalars(stmt))


def active_voice_ids_by_creator(
    session: Session, creator_ids: Iterable[str]
) -> dict[str, list[str]]:
    ids = set(creator_ids)
    found: dict[str, list[str]] = {}
    if not ids:
        return found
    stmt = (
        select(Voice.creator_id, Voice.id)
        .where(Voice.is_active.is_(True), Voice.creator_id.in_(ids))
        .order_by(Voice.id)
    )
    for creator_id, voice_id in session.execute(stmt):
        found.setdefault(creator_id, []).append(voice_id)
    return found
