"""All SQL of talent: filtered listing, full-text search (one interface, FTS5 on SQLite and
tsvector on PostgreSQL), rate cards, demos, the derived search rows, and campaign matching.
Creators are platform data: no owner filter."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Float,
    Select,
    bindparam,
    case,
    column,
    delete,
    func,
    insert,
    literal_column,
    select,
    table,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from soundstage.models import (
    Creator,
    CreatorRate,
    CreatorSearch,
    CreatorTag,
    LicensedMedia,
    TalentDemo,
)
from soundstage.models.workforce import FTS_TABLE
from soundstage.workforce.talent.text import SearchText, search_text, tag, tag_token, tags

# Column weights of relevance: a match in the name counts most, then in the attributes
# (roles, genres, languages, accents, styles), then in the bio; the tag words count nothing.
# FTS5's bm25 takes them per column; PostgreSQL's ts_rank per weight class {D, C, B, A}: the
# bio is D, the tags C, the attributes B, the name A.
BM25_WEIGHTS = (10.0, 4.0, 1.0, 0.0)
TS_RANK_WEIGHTS = "'{0.1, 0.0, 0.4, 1.0}'::float4[]"
_fts = table(FTS_TABLE, column("rowid"))
_document: ColumnElement[Any] = literal_column("creator_search.document")


@dataclass(frozen=True)
class TalentFilters:
    """Criteria shared by discovery, search and campaign matching; None means any."""

    genre: str | None = None
    language: str | None = None
    role: str | None = None
    verified: bool | None = None
    gender: str | None = None
    accent: str | None = None
    age_range: str | None = None

    def tags(self) -> list[str]:
        wanted = [
            ("genre", self.genre),
            ("role", self.role),
            ("language", self.language),
            ("accent", self.accent),
        ]
        return [tag(kind, value) for kind, value in wanted if value is not None]

    def tokens(self) -> list[str]:
        """Every filter as a word of the full-text index (text.search_tags)."""
        scalar = [("gender", self.gender), ("age_range", self.age_range)]
        found = self.tags() + [tag(kind, v) for kind, v in scalar if v is not None]
        if self.verified:
            found.append(tag("verified", "true"))
        return [tag_token(t) for t in found]


def _has_tag(value: str) -> ColumnElement[bool]:
    return Creator.id.in_(select(CreatorTag.creator_id).where(CreatorTag.tag == value))


def _filtered(stmt: Select[Any], filters: TalentFilters) -> Select[Any]:
    for wanted in filters.tags():
        stmt = stmt.where(_has_tag(wanted))
    if filters.verified:  # `verified=false` is no restriction: the spec's flag means "only"
        stmt = stmt.where(Creator.verified.is_(True))
    if filters.gender is not None:
        stmt = stmt.where(Creator.gender == filters.gender)
    if filters.age_range is not None:
        stmt = stmt.where(Creator.age_range == filters.age_range)
    return stmt


def creators_query(filters: TalentFilters) -> Select[Any]:
    return _filtered(select(Creator), filters)


def get_creator(session: Session, creator_id: str) -> Creator | None:
    return session.get(Creator, creator_id)


def creators_by_id(session: Session, creator_ids: Iterable[str]) -> dict[str, Creator]:
    ids = set(creator_ids)
    if not ids:
        return {}
    return {c.id: c for c in session.scalars(select(Creator).where(Creator.id.in_(ids)))}


def search_statement(
    dialect: str, terms: Sequence[str], filters: TalentFilters, limit: int, offset: int
) -> Select[Any]:
    """(creator_id, score) of the creators matching every term and the filters, best first
    (ties in catalog order). The filters are tag words in the same full-text index, so the
    index intersects them with the terms and no row is read before the page is chosen. Terms
    are folded words (text.query_terms) and tags hex words: neither FTS5's query syntax nor
    tsquery's can be injected."""
    words = [*terms, *filters.tokens()]
    if dialect == "sqlite":
        ranked = (
            select(
                _fts.c.rowid.label("rowid"),
                (-func.bm25(literal_column(FTS_TABLE), *BM25_WEIGHTS)).label("score"),
            )
            .where(
                literal_column(FTS_TABLE).op("MATCH")(
                    bindparam("match", " ".join(f'"{word}"' for word in words))
                )
            )
            .order_by(literal_column("score").desc(), _fts.c.rowid)
            .limit(limit)
            .offset(offset)
            .subquery("ranked")
        )
        return (
            select(CreatorSearch.creator_id, ranked.c.score)
            .join(ranked, ranked.c.rowid == CreatorSearch.id)
            .order_by(ranked.c.score.desc(), ranked.c.rowid)
        )
    if dialect == "postgresql":
        query = func.plainto_tsquery(
            literal_column("'simple'::regconfig"), bindparam("words", " ".join(words))
        )
        score = func.ts_rank(literal_column(TS_RANK_WEIGHTS), _document, query, type_=Float)
        return (
            select(CreatorSearch.creator_id, score.label("score"))
            .where(_document.op("@@")(query))
            .order_by(literal_column("score").desc(), CreatorSearch.id)
            .limit(limit)
            .offset(offset)
        )
    raise NotImplementedError(f"full-text search on {dialect}")


