"""The `soundstage` console script, run as a user would, against the test database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings

pytestmark = pytest.mark.services


def soundstage(settings: Settings, tmp: Path, *args: str) -> dict:  # type: ignore[type-arg]
    env = {
        **os.environ,
        "SOUNDSTAGE_DATA_DIR": str(tmp),
        "SOUNDSTAGE_DATABASE_URL": settings.resolved_database_url,
    }
    result = subprocess.run(
        [sys.executable, "-m", "soundstage.cli", *args, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_operator_flow(settings: Settings, client: TestClient, tmp_path: Path) -> None:
    account = soundstage(settings, tmp_path, "accounts", "create", "--name", "Studio North")
    assert account["account_id"].startswith("acct_")
    key = soundstage(
        settings,
        tmp_path,
        "keys",
        "create",
        "--account",
        account["account_id"],
        "--environment",
        "production",
    )
    assert key["key"].startswith("sk_live_")
    auth = {"Authorization": f"Bearer {key['key']}"}

    granted = soundstage(
        settings,
        tmp_path,
        "credits",
        "grant",
        "--account",
        account["account_id"],
        "--environment",
        "production",
        "--amount",
        "5000",
    )
    assert granted["balance"] == 5000
    assert client.get("/api/v1/credits", headers=auth).json()["balance"] == 5000

    verified = soundstage(
        settings,
        tmp_path,
        "buyers",
        "verify",
        "--account",
        account["account_id"],
        "--environment",
        "production",
    )
    assert verified["status"] == "verified"
    assert client.get("/api/v1/buyers/verification", headers=auth).json()["status"] == "verified"

    soundstage(settings, tmp_path, "keys", "revoke", key["key_id"])
    # Revoked by another process: refused by this one within its key cache's time.
    deadline = time.monotonic() + settings.accounts.key_cache_seconds + 10
    while (status := client.get("/api/v1/credits", headers=auth).status_code) == 200:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert status == 401


def test_human_output_and_errors(settings: Settings, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "SOUNDSTAGE_DATA_DIR": str(tmp_path),
        "SOUNDSTAGE_DATABASE_URL": settings.resolved_database_url,
    }
    ok = subprocess.run(
        [sys.executable, "-m", "soundstage.cli", "accounts", "create", "--name", "Acme"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert ok.stdout.startswith("created account acct_")
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "soundstage.cli",
            "keys",
            "create",
            "--account",
            "acct_nope",
            "--environment",
            "sandbox",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1
    assert "No such account: acct_nope" in bad.stderr


def test_demo_key_is_created_once_and_reused(
    settings: Settings, client: TestClient, tmp_path: Path
) -> None:
    first = soundstage(settings, tmp_path, "demo")
    second = soundstage(settings, tmp_path, "demo")
    assert first == second
    balance = client.get(
        "/api/v1/credits", headers={"Authorization": f"Bearer {first['key']}"}
    ).json()
    assert balance["environment"] == "sandbox"
    assert balance["balance"] == 1_000_000
