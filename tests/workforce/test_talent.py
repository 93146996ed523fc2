"""Talent over HTTP: the demo catalog, discovery with each filter alone and combined
(language variants included) and cursor pagination, creator profiles, and search by criteria
alone or with full text, ranked (relevance, verified, rating, id), with its cursors, on the
database at hand."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Select, func, select, text
from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.models import Creator, CreatorSearch, Voice
from soundstage.workforce.talent import repository
from soundstage.workforce.talent.catalog import TalentCounts, upsert_talent
from soundstage.workforce.talent.demo import build_demo_talent, load_demo_talent
from soundstage.workforce.talent.repository import TalentFilters
from tests.support.api import assert_error, every_page
from tests.support.factories import Customer, add_talent, create_talent, profile, unique_word

pytestmark = pytest.mark.services

Predicate = Callable[[dict[str, Any]], bool]


def speaks(prefix: str) -> Predicate:
    prefix = prefix.lower()
    return lambda c: any(
        t.lower() == prefix or t.lower().startswith(prefix + "-") for t in c["languages"]
    )


def test_the_demo_catalog_is_hundreds_of_talents_with_every_voice_owner(
    db: Database, talent_catalog: TalentCounts
) -> None:
    with db.read_session() as session:
        demo = build_demo_talent(session)
        assert len(demo) >= 300
        assert build_demo_talent(session) == demo  # deterministic
        owners = set(session.scalars(select(Voice.creator_id).where(Voice.is_active.is_(True))))
        profiled = {p.creator_id for p in demo}
        assert owners <= profiled
        for creator in session.scalars(select(Creator).where(Creator.id.in_(owners))):
            assert creator.roles
            assert creator.genres
            assert creator.vocal_styles
        unindexed = select(func.count()).where(Creator.id.not_in(select(CreatorSearch.creator_id)))
        assert session.scalar(unindexed) == 0
    with db.session() as session:
        again = load_demo_talent(session)
    assert again == TalentCounts(created=0, updated=0, unchanged=len(demo))


def test_the_full_text_index_is_the_databases_own(db: Database) -> None:
    with db.engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            names = set(conn.scalars(text("SELECT name FROM sqlite_master")))
            assert {"creator_fts", "creator_search_ai", "creator_search_au"} <= names
        else:
            kind = conn.scalar(
                text(
                    "SELECT data_type FROM information_schema.columns "
                    "WHERE table_name = 'creator_search' AND column_name = 'document'"
                )
            )
            assert kind == "tsvector"
            index = conn.scalar(
                text(
                    "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_creator_search_document'"
                )
            )
            assert "gin" in index.lower()


@pytest.fixture(scope="module")
def everyone(
    client: TestClient, db: Database, talent_catalog: TalentCounts
) -> list[dict[str, Any]]:
    from tests.support.factories import create_customer, verify_buyer

    reader = verify_buyer(db, create_customer(db), "sandbox")
    return list(every_page(client, reader, "/api/v1/workforce/discover"))


FILTERS: list[tuple[str, Predicate]] = [
    ("genre=audiobook", lambda c: "audiobook" in c["genres"]),
    ("role=narrator", lambda c: "narrator" in c["roles"]),
    ("language=es", speaks("es")),
    ("verified=true", lambda c: c["verified"]),
    ("verified=false", lambda c: True),
    (
        "genre=gaming&role=voice_actor",
        lambda c: "gaming" in c["genres"] and "voice_actor" in c["roles"],
    ),
    (
        "genre=commercial&language=en&role=announcer&verified=true",
        lambda c: (
            "commercial" in c["genres"]
            and speaks("en")(c)
            and "announcer" in c["roles"]
            and c["verified"]
        ),
    ),
]


@pytest.mark.parametrize(("query", "predicate"), FILTERS, ids=[q for q, _ in FILTERS])
def test_discover_filters_alone_and_combined(
    client: TestClient,
    buyer: Customer,
    everyone: list[dict[str, Any]],
    query: str,
    predicate: Predicate,
) -> None:
    found = [
        c["creator_id"] for c in every_page(client, buyer, f"/api/v1/workforce/discover?{query}")
    ]
    expected = [c["creator_id"] for c in everyone if predicate(c)]
    assert found
    assert found == expected


@pytest.mark.parametrize(
    ("language", "predicate"),
    [
        ("en", speaks("en")),
        ("EN", speaks("en")),
        ("en-GB", speaks("en-gb")),
        ("en-gb", speaks("en-gb")),
        ("es-MX", speaks("es-mx")),
    ],
)
def test_a_base_language_finds_its_regional_variants(
    client: TestClient,
    buyer: Customer,
    everyone: list[dict[str, Any]],
    language: str,
    predicate: Predicate,
) -> None:
    found = list(every_page(client, buyer, f"/api/v1/workforce/discover?language={language}"))
    assert [c["creator_id"] for c in found] == [c["creator_id"] for c in everyone if predicate(c)]
    tags = {t for c in found for t in c["languages"]}
    if language.lower() == "en":
        assert {"en-US", "en-GB"} <= tags
    else:
        assert {t.lower() for t in tags if t.lower().startswith(language.lower()[:2])} == {
            language.lower()
        }


def test_discover_pages_with_cursors(
    client: TestClient, buyer: Customer, everyone: list[dict[str, Any]]
) -> None:
    auth = buyer.auth()
    first = client.get("/api/v1/workforce/discover?limit=7", headers=auth).json()
    second = client.get(
        f"/api/v1/workforce/discover?limit=7&starting_after={first['data'][-1]['creator_id']}",
        headers=auth,
    ).json()
    ids = [c["creator_id"] for c in first["data"] + second["data"]]
    assert ids == [c["creator_id"] for c in everyone[:14]]
    assert first["has_more"]
    assert second["has_more"]
    back = client.get(
        f"/api/v1/workforce/discover?limit=7&ending_before={second['data'][0]['creator_id']}",
        headers=auth,
    ).json()
    assert [c["creator_id"] for c in back["data"]] == ids[:7]
    for limit, status in ((1, 200), (100, 200), (0, 422), (101, 422)):
        response = client.get(f"/api/v1/workforce/discover?limit={limit}", headers=auth)
        assert response.status_code == status


@pytest.mark.parametrize(
    ("query", "param"),
    [("genre=jazz", "genre"), ("role=singer", "role"), ("language=e", "language"),
     ("language=en_US", "language"), ("verified=maybe", "verified"),
     ("language=%EF%BD%85%EF%BD%8E", "language")],
)  # fmt: skip
def test_bad_discover_filters_are_422_naming_them(
    client: TestClient, buyer: Customer, query: str, param: str
) -> None:
    response = client.get(f"/api/v1/workforce/discover?{query}", headers=buyer.auth())
    assert assert_error(response, 422, "parameter_invalid")["param"] == param


def test_a_creator_profile_has_rates_voices_and_signed_demos(
    client: TestClient, buyer: Customer, settings: Settings
) -> None:
    response = client.get("/api/v1/workforce/creators/cr_alan", headers=buyer.auth())
    assert response.status_code == 200, response.text
    alan = response.json()
    assert alan["object"] == "creator"
    assert alan["voice_ids"] == ["voice_alan"]
    assert alan["accents"] == ["Scottish"]
    assert alan["languages"] == ["en-GB"]
    assert alan["verified"] is True
    assert alan["currency"] == "USD"
    usages = [r["usage_type"] for r in alan["rate_card"]]
    assert usages == sorted(usages)
    assert {"internet", "non_broadcast"} <= set(usages)
    assert all(
        r["base_fee_cents"] >= 100 and r["base_fee_cents"] % 500 == 0 for r in alan["rate_card"]
    )
    demo = alan["demos"][0]
    assert demo["voice_id"] == "voice_alan"
    assert demo["url"].startswith(f"{settings.public_base_url}/demos/{demo['demo_id']}/")
    assert "expires=" in demo["url"]
    assert "signature=" in demo["url"]
    missing = client.get("/api/v1/workforce/creators/cr_nobody", headers=buyer.auth())
    assert assert_error(missing, 404, "creator_not_found")["param"] == "creator_id"


def search(client: TestClient, buyer: Customer, query: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/workforce/search?{query}", headers=buyer.auth())
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["object"] == "list"
    assert set(body) == {"object", "data", "has_more"}
    return body


def ids_of(body: dict[str, Any]) -> list[str]:
    return [c["creator_id"] for c in body["data"]]


def test_search_ranks_a_name_then_an_attribute_match_above_a_bio_mention(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    word = unique_word()
    filler = " ".join(["She reads long novels, recipes and product tours."] * 4)
    in_bio, as_accent, in_name, as_style = add_talent(
        db,
        profile(bio=f"{filler} Her grandmother was {word}."),
        profile(accents=[word.capitalize()]),
        profile(display_name=f"Mara {word.capitalize()}"),
        profile(vocal_styles=["warm", word]),
    )
    ranked = ids_of(search(client, buyer, f"q={word}"))
    assert ranked[0] == in_name
    assert set(ranked[1:3]) == {as_accent, as_style}
    assert ranked[3] == in_bio
    assert len(ranked) == 4


def test_every_word_must_match_ignoring_case_and_accents(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    first, second = unique_word(), unique_word()
    both, one = add_talent(
        db,
        profile(bio=f"Known for {first} reads and {second.upper()} promos."),
        profile(bio=f"Known for {first} reads."),
    )
    assert set(ids_of(search(client, buyer, f"q={first}"))) == {both, one}
    assert ids_of(search(client, buyer, f"q={first.upper()}+{second}")) == [both]
    accented = create_talent(db, bio=f"Voice of {first[:4]}é{first[4:]}.")
    assert ids_of(search(client, buyer, f"q={first[:4]}E{first[4:]}")) == [accented]


def test_search_finds_roles_genres_and_language_names(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    word = unique_word()
    narrator = add_talent(
        db, profile(bio=word, roles=["narrator"], genres=["audiobook"], languages=["es-MX"])
    )[0]
    for q in ("narrator", "audiobook", "spanish", "es+mx"):
        assert ids_of(search(client, buyer, f"q={word}+{q}")) == [narrator], q


def test_search_filters_alone_and_combined(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    word = unique_word()
    base, male, scot, senior, narrator, unverified, british = add_talent(
        db,
        profile(bio=word),
        profile(bio=word, gender="male"),
        profile(bio=word, accents=["Scottish"], languages=["en-GB"]),
        profile(bio=word, age_range="senior"),
        profile(bio=word, roles=["narrator"], genres=["audiobook"]),
        profile(bio=word, verified=False),
        profile(bio=word, languages=["en-GB"], gender="male", age_range="senior"),
    )
    everyone = {base, male, scot, senior, narrator, unverified, british}
    cases = {
        "": everyone,
        "gender=male": {male, british},
        "accent=scottish": {scot},
        "accent=Scottish": {scot},
        "age_range=senior": {senior, british},
        "role=narrator": {narrator},
        "genre=audiobook": {narrator},
        "verified=true": everyone - {unverified},
        "language=en-GB": {scot, british},
        "language=en": everyone,
        "gender=male&age_range=senior&language=en-gb": {british},
        "gender=female&accent=scottish&verified=true": {scot},
        "gender=non_binary": set(),
    }
    for query, expected in cases.items():
        assert set(ids_of(search(client, buyer, f"q={word}&{query}"))) == expected, query


def rank_key(creator: dict[str, Any]) -> tuple[Any, ...]:
    """Search's order without `q`: verified first, then rating (unrated last), then id."""
    rating = creator["rating"]
    return (not creator["verified"], rating is None, -(rating or 0), creator["creator_id"])