def search(
    session: Session, terms: Sequence[str], filters: TalentFilters, limit: int, offset: int
) -> list[tuple[str, float]]:
    dialect = session.get_bind().dialect.name
    rows = session.execute(search_statement(dialect, terms, filters, limit, offset)).all()
    return [(str(row[0]), float(row[1])) for row in rows]


def rates_of(session: Session, creator_ids: Iterable[str]) -> dict[str, list[CreatorRate]]:
    found: dict[str, list[CreatorRate]] = defaultdict(list)
    ids = set(creator_ids)
    if ids:
        stmt = select(CreatorRate).where(CreatorRate.creator_id.in_(ids))
        for rate in session.scalars(stmt.order_by(CreatorRate.usage_type)):
            found[rate.creator_id].append(rate)
    return found


def rate_of(session: Session, creator_id: str, usage_type: str) -> CreatorRate | None:
    return session.get(CreatorRate, (creator_id, usage_type))


def demos_of(session: Session, creator_ids: Iterable[str]) -> dict[str, list[TalentDemo]]:
    found: dict[str, list[TalentDemo]] = defaultdict(list)
    ids = set(creator_ids)
    if ids:
        stmt = select(TalentDemo).where(TalentDemo.creator_id.in_(ids))
        for demo in session.scalars(stmt.order_by(TalentDemo.position, TalentDemo.id)):
            found[demo.creator_id].append(demo)
    return found


def get_demo(session: Session, demo_id: str) -> TalentDemo | None:
    return session.get(TalentDemo, demo_id)


def demos_by_id(session: Session, demo_ids: Iterable[str]) -> dict[str, TalentDemo]:
    ids = set(demo_ids)
    if not ids:
        return {}
    return {d.id: d for d in session.scalars(select(TalentDemo).where(TalentDemo.id.in_(ids)))}


def insert_rows(session: Session, model: type[Any], rows: Sequence[Mapping[str, Any]]) -> None:
    """Bulk insert (one Core executemany, no ORM bookkeeping): the catalog loads hundreds of
    thousands of rows."""
    if rows:
        session.execute(insert(model.__table__), list(rows))


def add(session: Session, row: Any) -> None:
    session.add(row)
    session.flush()


def replace_rates(session: Session, creator_id: str, rates: Mapping[str, int]) -> None:
    session.execute(delete(CreatorRate).where(CreatorRate.creator_id == creator_id))
    insert_rows(
        session,
        CreatorRate,
        [
            {"creator_id": creator_id, "usage_type": u, "base_fee_cents": c}
            for u, c in rates.items()
        ],
    )


def replace_demos(session: Session, creator_id: str, demos: Sequence[Mapping[str, Any]]) -> None:
    """Demos the profile no longer lists go, unless a license granted them (a buyer's
    licensed media keeps pointing at them)."""
    session.flush()
    keep = {d["id"] for d in demos}
    existing = demos_of(session, [creator_id]).get(creator_id, [])
    for demo in existing:
        if demo.id not in keep and not _is_licensed(session, demo.id):
            session.delete(demo)
    by_id = {d.id: d for d in existing}
    for values in demos:
        current = by_id.get(values["id"])
        if current is None:
            session.add(TalentDemo(**values))
        else:
            for name, value in values.items():
                if name != "created_at":
                    setattr(current, name, value)
    session.flush()


