"""`soundstage catalog import-talent FILE` and `catalog set-owner`, run as an operator would:
a valid file creates (then updates) profiles by id; any invalid profile, unknown voice or
unknown account imports nothing and says what is wrong."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.workforce.errors import InvalidTalentImport
from soundstage.workforce.talent import catalog
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer, profile, unique_word
from tests.support.processes import REPO_ROOT, settings_env

pytestmark = pytest.mark.services


def soundstage(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "soundstage.cli", *args],
        env=settings_env(settings),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )


def talent_file(tmp_path: Path, *profiles: dict[str, Any]) -> Path:
    path = tmp_path / "talent.json"
    path.write_text(json.dumps({"talent": list(profiles)}), encoding="utf-8")
    return path


def entry(**fields: Any) -> dict[str, Any]:
    return profile(**fields).model_dump(mode="json", exclude_none=True)


def test_a_valid_file_is_imported_then_updated(
    client: TestClient, settings: Settings, buyer: Customer, tmp_path: Path
) -> None:
    word = unique_word()
    first = entry(display_name="Imogen Vale", bio=f"Imogen reads {word} thrillers.")
    second = entry(rate_card={"games": 45_000}, languages=["fr-CA"], accents=["Québécois"])
    path = talent_file(tmp_path, first, second)
    created = soundstage(settings, "catalog", "import-talent", str(path), "--json")
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout) == {"created": 2, "updated": 0, "unchanged": 0}
    imogen = client.get(
        f"/api/v1/workforce/creators/{first['creator_id']}", headers=buyer.auth()
    ).json()
    assert imogen["display_name"] == "Imogen Vale"
    assert imogen["rate_card"] == [
        {"usage_type": "broadcast", "base_fee_cents": 100_000},
        {"usage_type": "internet", "base_fee_cents": 20_000},
    ]
    assert [d["voice_id"] for d in imogen["demos"]] == ["voice_sarah"]
    found = client.get(f"/api/v1/workforce/search?q={word}", headers=buyer.auth()).json()
    assert [c["creator_id"] for c in found["data"]] == [first["creator_id"]]
    quebec = client.get(
        "/api/v1/workforce/search?q=quebecois&language=fr-CA", headers=buyer.auth()
    ).json()
    assert second["creator_id"] in [c["creator_id"] for c in quebec["data"]]

    again = soundstage(settings, "catalog", "import-talent", str(path))
    assert again.stdout.strip() == "talent: 0 created, 0 updated, 2 unchanged"
    first["rate_card"] = {"internet": 25_000}
    changed = soundstage(settings, "catalog", "import-talent", str(talent_file(tmp_path, first)))
    assert changed.stdout.strip() == "talent: 0 created, 1 updated, 0 unchanged"
    imogen = client.get(
        f"/api/v1/workforce/creators/{first['creator_id']}", headers=buyer.auth()
    ).json()
    assert imogen["rate_card"] == [{"usage_type": "internet", "base_fee_cents": 25_000}]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"roles": ["singer"]}, "talent[1].roles[0]"),
        ({"languages": ["xx-YY"]}, "talent[1].languages[0]"),
        ({"rate_card": {"internet": 99}}, "talent[1].rate_card.internet"),
        ({"rate_card": {}}, "talent[1].rate_card"),
        ({"creator_id": "Creator 1"}, "talent[1].creator_id"),
        ({"rating": 5.1}, "talent[1].rating"),
        ({"favourite_color": "red"}, "talent[1].favourite_color"),
        ({"demos": [{"title": "x", "genre": "promo", "script": "Hi.", "voice_id": "voice_x"}]},
         "no such voice in the catalog: voice_x"),
        ({"account_id": "acct_nobody"}, "no such account: acct_nobody"),
        ({"creator_id": "same"}, "appears twice"),
    ],
)  # fmt: skip
def test_an_invalid_file_imports_nothing(
    client: TestClient,
    db: Database,
    buyer: Customer,
    tmp_path: Path,
    change: dict[str, Any],
    message: str,
) -> None:
    good = entry()
    bad = {**entry(), **change}
    if change.get("creator_id") == "same":
        bad["creator_id"] = good["creator_id"]
    path = talent_file(tmp_path, good, bad)
    with pytest.raises(InvalidTalentImport) as refused, db.session() as session:
        catalog.import_file(session, path)
    assert message in refused.value.message
    assert "nothing was imported" in refused.value.message
    missing = client.get(f"/api/v1/workforce/creators/{good['creator_id']}", headers=buyer.auth())
    assert_error(missing, 404, "creator_not_found")


def test_the_command_says_what_is_wrong(settings: Settings, tmp_path: Path) -> None:
    path = talent_file(tmp_path, entry(), entry(roles=["voice_actor"]) | {"roles": ["singer"]})
    result = soundstage(settings, "catalog", "import-talent", str(path))
    assert result.returncode != 0
    assert "talent[1].roles[0]" in result.stderr
    assert "nothing was imported" in result.stderr


def test_a_file_that_is_not_json_is_refused(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "talent.json"
    path.write_text("{not json", encoding="utf-8")
    result = soundstage(settings, "catalog", "import-talent", str(path))
    assert result.returncode != 0
    assert "not a readable JSON file" in result.stderr


def test_set_owner_lets_an_account_answer_for_a_creator(
    client: TestClient, db: Database, settings: Settings, buyer: Customer, tmp_path: Path
) -> None:
    talent = entry()
    soundstage(settings, "catalog", "import-talent", str(talent_file(tmp_path, talent)))
    account = create_customer(db)
    result = soundstage(
        settings,
        "catalog", "set-owner", "--creator", talent["creator_id"],
        "--account", account.account_id, "--json",
    )  # fmt: skip
    assert json.loads(result.stdout) == {
        "creator_id": talent["creator_id"],
        "account_id": account.account_id,
    }
    body = {"creator_id": talent["creator_id"], "usage_type": "internet", "territory": "US"}
    license_ = client.post(
        "/api/v1/workforce/licensing", json={**body, "duration_months": 6}, headers=buyer.auth()
    ).json()
    inbox = client.get("/api/v1/workforce/talent/licenses", headers=account.auth()).json()
    assert [x["id"] for x in inbox["data"]] == [license_["id"]]
    # A re-import without account_id keeps the owner.
    soundstage(settings, "catalog", "import-talent", str(talent_file(tmp_path, talent)))
    assert client.get("/api/v1/workforce/talent/licenses", headers=account.auth()).json()["data"]
    unknown = soundstage(
        settings, "catalog", "set-owner", "--creator", "cr_nobody", "--account", account.account_id
    )
    assert unknown.returncode != 0
    assert "No such creator" in unknown.stderr
