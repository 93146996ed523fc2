"""The registry of job kinds: each feature declares the function that does its work, with
the models of its request and result (in its own `tasks.py`, whose `register()` the
composition root, soundstage.app_tasks, calls), and the context a handler works in."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.jobs import wiring
from soundstage.jobs.errors import JobCancelled
from soundstage.jobs.payloads import JobRequest, JobResult, MediaRef
from soundstage.media.audio import Audio, EncodeFormat, MediaInfo, encode, probe
from soundstage.media.input_limits import check_input, decoded_duration_ms

# Covariant: a context for a kind's request is one for any request it extends (helpers that
# read only what every request has take JobContext[JobRequest]).
RequestT = TypeVar("RequestT", bound=JobRequest, covariant=True)
ResultT = TypeVar("ResultT", bound=JobResult)


@dataclass(frozen=True)
class JobOutcome(Generic[ResultT]):
    """What a handler returns: the result (stored as JobResult.stored makes it) and the
    credits actually used (at most those reserved)."""

    result: ResultT
    credits_used: int


@dataclass(frozen=True)
class InputRule:
    """How a job's audio input is checked and priced: the request field it came from (named
    in errors), the operation's duration limit and its name in messages, and the operation
    billing prices it as."""

    param: str
    limit_ms: int
    operation: str
    rate_operation: str


@dataclass(frozen=True)
class OpenedInput:
    """A job's audio input, read, checked and priced (JobContext.open_audio_input)."""

    path: Path
    info: MediaInfo
    # As decoded; the header's when the input was not decoded up front.
    duration_ms: int
    # Held for the job: what it charges for `duration_ms`.
    price: int


@dataclass
class JobContext(Generic[RequestT]):
    job_id: str
    kind: str
    # The stored request, read as the kind's request model.
    request: RequestT
    principal: Principal
    settings: Settings
    db: Database
    workdir: Path
    report: Callable[[float, str | None], None]
    # Reserves credits once the job knows its price (see reserve_credits).
    reserver: Callable[[int], None] | None = None
    # Charges credits before the job ends (see charge_now).
    charger: Callable[[int], None] | None = None
    # Records the least the job is charged however it ends (see charge_at_least).
    floor_setter: Callable[[int], None] | None = None
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

    def charge_at_least(self, amount: int) -> None:
        """Record that the job costs at least `amount` (at most the reservation) however it
        ends: for a stream, right before bytes are released to the client, `amount` being
        what everything released by then costs. A cancel (the client hung up) or a failure
        then captures that much instead of releasing the reservation; completion captures
        the job's credits_used, never less. Raises JobCancelled if the job was cancelled
        first (then the bytes must not be released)."""
        if self.floor_setter is None:
            raise RuntimeError("this context cannot charge credits")
        self.check_cancelled()
        self.floor_setter(amount)

    def price_of_decoded(self, operation: str, duration_ms: int) -> int:
        """The price of `duration_ms` of input as decoded, held before the work it pays for:
        a reservation priced from the container's header (which may understate the length)
        grows to it (see reserve_credits). Charge it as the outcome's credits_used."""
        price = wiring.billing(self.settings).price_for_duration(operation, duration_ms)
        self.reserve_credits(price)
        return price

    def input_path(
        self, url: str, *, param: str, kept_media_id: str | None = None, index: int = 0
    ) -> Path:
        """Where the job's input `index` is: the copy its submission kept (`kept_media_id`,
        see jobs.inputs; read in place from a local store, streamed into the work directory
        from S3), else the bytes of `url` read or fetched now into the work directory."""
        media = wiring.media(self.settings)
        dest = self.workdir / f"input-{index}"
        with self.db.read_session() as session:
            if kept_media_id is None:
                return media.read_input(session, self.settings, url, dest, param=param)
            return media.kept_input(
                session, self.settings, self.principal, kept_media_id, param=param, dest=dest
            )

    def open_audio_input(
        self,
        url: str,
        rule: InputRule,
        *,
        stage: str,
        block_frames: int | None,
        kept_media_id: str | None = None,
    ) -> OpenedInput:
        """The opening every audio job shares: read the input (see input_path), probe and
        check it against `rule`, reserve its price from the header, report `stage`, then
        decode it once in blocks of `block_frames` to measure and reserve what it really
        holds (a header may understate it). A job that decodes as it goes (transcription,
        window by window, pricing each with price_of_decoded) passes `block_frames=None`:
        then the duration and price are the header's."""
        path = self.input_path(url, param=rule.param, kept_media_id=kept_media_id)
        info = probe(path, param=rule.param)
        check_input(info, rule.limit_ms, param=rule.param, operation=rule.operation)
        price = wiring.billing(self.settings).price_for_duration(
            rule.rate_operation, info.duration_ms
        )
        self.reserve_credits(price)
        self.progress(0.02, stage)
        if block_frames is None:
            return OpenedInput(path, info, info.duration_ms, price)
        duration_ms = decoded_duration_ms(
            path,
            rule.limit_ms,
            param=rule.param,
            operation=rule.operation,
            block_frames=block_frames,
        )
        price = self.price_of_decoded(rule.rate_operation, duration_ms)
        return OpenedInput(path, info, duration_ms, price)

    def save_audio(self, audio: Audio, filename: str, fmt: EncodeFormat) -> tuple[MediaRef, int]:
        """Encode audio as an output of this job and store it: the media reference to put in
        the result (shown as a signed URL) and the file's real duration in milliseconds."""
        path = self.workdir / filename
        encoded = encode(audio, path, fmt)
        reference = self.save_file(path, encoded.content_type, encoded.duration_ms)
        return reference, encoded.duration_ms

    def save_file(self, path: Path, content_type: str, duration_ms: int | None = None) -> MediaRef:
        """Store a file written in the work directory as an output of this job: the media
        reference to put in the result."""
        media = wiring.media(self.settings)
        with self.db.session() as session:
            reference = media.save_output(
                session,
                self.settings,
                self.principal,
                path,
                content_type=content_type,
                duration_ms=duration_ms,
                job_id=self.job_id,
            )
        return MediaRef.model_validate(reference)

    def check_cancelled(self) -> None:
        if self.cancelled.is_set():
            raise JobCancelled(self.job_id)