def _is_licensed(session: Session, demo_id: str) -> bool:
    stmt = select(LicensedMedia.id).where(LicensedMedia.demo_id == demo_id).limit(1)
    return session.scalars(stmt).first() is not None


def index_rows(creator: Creator) -> tuple[list[dict[str, str]], SearchText]:
    return [{"tag": t, "creator_id": creator.id} for t in sorted(tags(creator))], search_text(
        creator
    )


def insert_index(session: Session, creators: Sequence[Creator]) -> None:
    """Tags and search rows of creators that have none yet (bulk)."""
    tag_rows: list[dict[str, str]] = []
    search_rows: list[dict[str, str]] = []
    for creator in creators:
        rows, text = index_rows(creator)
        tag_rows.extend(rows)
        search_rows.append({"creator_id": creator.id, **vars(text)})
    insert_rows(session, CreatorTag, tag_rows)
    insert_rows(session, CreatorSearch, search_rows)


def reindex(connection: Connection, creators: Sequence[Creator]) -> None:
    """Rewrite the tags and search rows of creators from their profiles, with Core statements
    on the flushing connection (models/workforce.py calls it after every flush that creates or
    changes a creator, whoever writes it: the voice catalog, an import, an operator)."""
    ids = [c.id for c in creators]
    tag_rows: list[dict[str, str]] = []
    for creator in creators:
        rows, text = index_rows(creator)
        tag_rows.extend(rows)
        values = vars(text)
        updated = connection.execute(
            update(CreatorSearch).where(CreatorSearch.creator_id == creator.id).values(**values)
        )
        if updated.rowcount == 0:
            connection.execute(insert(CreatorSearch).values(creator_id=creator.id, **values))
    connection.execute(delete(CreatorTag).where(CreatorTag.creator_id.in_(ids)))
    if tag_rows:
        connection.execute(insert(CreatorTag), tag_rows)


def unindexed_creators(session: Session) -> list[Creator]:
    """Creators without a search row (made by the voice catalog before talent was loaded)."""
    indexed = select(CreatorSearch.creator_id)
    return list(session.scalars(select(Creator).where(Creator.id.not_in(indexed))))


@dataclass(frozen=True)
class Match:
    creator_id: str
    score: int
    base_fee_cents: int


def best_matches(
    session: Session,
    *,
    languages: Sequence[str],
    usage_type: str,
    budget_cents: int,
    roles: Sequence[str],
    genres: Sequence[str],
    limit: int,
) -> list[Match]:
    """Creators who speak one of `languages` (a base tag takes in its variants) and offer
    `usage_type` at a base fee within the budget, scored 3 per role and 2 per genre they share
    with the brief, +1 if verified; ties go to the better rated."""

    def shared(wanted: Sequence[str]) -> Any:
        if not wanted:
            return 0
        return (
            select(func.count())
            .where(CreatorTag.creator_id == Creator.id, CreatorTag.tag.in_(wanted))
            .scalar_subquery()
        )

    score = (
        shared([tag("role", r) for r in roles]) * 3
        + shared([tag("genre", g) for g in genres]) * 2
        + case((Creator.verified.is_(True), 1), else_=0)
    ).label("score")
    speaks = select(CreatorTag.creator_id).where(
        CreatorTag.tag.in_([tag("language", language) for language in languages])
    )
    stmt = (
        select(Creator.id, score, CreatorRate.base_fee_cents)
        .join(CreatorRate, CreatorRate.creator_id == Creator.id)
        .where(
            CreatorRate.usage_type == usage_type,
            CreatorRate.base_fee_cents <= budget_cents,
            Creator.id.in_(speaks),
        )
        .order_by(score.desc(), Creator.rating.desc().nulls_last(), Creator.id)
        .limit(limit)
    )
    return [Match(cid, int(s), int(fee)) for cid, s, fee in session.execute(stmt)]