def test_criteria_alone_search_ranked_verified_then_rating_then_id(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    accent = unique_word()
    ids = add_talent(
        db,
        profile(creator_id=f"cr_test_{accent}_a", accents=[accent], verified=False, rating=5.0),
        profile(creator_id=f"cr_test_{accent}_b", accents=[accent], rating=None),
        profile(creator_id=f"cr_test_{accent}_c", accents=[accent], rating=4.0),
        profile(creator_id=f"cr_test_{accent}_d", accents=[accent], rating=4.9),
        profile(creator_id=f"cr_test_{accent}_e", accents=[accent], rating=4.9),
        profile(creator_id=f"cr_test_{accent}_f", accents=[accent], verified=False, rating=None),
        profile(creator_id=f"cr_test_{accent}_g", accents=[accent], verified=False, rating=1.0),
    )
    a, b, c, d, e, f, g = ids
    body = search(client, buyer, f"accent={accent}")
    assert ids_of(body) == [d, e, c, b, a, g, f]
    assert not body["has_more"]
    assert all(hit["relevance"] is None for hit in body["data"])
    assert ids_of(search(client, buyer, f"accent={accent}&verified=true")) == [d, e, c, b]
    assert ids_of(search(client, buyer, f"accent={accent}&verified=false")) == [d, e, c, b, a, g, f]


def test_search_by_role_and_language_alone_covers_the_catalog_in_rank_order(
    client: TestClient, buyer: Customer, talent_catalog: TalentCounts
) -> None:
    found = list(every_page(client, buyer, "/api/v1/workforce/search?role=narrator&language=en"))
    discovered = every_page(client, buyer, "/api/v1/workforce/discover?role=narrator&language=en")
    expected = sorted(discovered, key=rank_key)
    assert len(found) > 20
    assert [c["creator_id"] for c in found] == [c["creator_id"] for c in expected]
    assert all("narrator" in c["roles"] and speaks("en")(c) for c in found)


def test_search_without_criteria_ranks_every_creator(
    client: TestClient, buyer: Customer, talent_catalog: TalentCounts
) -> None:
    found = [c["creator_id"] for c in every_page(client, buyer, "/api/v1/workforce/search")]
    everyone = sorted(every_page(client, buyer, "/api/v1/workforce/discover"), key=rank_key)
    assert found == [c["creator_id"] for c in everyone]


def test_text_relevance_comes_before_verified_and_rating(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    word = unique_word()
    in_name, low, high, unrated = add_talent(
        db,
        profile(display_name=f"Ann {word}", verified=False, rating=1.0),
        profile(bio=f"Known for {word} reads.", rating=3.0),
        profile(bio=f"Known for {word} reads.", rating=4.5),
        profile(bio=f"Known for {word} reads.", rating=None),
    )
    body = search(client, buyer, f"q={word}")
    # The name match first though unverified and low rated; equal text matches by rating.
    assert ids_of(body) == [in_name, high, low, unrated]
    relevance = [hit["relevance"] for hit in body["data"]]
    assert relevance[0] > relevance[1]
    assert len(set(relevance[1:])) == 1
    # Criteria narrow a text search.
    assert ids_of(search(client, buyer, f"q={word}&verified=true")) == [high, low, unrated]
    assert ids_of(search(client, buyer, f"q={word}&role=narrator")) == []


@pytest.mark.parametrize("with_text", [False, True], ids=["criteria", "text"])
def test_search_pages_with_cursors_through_ties(
    client: TestClient, db: Database, buyer: Customer, with_text: bool
) -> None:
    """Pages of 2 follow `starting_after` forward and `ending_before` back through creators
    whose relevance, verification and rating tie (the id breaks them), the same as one page."""
    word = unique_word()
    ratings = [4.0, 4.0, None, 4.0, 3.0, None, 5.0]
    add_talent(
        db,
        *(
            profile(accents=[word], bio=f"Known for {word}.", rating=r, verified=n % 3 != 0)
            for n, r in enumerate(ratings)
        ),
    )
    query = f"q={word}" if with_text else f"accent={word}"
    whole = ids_of(search(client, buyer, f"{query}&limit=100"))
    assert len(whole) == len(ratings)
    pages, cursor = [], ""
    for _ in range(len(ratings)):
        body = search(client, buyer, f"{query}&limit=2{cursor}")
        pages.append(ids_of(body))
        if not body["has_more"]:
            break
        cursor = f"&starting_after={pages[-1][-1]}"
    assert [len(p) for p in pages] == [2, 2, 2, 1]
    assert [i for p in pages for i in p] == whole
    back = search(client, buyer, f"{query}&limit=2&ending_before={whole[4]}")
    assert ids_of(back) == whole[2:4]
    assert back["has_more"]
    first = search(client, buyer, f"{query}&limit=2&ending_before={whole[2]}")
    assert ids_of(first) == whole[:2]
    assert not first["has_more"]


def test_a_cursor_outside_the_search_is_404(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    word = unique_word()
    inside, outside = add_talent(db, profile(accents=[word]), profile(accents=["Welsh"]))
    assert ids_of(search(client, buyer, f"accent={word}&starting_after={inside}")) == []
    for cursor in ("starting_after", "ending_before"):
        for creator_id in (outside, "cr_nobody"):
            response = client.get(
                f"/api/v1/workforce/search?accent={word}&{cursor}={creator_id}",
                headers=buyer.auth(),
            )
            assert assert_error(response, 404, "creator_not_found")["param"] == cursor


@pytest.mark.parametrize(
    ("query", "param"),
    [("q=", "q"), ("q=%21%21%21", "q"), (f"q={'a' * 201}", "q"), ("limit=0", "limit"),
     ("q=x&limit=101", "limit"), ("gender=robot", "gender"), ("age_range=old", "age_range"),
     ("role=singer", "role"), ("genre=jazz", "genre"), ("language=e", "language"),
     ("verified=maybe", "verified"), ("accent=", "accent"), (f"accent={'a' * 101}", "accent"),
     ("starting_after=", "starting_after"), (f"starting_after={'a' * 65}", "starting_after"),
     ("starting_after=cr_a&ending_before=cr_b", "ending_before"), ("rol=narrator", "rol"),
     ("page=bm9wZQ", "page")],
)  # fmt: skip
def test_bad_search_parameters_are_422_naming_them(
    client: TestClient, buyer: Customer, query: str, param: str
) -> None:
    response = client.get(f"/api/v1/workforce/search?{query}", headers=buyer.auth())
    assert response.status_code == 422, response.text
    assert response.json()["error"]["param"] == param


def test_search_bounds_inside_are_accepted(client: TestClient, buyer: Customer) -> None:
    every_parameter = (
        "q=a&role=narrator&genre=audiobook&language=en&verified=true&gender=female"
        "&accent=scottish&age_range=senior&limit=5"
    )
    queries = (f"q={'a' * 200}", "q=a&limit=1", "limit=100", f"accent={'a' * 100}", "accent=a")
    for query in (*queries, every_parameter):
        assert (
            client.get(f"/api/v1/workforce/search?{query}", headers=buyer.auth()).status_code == 200
        )


def test_the_index_follows_a_changed_profile(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    before, after = unique_word(), unique_word()
    changed = profile(bio=f"Famous for {before}.")
    add_talent(db, changed)
    assert ids_of(search(client, buyer, f"q={before}")) == [changed.creator_id]
    with db.session() as session:
        counts = upsert_talent(
            session, [changed.model_copy(update={"bio": f"Famous for {after}.", "roles": ["host"]})]
        )
    assert counts == TalentCounts(created=0, updated=1, unchanged=0)
    assert ids_of(search(client, buyer, f"q={before}")) == []
    assert ids_of(search(client, buyer, f"q={after}&role=host")) == [changed.creator_id]
    assert ids_of(search(client, buyer, f"q={after}&role=voice_actor")) == []


def test_creators_written_by_anyone_are_indexed(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    """The voice catalog (or an operator) writes creators through the ORM, not the talent
    import: the index follows them all the same."""
    word, later = unique_word(), unique_word()
    creator_id = f"cr_test_{word}"
    with db.session() as session:
        session.add(
            Creator(
                id=creator_id,
                display_name=f"Orm {word}",
                languages=["pt-BR"],
                gender="female",
                created_at=utcnow(),
            )
        )
    assert ids_of(search(client, buyer, f"q={word}&language=pt&gender=female")) == [creator_id]
    found = every_page(client, buyer, "/api/v1/workforce/discover?language=pt-BR")
    assert creator_id in [c["creator_id"] for c in found]
    with db.session() as session:
        creator = session.get(Creator, creator_id)
        assert creator is not None
        creator.bio = f"Now known for {later}."
        creator.languages = ["de-DE"]
    assert ids_of(search(client, buyer, f"q={later}&language=de")) == [creator_id]
    assert ids_of(search(client, buyer, f"q={word}&language=pt")) == []


@pytest.mark.parametrize("root", ["soundstage.app", "soundstage.cli"])
def test_the_processes_that_write_creators_keep_the_index(root: str) -> None:
    """The index's listener is registered by importing the talent package; the voice catalog
    writes creators without importing it, so every composition root (the app; the CLI, which
    runs the server, the worker and the catalog commands) must import it."""
    check = f"import sys, {root}; assert 'soundstage.workforce.talent.indexing' in sys.modules"
    subprocess.run([sys.executable, "-c", check], check=True)


def assert_walks_index(session: Session, stmt: Select[Any], index: str) -> None:
    """The statement reads its rows in the order of `index`: no sort of every match first."""
    dialect = session.get_bind().dialect
    sql = str(stmt.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
    if dialect.name == "sqlite":
        plan = [row[-1] for row in session.execute(text(f"EXPLAIN QUERY PLAN {sql}"))]
        assert any(index in line for line in plan), plan
        assert not any("TEMP B-TREE FOR ORDER BY" in line for line in plan), plan
    else:
        session.execute(text("SET LOCAL enable_seqscan = off"))
        plan = [row[0] for row in session.execute(text(f"EXPLAIN {sql}"))]
        assert any(index in line for line in plan), plan
        assert not any(line.strip().startswith("Sort") for line in plan), plan


def test_discovery_reads_creators_in_index_order(db: Database, talent_catalog: object) -> None:
    """Discovery's order (created_at, id, newest first) is served by ix_creator_created."""
    stmt = (
        repository.creators_query(TalentFilters())
        .order_by(Creator.created_at.desc(), Creator.id.desc())
        .limit(21)
    )
    with db.session() as session:
        assert_walks_index(session, stmt, "ix_creator_created")


@pytest.mark.parametrize("cursor", [False, True], ids=["first", "next"])
def test_search_without_text_reads_creators_in_rank_order(
    db: Database, talent_catalog: object, cursor: bool
) -> None:
    """Search's order without `q` (verified, rating, id), past a cursor too, is served by
    ix_creator_rank."""
    with db.session() as session:
        after = repository.rank_of(session, None, TalentFilters(), "cr_alan") if cursor else None
        dialect = session.get_bind().dialect.name
        stmt = repository.search_statement(dialect, None, TalentFilters(), 21, after)
        assert_walks_index(session, stmt, "ix_creator_rank")


def test_a_creator_whose_voice_is_retired_lists_no_dead_demo(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    suffix = unique_word()
    with db.session() as session:
        session.add(Creator(id=f"cr_voice_{suffix}", display_name="Owner", languages=["en-US"]))
        session.flush()
        session.add(
            Voice(
                id=f"voice_{suffix}", creator_id=f"cr_voice_{suffix}", name="Soon retired",
                language="en-US", gender="female", accent="American", engine="piper",
                engine_voice="en_US-amy-medium", created_at=utcnow(),
            )
        )  # fmt: skip
    demos = [
        {"title": "Own voice", "genre": "commercial", "script": "Hello.",
         "voice_id": f"voice_{suffix}"},
        {"title": "Sarah reads", "genre": "commercial", "script": "Hi.", "voice_id": "voice_sarah"},
    ]  # fmt: skip
    creator = create_talent(db, demos=demos)
    url = f"/api/v1/workforce/creators/{creator}"
    before = client.get(url, headers=buyer.auth()).json()
    assert [d["title"] for d in before["demos"]] == ["Own voice", "Sarah reads"]
    with db.session() as session:
        retired = session.get(Voice, f"voice_{suffix}")
        assert retired is not None
        retired.is_active = False
    response = client.get(url, headers=buyer.auth())
    assert response.status_code == 200, response.text
    assert [d["title"] for d in response.json()["demos"]] == ["Sarah reads"]