# A kind's handler, as the registry keeps it (every kind's request and result models).
Handler = Callable[[JobContext[Any]], JobOutcome[Any]]


@dataclass(frozen=True)
class JobKind:
    name: str
    handler: Handler
    request_model: type[JobRequest]
    result_model: type[JobResult]
    # Webhook event types sent when an asynchronous job of this kind ends.
    completed_event: str | None = None
    failed_event: str | None = None
    cancelled_event: str | None = None

    def read_request(self, stored: dict[str, Any]) -> JobRequest:
        """The stored request as the kind's model; pydantic's ValidationError if it does
        not fit (the worker fails the job)."""
        return self.request_model.model_validate(stored)

    def stored_result(self, result: JobResult) -> dict[str, Any]:
        """The JSON stored as the job's result; TypeError for a result of another model."""
        if not isinstance(result, self.result_model):
            raise TypeError(
                f"job kind {self.name!r} answered a {type(result).__name__}, "
                f"not its {self.result_model.__name__}"
            )
        return result.stored()


_KINDS: dict[str, JobKind] = {}


def declare(
    name: str,
    handler: Callable[[JobContext[RequestT]], JobOutcome[ResultT]],
    *,
    request: type[RequestT],
    result: type[ResultT],
    completed_event: str = "job.completed",
    failed_event: str = "job.failed",
    cancelled_event: str = "job.cancelled",
) -> None:
    """Declare a job kind: its handler, the model its stored request is read as before the
    handler runs (`request`) and the model of its result (`result`). When an asynchronous
    job of the kind ends, the webhook event `completed_event`, `failed_event` or
    `cancelled_event` is emitted (a type of webhooks.schemas.EventType): one event per end,
    the kind's own where it has them."""
    _KINDS[name] = JobKind(
        name, handler, request, result, completed_event, failed_event, cancelled_event
    )


def register(
    name: str,
    *,
    request: type[RequestT],
    result: type[ResultT],
    completed_event: str = "job.completed",
    failed_event: str = "job.failed",
    cancelled_event: str = "job.cancelled",
) -> Callable[
    [Callable[[JobContext[RequestT]], JobOutcome[ResultT]]],
    Callable[[JobContext[RequestT]], JobOutcome[ResultT]],
]:
    """`declare` as a decorator (for a plugin module, which declares on import)."""

    def decorate(
        handler: Callable[[JobContext[RequestT]], JobOutcome[ResultT]],
    ) -> Callable[[JobContext[RequestT]], JobOutcome[ResultT]]:
        declare(
            name,
            handler,
            request=request,
            result=result,
            completed_event=completed_event,
            failed_event=failed_event,
            cancelled_event=cancelled_event,
        )
        return handler

    return decorate


def get_kind(name: str) -> JobKind | None:
    return _KINDS.get(name)


def kinds() -> list[JobKind]:
    """Every declared kind, by name."""
    return [_KINDS[name] for name in sorted(_KINDS)]
