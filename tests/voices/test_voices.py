"""The voice catalog over HTTP: the demo catalog loaded by the service and the CLI, listing
with language, gender and cursor pagination, one voice, and the 404 of an unknown one."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.ids import random_token
from soundstage.core.timeutil import utcnow
from soundstage.engines.tts.base import EngineVoice
from soundstage.engines.tts.registry import all_voices
from soundstage.models import Creator, Voice
from soundstage.studios.demo import DEMO_STUDIOS
from soundstage.voices import service as voices
from soundstage.voices.demo import build_demo_catalog, load_demo_catalog
from soundstage.voices.errors import VoiceNotFound
from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error, every_page
from tests.support.factories import Customer, create_customer
from tests.support.processes import REPO_ROOT, settings_env

pytestmark = pytest.mark.services

ENGLISH_IDS = {
    "voice_joe": ("piper", "en_US-joe-medium", "en-US", "male"),
    "voice_sally": ("festival", "cmu_us_slt_arctic_hts", "en-US", "female"),
    "voice_kal": ("festival", "kal_diphone", "en-US", "male"),
    "voice_alan": ("flite", "awb", "en-GB", "male"),
    "voice_richard": ("flite", "rms", "en-US", "male"),
    "voice_sarah": ("flite", "slt", "en-US", "female"),
}
VOICE_FIELDS = {
    "object",
    "voice_id",
    "name",
    "description",
    "language",
    "gender",
    "accent",
    "engine",
    "creator",
    "preview_url",
    "quality",
    "created_at",
}


@pytest.fixture(scope="module")
def reader(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db)


def add_voice(db: Database, name: str, *, active: bool) -> str:
    """A new English voice (with its creator) of engine `test`, the newest of all; its id."""
    suffix = random_token(8).lower()
    with db.session() as session:
        session.add(Creator(id=f"cr_test_{suffix}", display_name=name, languages=["en-US"]))
        session.flush()
        session.add(
            Voice(
                id=f"voice_test_{suffix}",
                creator_id=f"cr_test_{suffix}",
                name=name,
                language="en-US",
                gender="female",
                accent="American",
                engine="test",
                engine_voice=suffix,
                is_active=active,
                created_at=utcnow(),
            )
        )
    return f"voice_test_{suffix}"


def every_voice(
    client: TestClient, customer: Customer, query: str = "", environment: str = "sandbox"
) -> list[dict[str, Any]]:
    response = client.get(f"/api/v1/voices?limit=100{query}", headers=customer.auth(environment))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["has_more"] is False  # the demo catalog fits in one page of 100
    return body["data"]  # type: ignore[no-any-return]


def test_the_demo_catalog_lists_the_english_voices_and_20_languages(
    client: TestClient, reader: Customer
) -> None:
    listed = every_voice(client, reader)
    by_id = {v["voice_id"]: v for v in listed}
    assert set(ENGLISH_IDS) <= set(by_id)
    for voice_id, (engine, _, language, gender) in ENGLISH_IDS.items():
        voice = by_id[voice_id]
        assert (voice["engine"], voice["language"], voice["gender"]) == (engine, language, gender)
    assert by_id["voice_alan"]["accent"] == "Scottish"
    assert by_id["voice_es_lucia"]["language"] == "es-ES"
    assert by_id["voice_es_lucia"]["name"] == "Lucía"
    languages = {v["language"].split("-")[0].lower() for v in listed}
    assert len(languages) >= 20
    assert sum(1 for v in listed if v["language"].lower().startswith("en-")) >= 6
    for voice in listed:
        assert set(voice) == VOICE_FIELDS
        assert voice["object"] == "voice"
        assert voice["preview_url"].endswith(f"/previews/{voice['voice_id']}.mp3")
        assert voice["creator"]["creator_id"].startswith("cr_")
        assert voice["creator"]["display_name"]
    # Newest first is the catalog's order, the engines' (piper ... espeak).
    ids = [v["voice_id"] for v in every_voice(client, reader, "&sort=newest")]
    assert ids.index("voice_joe") < ids.index("voice_alan") < ids.index("voice_es_lucia")
    assert sorted(ids) == sorted(v["voice_id"] for v in listed)


def test_by_default_each_language_lists_its_best_rated_voice_first(
    client: TestClient, db: Database, reader: Customer
) -> None:
    # A voice nobody rated yet, the newest of all: last of its language, not first.
    unrated = add_voice(db, "Unrated", active=True)
    try:
        listed = every_voice(client, reader)
        keys = [(v["language"].lower(), -(v["quality"] or {"mos": 0.0})["mos"]) for v in listed]
        assert keys == sorted(keys)
        english = [v["voice_id"] for v in every_voice(client, reader, "&language=en-US")]
        assert english[0] == "voice_joe"  # DistillMOS 4.41, the best measured
        assert english[-1] == unrated
        assert every_voice(client, reader, "&sort=newest")[0]["voice_id"] == unrated

        # The cursors walk that order both ways, a page at a time.
        ids = [v["voice_id"] for v in listed]
        pages = every_page(client, reader, "/api/v1/voices", key="voice_id", limit=4)
        assert [v["voice_id"] for v in pages] == ids
        for end in (5, len(ids) - 1):
            back = client.get(
                f"/api/v1/voices?limit=3&ending_before={ids[end]}", headers=reader.auth()
            ).json()
            assert [v["voice_id"] for v in back["data"]] == ids[end - 3 : end]
        refused = client.get("/api/v1/voices?sort=best", headers=reader.auth())
        assert assert_error(refused, 422, "parameter_invalid")["param"] == "sort"
    finally:
        with db.session() as session:
            session.query(Voice).filter(Voice.id == unrated).delete()
            session.query(Creator).filter(Creator.id == unrated.replace("voice_", "cr_")).delete()


def test_every_account_sees_the_same_catalog_in_both_environments(
    client: TestClient, db: Database, reader: Customer
) -> None:
    other = create_customer(db)
    seen = [
        [v["voice_id"] for v in every_voice(client, who, environment=environment)]
        for who in (reader, other)
        for environment in ("sandbox", "production")
    ]
    assert all(ids == seen[0] for ids in seen)


def test_a_key_is_required(client: TestClient, demo_catalog: CatalogCounts) -> None:
    assert_error(client.get("/api/v1/voices"), 401, "missing_api_key")
    assert_error(client.get("/api/v1/voices/voice_joe"), 401, "missing_api_key")


def test_a_base_language_tag_finds_its_regional_variants(
    client: TestClient, reader: Customer
) -> None:
    english = every_voice(client, reader, "&language=en")
    assert set(ENGLISH_IDS) <= {v["voice_id"] for v in english}
    assert all(v["language"].lower().startswith("en-") for v in english)
    assert {v["language"] for v in english} >= {"en-US", "en-GB"}
    assert [v["voice_id"] for v in every_voice(client, reader, "&language=EN")] == [
        v["voice_id"] for v in english
    ]
    spanish = every_voice(client, reader, "&language=es")
    assert "voice_es_lucia" in {v["voice_id"] for v in spanish}
    assert all(v["language"].lower().split("-")[0] == "es" for v in spanish)


def test_a_full_language_tag_finds_that_variant_only(client: TestClient, reader: Customer) -> None:
    british = every_voice(client, reader, "&language=en-GB")
    assert "voice_alan" in {v["voice_id"] for v in british}
    assert {v["language"] for v in british} == {"en-GB"}
    american = every_voice(client, reader, "&language=en-us")
    assert {"voice_joe", "voice_sarah"} <= {v["voice_id"] for v in american}
    assert {v["language"] for v in american} == {"en-US"}
    # A tag is matched by whole subtags: `e` is no prefix of `en`, `en-U` none of `en-US`.
    assert every_voice(client, reader, "&language=en-U") == []
    assert every_voice(client, reader, "&language=xx") == []


def test_a_malformed_language_is_422(client: TestClient, reader: Customer) -> None:
    for bad in ("e", "en_US", "en-", "en%25", "x" * 36):
        response = client.get(f"/api/v1/voices?language={bad}", headers=reader.auth())
        assert assert_error(response, 422, "parameter_invalid")["param"] == "language"


def test_gender_filter(client: TestClient, reader: Customer) -> None:
    female = every_voice(client, reader, "&gender=female")
    male = every_voice(client, reader, "&gender=male")
    assert {"voice_sally", "voice_sarah", "voice_es_lucia"} <= {v["voice_id"] for v in female}
    assert {"voice_joe", "voice_alan"} <= {v["voice_id"] for v in male}
    assert all(v["gender"] == "female" for v in female)
    assert all(v["gender"] == "male" for v in male)
    assert len(female) + len(male) == len(every_voice(client, reader))
    both = every_voice(client, reader, "&gender=female&language=en")
    assert {v["voice_id"] for v in both} >= {"voice_sally", "voice_sarah"}
    assert all(v["gender"] == "female" and v["language"].startswith("en-") for v in both)
    response = client.get("/api/v1/voices?gender=robot", headers=reader.auth())
    assert assert_error(response, 422, "parameter_invalid")["param"] == "gender"


def test_cursor_pagination_walks_the_whole_catalog(client: TestClient, reader: Customer) -> None:
    ids = [v["voice_id"] for v in every_voice(client, reader)]
    seen: list[str] = []
    cursor = None
    while True:
        query = "limit=7" + (f"&starting_after={cursor}" if cursor else "")
        page = client.get(f"/api/v1/voices?{query}", headers=reader.auth()).json()
        assert page["object"] == "list"
        assert len(page["data"]) <= 7
        seen += [v["voice_id"] for v in page["data"]]
        if not page["has_more"]:
            break
        cursor = page["data"][-1]["voice_id"]
    assert seen == ids

    back = client.get(
        f"/api/v1/voices?limit=2&ending_before={ids[4]}", headers=reader.auth()
    ).json()
    assert ([v["voice_id"] for v in back["data"]], back["has_more"]) == (ids[2:4], True)

    english = [v["voice_id"] for v in every_voice(client, reader, "&language=en")]
    page = client.get(
        f"/api/v1/voices?language=en&limit=2&starting_after={english[1]}", headers=reader.auth()
    ).json()
    assert [v["voice_id"] for v in page["data"]] == english[2:4]

    response = client.get("/api/v1/voices?starting_after=voice_nobody", headers=reader.auth())
    assert assert_error(response, 404, "voice_not_found")["param"] == "starting_after"


@pytest.mark.parametrize(("limit", "status"), [(0, 422), (1, 200), (100, 200), (101, 422)])
def test_limit_bounds(client: TestClient, reader: Customer, limit: int, status: int) -> None:
    response = client.get(f"/api/v1/voices?limit={limit}", headers=reader.auth())
    if status == 200:
        assert response.status_code == 200, response.text
        assert len(response.json()["data"]) == min(limit, len(every_voice(client, reader)))
    else:
        assert assert_error(response, 422, "parameter_invalid")["param"] == "limit"


def test_default_limit_is_20(client: TestClient, reader: Customer) -> None:
    page = client.get("/api/v1/voices", headers=reader.auth()).json()
    assert len(page["data"]) == 20
    assert page["has_more"] is True


def test_one_voice(client: TestClient, reader: Customer) -> None:
    response = client.get("/api/v1/voices/voice_joe", headers=reader.auth("production"))
    assert response.status_code == 200, response.text
    joe = response.json()
    assert set(joe) == VOICE_FIELDS
    assert joe["voice_id"] == "voice_joe"
    assert joe["name"] == "Joe"
    assert (joe["language"], joe["gender"], joe["accent"]) == ("en-US", "male", "American")
    assert joe["engine"] == "piper"
    assert joe["creator"] == {"creator_id": "cr_joe", "display_name": "Joe Whitaker"}
    assert joe["preview_url"] == "http://127.0.0.1:8000/previews/voice_joe.mp3"
    assert "narrator" in joe["description"]
    listed = {v["voice_id"]: v for v in every_voice(client, reader)}
    assert listed["voice_joe"] == joe

    lucia = client.get("/api/v1/voices/voice_es_lucia", headers=reader.auth()).json()
    assert lucia["creator"]["creator_id"] == "cr_es_lucia"
    assert (lucia["language"], lucia["gender"], lucia["engine"]) == ("es-ES", "female", "espeak")


def test_an_unknown_voice_is_404(client: TestClient, reader: Customer) -> None:
    response = client.get("/api/v1/voices/voice_nobody", headers=reader.auth())
    error = assert_error(response, 404, "voice_not_found")
    assert error["param"] == "voice_id"
    assert error["type"] == "invalid_request_error"


def test_a_retired_voice_is_neither_listed_nor_usable(
    client: TestClient, db: Database, reader: Customer
) -> None:
    retired = add_voice(db, "Retired", active=False)
    suffix = retired.removeprefix("voice_test_")
    response = client.get(f"/api/v1/voices/voice_test_{suffix}", headers=reader.auth())
    assert assert_error(response, 404, "voice_not_found")["param"] == "voice_id"
    assert f"voice_test_{suffix}" not in {v["voice_id"] for v in every_voice(client, reader)}
    with db.read_session() as session:
        with pytest.raises(VoiceNotFound):
            voices.get_active_voice(session, f"voice_test_{suffix}")
        assert voices.get_active_voice(session, "voice_joe").engine_voice == "en_US-joe-medium"


def catalog_rows(db: Database) -> list[tuple[Any, ...]]:
    with db.read_session() as session:
        voice_rows = session.execute(
            select(Voice.id, Voice.creator_id, Voice.name, Voice.engine_voice, Voice.created_at)
        )
        creator_rows = session.execute(select(Creator.id, Creator.display_name, Creator.bio))
        return sorted(map(tuple, voice_rows)) + sorted(map(tuple, creator_rows))


def test_loading_again_changes_nothing(db: Database, demo_catalog: CatalogCounts) -> None:
    before = catalog_rows(db)
    demo = len(all_voices())
    assert demo >= 26
    for _ in range(2):
        with db.session() as session:
            counts = load_demo_catalog(session)
        assert counts == CatalogCounts(0, 0, demo, 0, 0, demo)
        assert catalog_rows(db) == before


def test_loading_again_restores_an_edited_voice_and_keeps_its_state(db: Database) -> None:
    with db.session() as session:
        joe = voices.get_active_voice(session, "voice_joe")
        created_at = joe.created_at
        joe.name = "Joseph"
        joe.settings = {"speed": 2.0}
    with db.session() as session:
        counts = load_demo_catalog(session)
    assert (counts.voices_updated, counts.voices_created, counts.creators_updated) == (1, 0, 0)
    with db.read_session() as session:
        joe = voices.get_active_voice(session, "voice_joe")
        assert (joe.name, joe.settings, joe.created_at) == ("Joe", {}, created_at)


def test_an_engine_voice_keeps_its_id_when_another_takes_its_name() -> None:
    alan = EngineVoice("flite", "awb", "en-GB", "male", "Scottish", "Alan")
    other_alan = EngineVoice("piper", "en_GB-alan-medium", "en-GB", "male", "British", "Alan")
    lucia = EngineVoice("espeak", "es+f3", "es-ES", "female", "Castilian", "Lucía")
    _, first = build_demo_catalog([alan, lucia], {})
    assert [v.id for v in first] == ["voice_alan", "voice_es_lucia"]
    assigned = {(v.engine, v.engine_voice): v.id for v in first}
    # The newcomer is listed first (piper is the better engine) but cannot take the id.
    creators, later = build_demo_catalog([other_alan, alan, lucia], assigned)
    assert [v.id for v in later] == [
        "voice_piper_en_gb_alan_medium",
        "voice_alan",
        "voice_es_lucia",
    ]
    assert [c.id for c in creators] == ["cr_piper_en_gb_alan_medium", "cr_alan", "cr_es_lucia"]
    assert [v.creator_id for v in later] == [c.id for c in creators]
    # Without history, the first comer takes the readable id.
    _, fresh = build_demo_catalog([other_alan, alan], {})
    assert [v.id for v in fresh] == ["voice_alan", "voice_flite_awb"]


def test_ids_are_ascii_and_fit_their_column() -> None:
    odd = [
        EngineVoice("espeak", "ko+f3", "ko-KR", "female", "Seoul", "Ji-woo"),
        EngineVoice("piper", "zh_CN-x-medium", "zh-CN", "female", "Mandarin", "美"),
        EngineVoice("piper", "p" * 80, "en-US", "male", "American", "Long " * 20),
        EngineVoice("festival", "p" * 80, "en-US", "male", "American", "Long " * 20),
        EngineVoice("flite", "p" * 80, "en-US", "male", "American", "Long " * 20),
    ]
    creators, built = build_demo_catalog(odd, {})
    ids = [v.id for v in built]
    assert ids[:2] == ["voice_ko_ji_woo", "voice_piper_zh_cn_x_medium"]
    assert len(set(ids)) == len(ids)
    assert all(len(i) <= 40 and i.isascii() for i in ids + [c.id for c in creators])


def test_cli_loads_the_demo_catalog(settings: Settings, demo_catalog: CatalogCounts) -> None:
    command = [sys.executable, "-m", "soundstage.cli", "catalog", "load-demo"]
    env = settings_env(settings)
    result = subprocess.run(
        [*command, "--json"], env=env, cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    counts = json.loads(result.stdout)
    demo = len(all_voices())
    # The same command loads the talent catalog and the demo studios (tests/workforce and
    # tests/studios check them).
    talent = {k: counts.pop(k) for k in list(counts) if k.startswith("talent_")}
    assert set(talent) == {"talent_created", "talent_updated", "talent_unchanged"}
    studios = {k: counts.pop(k) for k in list(counts) if k.startswith("studios_")}
    assert sum(studios.values()) == DEMO_STUDIOS
    assert counts == {
        "creators_created": 0,
        "creators_updated": 0,
        "creators_unchanged": demo,
        "voices_created": 0,
        "voices_updated": 0,
        "voices_unchanged": demo,
    }
    sentence = subprocess.run(
        command, env=env, cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert sentence.strip().startswith(
        f"creators: 0 created, 0 updated, {demo} unchanged; "
        f"voices: 0 created, 0 updated, {demo} unchanged; talent: "
    )
    assert sentence.strip().endswith(f"studios: 0 created, 0 updated, {DEMO_STUDIOS} unchanged")
