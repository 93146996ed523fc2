"""All SQL of talent: filtered listing, full-text search (one interface, FTS5 on SQLite and
tsvector on PostgreSQL), rate cards, demos, the derived search rows, and campaign matching.
Creators are platform data: no owner filter."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import (
    ColumnElement,
    Double,
    Select,
    and_,
    bindparam,
    case,
    cast,
    column,
    delete,
    exists,
    false,
    func,
    insert,
    literal_column,
    null,
    or_,
    select,
    table,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import InstrumentedAttribute, Session

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
    """A correlated lookup of the tag's primary key per creator: listings walk an index of
    their order (ix_creator_created, ix_creator_rank) and stop at the page's end, rather than
    first gathering every creator holding a common tag (`IN (…)`: far slower, see
    docs/calibration.md, "Talent search: tag filters")."""
    return exists().where(CreatorTag.tag == value, CreatorTag.creator_id == Creator.id)


_AnySelect = TypeVar("_AnySelect", bound=Select[*tuple[Any, ...]])


def _filtered(stmt: _AnySelect, filters: TalentFilters) -> _AnySelect:
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


@dataclass(frozen=True)
class Rank:
    """A creator's place in search order: text relevance (with `q` only, higher first), then
    verified first, then rating (higher first, unrated last), then `creator_id` (ascending)."""

    creator_id: str
    score: float | None
    verified: bool
    rating: float | None


@dataclass(frozen=True)
class _Key:
    """One column of the search order, with the cursor's value of it."""

    column: ColumnElement[Any] | InstrumentedAttribute[Any]
    value: Any
    descending: bool
    nullable: bool = False  # NULLs sort last (after every value) in the forward order


def _beyond(key: _Key, backward: bool) -> ColumnElement[bool]:
    """Rows strictly past the cursor's value on this column, in the direction of travel."""
    col, value = key.column, key.value
    if value is None:  # only nullable columns, whose NULLs come last going forward
        return col.is_not(None) if backward else false()
    lower = key.descending != backward  # past the cursor means a lower value
    past: ColumnElement[bool]
    if isinstance(value, bool):  # SQL has no `<` between booleans: false < true, by hand
        # Lower than true is false, higher than false is true; nothing else is past.
        past = col.is_(not value) if value == lower else false()
    else:
        past = col < value if lower else col > value
    return or_(past, col.is_(None)) if key.nullable and not backward else past


def _equal(key: _Key) -> ColumnElement[bool]:
    if key.value is None or isinstance(key.value, bool):
        return key.column.is_(key.value)
    equal: ColumnElement[bool] = key.column == key.value
    return equal


def _after(keys: Sequence[_Key], backward: bool) -> ColumnElement[bool]:
    """Keyset condition: rows that come after the cursor (before it when `backward`)."""
    return or_(
        *(
            and_(*(_equal(k) for k in keys[:n]), _beyond(keys[n], backward))
            for n in range(len(keys))
        )
    )


def _order(keys: Sequence[_Key], backward: bool) -> list[ColumnElement[Any]]:
    order: list[ColumnElement[Any]] = []
    for key in keys:
        descending = key.descending != backward
        clause = key.column.desc() if descending else key.column.asc()
        if key.nullable:
            clause = clause.nulls_last() if not backward else clause.nulls_first()
        order.append(clause)
    return order


def search_statement(
    dialect: str,
    terms: Sequence[str] | None,
    filters: TalentFilters,
    limit: int,
    cursor: Rank | None = None,
    *,
    backward: bool = False,
    only: str | None = None,
) -> Select[*tuple[Any, ...]]:
    """(creator_id, score, verified, rating) of the creators matching the filters and, with
    `terms`, every term, in search order (`Rank`), from just past `cursor` (before it, nearest
    first, when `backward`); `only` restricts it to one creator (a cursor's own rank).

    Without terms the filters are tag equalities (`creator_tag`) and the order is served by
    the index `ix_creator_rank`. With terms, the filters are tag words in the same full-text
    index, so the index intersects them with the terms; the score is FTS5's bm25 or
    PostgreSQL's ts_rank, weighted by column. Terms are folded words (text.query_terms) and
    tags hex words: neither FTS5's query syntax nor tsquery's can be injected."""
    score: ColumnElement[Any] | None = None
    stmt: Select[*tuple[Any, ...]]
    if not terms:
        stmt = _filtered(select(Creator.id, null().label("score")), filters)
    elif dialect == "sqlite":
        words = [*terms, *filters.tokens()]
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
            .subquery("ranked")
        )
        score = ranked.c.score
        stmt = (
            select(Creator.id, score)
            .select_from(ranked)
            .join(CreatorSearch, CreatorSearch.id == ranked.c.rowid)
            .join(Creator, Creator.id == CreatorSearch.creator_id)
        )
    elif dialect == "postgresql":
        words = [*terms, *filters.tokens()]
        query = func.plainto_tsquery(
            literal_column("'simple'::regconfig"), bindparam("words", " ".join(words))
        )
        # ts_rank is a float4, which PostgreSQL writes rounded: as a double its value reads back
        # exactly, so that a cursor's score compares equal to itself.
        score = cast(func.ts_rank(literal_column(TS_RANK_WEIGHTS), _document, query), Double)
        stmt = (
            select(Creator.id, score.label("score"))
            .select_from(CreatorSearch)
            .join(Creator, Creator.id == CreatorSearch.creator_id)
            .where(_document.op("@@")(query))
        )
    else:
        raise NotImplementedError(f"full-text search on {dialect}")
    stmt = stmt.add_columns(Creator.verified, Creator.rating)
    if only is not None:
        stmt = stmt.where(Creator.id == only)
    keys = [
        *([_Key(score, cursor and cursor.score, True)] if score is not None else []),
        _Key(Creator.verified, cursor and cursor.verified, True),
        _Key(Creator.rating, cursor and cursor.rating, True, nullable=True),
        _Key(Creator.id, cursor and cursor.creator_id, False),
    ]
    if cursor is not None:
        stmt = stmt.where(_after(keys, backward))
    return stmt.order_by(*_order(keys, backward)).limit(limit)


def search(
    session: Session,
    terms: Sequence[str] | None,
    filters: TalentFilters,
    limit: int,
    cursor: Rank | None = None,
    *,
    backward: bool = False,
) -> list[Rank]:
    """The creators of a search page in search order (nearest the cursor first when
    `backward`)."""
    dialect = session.get_bind().dialect.name
    stmt = search_statement(dialect, terms, filters, limit, cursor, backward=backward)
    return [_rank(row) for row in session.execute(stmt)]


def rank_of(
    session: Session, terms: Sequence[str] | None, filters: TalentFilters, creator_id: str
) -> Rank | None:
    """A creator's place in a search, None unless the creator matches it."""
    dialect = session.get_bind().dialect.name
    stmt = search_statement(dialect, terms, filters, 1, only=creator_id)
    row = session.execute(stmt).first()
    return _rank(row) if row is not None else None


def _rank(row: Any) -> Rank:
    creator_id, score, verified, rating = row
    return Rank(
        creator_id=str(creator_id),
        score=float(score) if score is not None else None,
        verified=bool(verified),
        rating=float(rating) if rating is not None else None,
    )


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
