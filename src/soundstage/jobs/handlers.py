"""The registry of job kinds: each feature registers the function that does its work (in its
own `tasks.py`, a module the composition root lists: see jobs.tasks.use_modules)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soundstage.config import Settings
from soundstage.core.audio import Audio, EncodeFormat, encode
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.jobs import wiring
from soundstage.jobs.errors import JobCancelled


@dataclass(frozen=True)
class JobOutcome:
    """What a handler returns: the result fields (media references allowed, see
    jobs.wiring.MediaStore.save_output) and the credits actually used (at most those reserved)."""

    result: dict[str, Any]
    credits_used: int


@dataclass
class JobContext:
    job_id: str
    kind: str
    request: dict[str, Any]
    principal: Principal
    settings: Settings
    db: Database
    workdir: Path
    report: Callable[[float, str | None], None]
    # Reserves credits once the job knows its price (see reserve_credits).
    reserver: Callable[[int], None] | None = None
    # Charges credits before the job ends (see charge_now).
    charger: Callable[[int], None] | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    _last_report: float = 0.0
    _last_stage: str | None = None

    def progress(self, fraction: float, stage: str | None = None) -> None:
        """Record progress 0..1, at most every 0.5 s within a stage (a new stage and the end
        are always recorded); raises JobCancelled once the job was cancelled."""
        self.check_cancelled()
        now = time.monotonic()
        new_stage = stage is not None and stage != self._last_stage
        if new_stage or fraction >= 1.0 or now - self._last_report >= 0.5:
            self._last_report = now
            if stage is not None:
                self._last_stage = stage
            self.report(min(max(fraction, 0.0), 1.0), stage)

    def reserve_credits(self, amount: int) -> None:
        """For jobs priced by their input (minutes of audio): hold `amount` credits in all
        once the input is measured, before the work. A reservation already as large (made at
        submit, or by an earlier attempt) is kept; a smaller one is released and `amount`
        reserved instead. Raises InsufficientCredits (the job fails 402, charged nothing)
        or JobCancelled."""
        if self.reserver is None:
            raise RuntimeError("this context cannot reserve credits")
        self.check_cancelled()
        self.reserver(amount)

    def charge_now(self, amount: int) -> None:
        """Charge `amount` (at most the reservation) now, before the job ends: for a stream,
        right before its last bytes are released to the client. From then on the job cannot
        be cancelled and the charge stands whatever follows (its credits_used is `amount`).
        Raises JobCancelled if the job was cancelled first (then nothing is charged)."""
        if self.charger is None:
            raise RuntimeError("this context cannot charge credits")
        self.check_cancelled()
        self.charger(amount)

    def price_of_decoded(self, operation: str, duration_ms: int) -> int:
        """The price of `duration_ms` of input as decoded, held before the work it pays for:
        a reservation priced from the container's header (which may understate the length)
        grows to it (see reserve_credits). Charge it as the outcome's credits_used."""
        price = wiring.billing(self.settings).price_for_duration(operation, duration_ms)
        self.reserve_credits(price)
        return price

    def save_audio(
        self, audio: Audio, filename: str, fmt: EncodeFormat
    ) -> tuple[dict[str, Any], int]:
        """Encode audio as an output of this job and store it: the media reference to put in
        the result (shown as a signed URL) and the file's real duration in milliseconds."""
        path = self.workdir / filename
        encoded = encode(audio, path, fmt)
        reference = self.save_file(path, encoded.content_type, encoded.duration_ms)
        return reference, encoded.duration_ms

    def save_file(
        self, path: Path, content_type: str, duration_ms: int | None = None
    ) -> dict[str, Any]:
        """Store a file written in the work directory as an output of this job: the media
        reference to put in the result."""
        media = wiring.media(self.settings)
        with self.db.session() as session:
            return media.save_output(
                session,
                self.settings,
                self.principal,
                path,
                content_type=content_type,
                duration_ms=duration_ms,
                job_id=self.job_id,
            )

    def check_cancelled(self) -> None:
        if self.cancelled.is_set():
            raise JobCancelled(self.job_id)


Handler = Callable[[JobContext], JobOutcome]


@dataclass(frozen=True)
class JobKind:
    name: str
    handler: Handler
    # Webhook event types sent when an asynchronous job of this kind ends.
    completed_event: str | None = None
    failed_event: str | None = None
    cancelled_event: str | None = None


_KINDS: dict[str, JobKind] = {}


def register(
    name: str,
    *,
    completed_event: str = "job.completed",
    failed_event: str = "job.failed",
    cancelled_event: str = "job.cancelled",
) -> Callable[[Handler], Handler]:
    """Register a job kind. When an asynchronous job of the kind ends, the webhook event
    `completed_event`, `failed_event` or `cancelled_event` is emitted (a type of
    webhooks.schemas.EventType): one event per end, the kind's own where it has them."""

    def decorate(handler: Handler) -> Handler:
        _KINDS[name] = JobKind(name, handler, completed_event, failed_event, cancelled_event)
        return handler

    return decorate


def get_kind(name: str) -> JobKind | None:
    return _KINDS.get(name)
