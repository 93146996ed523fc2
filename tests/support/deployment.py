"""A small deployment for fault injection: an API server and a job worker as real processes
(each in its own process group, so that kill -9 takes a worker with its children), on the
settings the test chooses, plus the checks every fault test ends with."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import func, select

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.models import CreditBalance, CreditEntry, Job
from tests.support.processes import (
    REPO_ROOT,
    WORKER_WEBHOOKS,
    free_port,
    settings_env,
    wait_for_port,
)


@dataclass
class Deployment:
    settings: Settings
    extra_env: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    server: subprocess.Popen[bytes] | None = None
    worker: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = settings_env(self.settings)
        env["SOUNDSTAGE_PUBLIC_BASE_URL"] = self.url
        env["SOUNDSTAGE_WEBHOOKS"] = WORKER_WEBHOOKS.model_dump_json()
        env["SOUNDSTAGE_RATE_LIMITS"] = self.settings.rate_limits.model_dump_json()
        return {**env, **self.extra_env}

    def start_server(self) -> None:
        self.server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "soundstage.cli",
                "serve",
                "--no-worker",
                "--port",
                str(self.port),
            ],
            env=self.env(),
            cwd=REPO_ROOT,
            start_new_session=True,
        )
        wait_for_port(self.port, timeout=60)

    def start_worker(self, processes: int = 1) -> None:
        self.worker = subprocess.Popen(
            [sys.executable, "-m", "soundstage.cli", "worker", "--processes", str(processes)],
            env=self.env(),
            cwd=REPO_ROOT,
            start_new_session=True,
        )

    def kill_server(self) -> None:
        _kill(self.server)
        self.server = None

    def kill_worker(self) -> None:
        """kill -9 of the worker and of every process it forked."""
        _kill(self.worker)
        self.worker = None

    def stop(self) -> None:
        for proc in (self.server, self.worker):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)
        for proc in (self.server, self.worker):
            if proc is not None:
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    _kill(proc)

    def get(self, path: str, headers: dict[str, str]) -> httpx.Response:
        return httpx.get(self.url + path, headers=headers, timeout=30)


def _kill(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except (httpx.HTTPError, OSError):
            value = None
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out: {what}"
        time.sleep(0.1)


def assert_books_balance(db: Database, account_id: str, environment: str = "sandbox") -> None:
    """Every account's ledger sums to zero, its cached balance matches its wallets, and
    nothing is left reserved once no job of it is running."""
    with db.read_session() as session:
        wallets = dict(
            session.execute(
                select(CreditEntry.wallet, func.sum(CreditEntry.amount))
                .where(CreditEntry.account_id == account_id)
                .where(CreditEntry.environment == environment)
                .group_by(CreditEntry.wallet)
            ).all()
        )
        balance = session.get(CreditBalance, (account_id, environment))
        active = session.scalar(
            select(func.count())
            .select_from(Job)
            .where(Job.account_id == account_id, Job.status.in_(("queued", "processing")))
        )
    assert sum(wallets.values()) == 0, wallets
    assert balance is not None
    assert (balance.available, balance.reserved) == (
        wallets.get("available", 0),
        wallets.get("reserved", 0),
    )
    assert active == 0
    assert balance.reserved == 0, wallets


def captures_of(db: Database, job_id: str) -> list[int]:
    """The amounts captured for a job: one entry per charge."""
    from soundstage.models import CreditTransaction

    with db.read_session() as session:
        return list(
            session.scalars(
                select(CreditTransaction.amount).where(
                    CreditTransaction.reference == job_id, CreditTransaction.type == "capture"
                )
            )
        )
