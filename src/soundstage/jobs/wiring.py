"""What the job system needs from outside it, as Protocols that the features implement and the
composition root (`soundstage.app_tasks.install`) installs at startup: credits (`Billing`:
reserve, capture, release, price) and the media store (`MediaStore`: the job's inputs and
outputs). The job system imports no feature.

`create_app` and the `worker` command install the wiring before any job is touched (the
worker's processes, forked later, inherit it); a process that reaches the job system
otherwise (a script, a test calling the service) calls `soundstage.app_tasks.install()`
first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.media.audio import MediaInfo
from soundstage.media.fetch import FetchPolicy


class Billing(Protocol):
    """Credits: a job's reservation, its capture when it completes, its release otherwise."""

    def reserve(
        self, session: Session, principal: Principal, amount: int, operation: str, job_id: str
    ) -> str:
        """Hold `amount` credits for the job; the reservation's id. 402 when the balance
        cannot cover it."""

    def extend(self, session: Session, reservation_id: str, amount: int) -> None:
        """Hold `amount` more on a held reservation (a session whose use grows). 402 when
        the balance cannot cover it."""

    def capture(self, session: Session, reservation_id: str, amount: int) -> None:
        """Charge `amount` (at most what was held) and return the rest, once."""

    def release(self, session: Session, reservation_id: str) -> None:
        """Return the held credits untouched. Idempotent."""

    def price_for_duration(self, operation: str, duration_ms: int) -> int:
        """The price of `duration_ms` of input for `operation`."""


class MediaStore(Protocol):
    """The stored media a job reads and writes."""

    def save_output(
        self,
        session: Session,
        settings: Settings,
        principal: Principal,
        path: Path,
        *,
        content_type: str,
        duration_ms: int | None,
        job_id: str,
    ) -> dict[str, Any]:
        """Store a file as an output of the job (undone if the unit rolls back): the media
        reference to put in its result."""

    def discard_job_outputs(self, session: Session, settings: Settings, job_id: str) -> None:
        """Drop a job's outputs (a failed job's, or those its owner deleted): they answer
        410 from this unit's commit on, their bytes deleted once it commits."""

    def sweep_expired(self, db: Database, settings: Settings) -> int:
        """Delete expired media; how many."""

    def render(self, value: Any, settings: Settings, *, ttl_seconds: int | None) -> Any:
        """`value` (a job's result) with its media references as signed URLs."""

    def earliest_expiry(self, value: Any) -> datetime | None:
        """When the first of the media referenced in `value` expires."""

    def fetch_policy(self, settings: Settings) -> FetchPolicy:
        """How inputs are fetched from other servers (byte limit, timeout, allowed hosts)."""

    def is_own_url(self, settings: Settings, url: str) -> bool:
        """Whether `url` is one of this service's media URLs (read from storage, not
        fetched)."""

    def callers_input(
        self,
        session: Session,
        settings: Settings,
        principal: Principal,
        url: str,
        *,
        param: str,
        dest: Path,
    ) -> tuple[str, Path] | None:
        """The caller's own media that the URL `url` is (its id and a local file of its
        bytes: the store's own when it is a local directory, else a copy at `dest`), or None
        for another account's."""

    def read_input(
        self, session: Session, settings: Settings, url: str, dest: Path, *, param: str
    ) -> Path:
        """The bytes of `url` (the service's own media read from storage, others fetched)
        at `dest`."""

    def kept_input(
        self,
        session: Session,
        settings: Settings,
        principal: Principal,
        media_id: str,
        *,
        param: str,
        dest: Path,
    ) -> Path:
        """A local file of the input kept for a job (`media_id`): the store's own when it is
        a local directory, else a copy streamed to `dest` (S3); 422 naming `param` when it is
        gone."""

    def keep_input(
        self,
        session: Session,
        settings: Settings,
        principal: Principal,
        path: Path,
        *,
        url: str,
        info: MediaInfo,
    ) -> str:
        """Store a fetched input for its job: the kept media's id."""


@dataclass(frozen=True)
class _Wiring:
    billing: Billing
    media: MediaStore


_wiring: list[_Wiring] = []


def use(*, billing: Billing, media: MediaStore) -> None:
    """Startup (the composition root): the implementations the job system works with."""
    _wiring[:] = [_Wiring(billing, media)]


def ensure() -> None:
    """RuntimeError unless startup wired the job system."""
    if not _wiring:
        raise RuntimeError(
            "the job system is not wired: call soundstage.app_tasks.install() at startup"
        )


def billing(settings: Settings) -> Billing:
    del settings  # the same wiring for every settings
    ensure()
    return _wiring[0].billing


def media(settings: Settings) -> MediaStore:
    del settings
    ensure()
    return _wiring[0].media
