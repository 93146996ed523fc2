"""The `soundstage` console script, run as a user would, against the test database."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from websockets.asyncio.client import connect

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.voices.service import CatalogCounts
from tests.support.factories import create_customer
from tests.support.processes import (
    REPO_ROOT,
    free_port,
    group_members,
    settings_env,
    wait_for_port,
    wait_until_gone,
)

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


def demo_run(package_root: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`soundstage demo --json` run from `cwd` with the package imported from under
    `package_root`, no SOUNDSTAGE_* variable set (the defaults), `env` added."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SOUNDSTAGE_")}
    clean |= {"PYTHONPATH": str(package_root), "SOUNDSTAGE_LOG_LEVEL": "warning", **env}
    return subprocess.run(
        [sys.executable, "-m", "soundstage.cli", "demo", "--json"],
        env=clean,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )


def test_demo_uses_the_checkouts_data_wherever_it_is_run(tmp_path: Path) -> None:
    """Unset, the data directory is the checkout's `data/` (a checkout of its own here: the
    package under a pyproject.toml naming soundstage), from its root or any other directory:
    the key printed is the database's the server uses. The first run says it made the
    database; each says which it used."""
    checkout = tmp_path / "checkout"
    (checkout / "src").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text('[project]\nname = "soundstage"\n')
    (checkout / "src" / "soundstage").symlink_to(REPO_ROOT / "src" / "soundstage")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    database = checkout / "data" / "soundstage.db"

    first = demo_run(checkout / "src", checkout)
    assert f"data directory {checkout / 'data'}, database {database}" in first.stderr
    assert f"warning: new database {database}" in first.stderr

    second = demo_run(checkout / "src", elsewhere)
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert f"database {database}" in second.stderr
    assert "warning" not in second.stderr
    assert not (elsewhere / "data").exists()


def test_demo_outside_a_checkout_uses_the_users_data_directory(tmp_path: Path) -> None:
    """Installed (no checkout around the package): $XDG_DATA_HOME/soundstage."""
    installed = tmp_path / "site-packages"
    installed.mkdir()
    (installed / "soundstage").symlink_to(REPO_ROOT / "src" / "soundstage")
    xdg = tmp_path / "xdg"
    ran = demo_run(installed, tmp_path, XDG_DATA_HOME=str(xdg))
    assert f"warning: new database {xdg / 'soundstage' / 'soundstage.db'}" in ran.stderr
    assert json.loads((xdg / "soundstage" / "demo-key.json").read_text()) == json.loads(ran.stdout)


def test_ctrl_c_stops_serve_without_leaking_semaphores(
    settings: Settings, db: Database, demo_catalog: CatalogCounts, tmp_path: Path
) -> None:
    """Ctrl-C at a terminal (SIGINT to the whole process group) stops `serve`, with two API
    processes, one of which served a realtime session (its slot process and the turns' named
    semaphore), cleanly: exit 0, and no warning of the resource tracker's."""
    customer = create_customer(db, credits_each=1000)
    port = free_port()
    env = settings_env(settings) | {"SOUNDSTAGE_REALTIME__PROCESSES": "1"}
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        command = ["serve", "--processes", "2", "--port", str(port)]
        server = subprocess.Popen(
            [sys.executable, "-m", "soundstage.cli", *command],
            env=env,
            cwd=REPO_ROOT,
            stderr=stderr,
            start_new_session=True,  # its own group, as a terminal's foreground job
        )
    try:
        wait_for_port(port, timeout=60)

        async def speak() -> None:
            url = f"ws://127.0.0.1:{port}/api/v1/speech/tts/realtime"
            async with connect(url, additional_headers=customer.auth(), max_size=None) as ws:
                opening = {"voice_id": "voice_sarah", "format": "pcm_16000", "text": "Hello. "}
                await ws.send(json.dumps(opening | {"flush": True}))
                assert isinstance(await asyncio.wait_for(ws.recv(), 60), bytes)
                await ws.send(json.dumps({"text": ""}))
                async for _ in ws:
                    pass

        asyncio.run(speak())
        os.killpg(server.pid, signal.SIGINT)
        assert server.wait(60) == 0
        # The resource tracker (of the group) warns as it ends, after the server.
        wait_until_gone(group_members(server.pid), what="a process of serve's group")
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)
    written = log.read_text()
    assert "leaked semaphore" not in written, written[-3000:]
    assert "resource_tracker" not in written, written[-3000:]
    assert "Traceback" not in written, written[-3000:]


def test_a_process_spawned_from_a_command_leaves_ctrl_c_to_its_parent() -> None:
    """A spawned child (uvicorn's workers, the realtime slots) imports this module as
    `__mp_main__` first, for seconds under load: Ctrl-C at the terminal must not end it
    there with a traceback (its parent stops it). Run as the command itself, Ctrl-C stays
    Python's KeyboardInterrupt."""
    code = (
        "import runpy, signal\n"
        "runpy.run_module('soundstage.cli', run_name='{}', alter_sys=True)\n"
        "handler = signal.getsignal(signal.SIGINT)\n"
        "print('ignored' if handler == signal.SIG_IGN else handler.__name__)\n"
    )
    spawned, imported = (
        subprocess.run(
            [sys.executable, "-c", code.format(name)],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for name in ("__mp_main__", "soundstage_cli")
    )
    assert spawned == "ignored"
    assert imported == "default_int_handler"
