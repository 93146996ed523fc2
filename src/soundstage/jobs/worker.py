"""Job execution in worker processes: claim the next job in the fair order between accounts
with a lease, heartbeat, run the handler, then complete + capture credits + announce the end
(jobs.events) in one transaction. Declared background tasks (jobs.tasks). And the sweeper,
and the consumer that runs companions (the webhook delivery loop) in the main process."""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import signal
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from huey import Huey
from huey.consumer import Consumer
from pydantic import ValidationError

from soundstage.config import Settings
from soundstage.core import logs, metrics
from soundstage.core.db import Database
from soundstage.core.errors import AppError, InternalError, StorageFull, is_disk_full
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.idempotency import IdempotencyStore
from soundstage.jobs import live, preload, repository, streams, tasks, wiring, workdirs
from soundstage.jobs.errors import JobCancelled, WorkerLost
from soundstage.jobs.handlers import JobContext, JobKind, get_kind
from soundstage.jobs.queue import get_queue
from soundstage.jobs.service import emit_end
from soundstage.models import Job
from soundstage.models.jobs import JobStatus

log = logging.getLogger("soundstage.jobs")


@dataclass
class WorkerEnvironment:
    """What one worker process keeps for its life: settings, database, loaded task modules
    (and through them, models loaded once)."""

    settings: Settings
    db: Database
    pid: int


_environments: dict[int, WorkerEnvironment] = {}
_env_lock = threading.Lock()


def environment(settings: Settings) -> WorkerEnvironment:
    pid = os.getpid()
    with _env_lock:
        env = _environments.get(pid)
        if env is None or env.settings is not settings:
            tasks.load_plugins(settings)
            env = WorkerEnvironment(settings, Database(settings), pid)
            _environments.clear()  # a forked child drops its parent's connections
            _environments[pid] = env
        return env


def run_jobs(env: WorkerEnvironment, stopping: Callable[[], bool] = lambda: False) -> int:
    """What a worker does when a message wakes it: take the next job in the fair order
    between accounts (jobs.repository.claim_next) and run it, and again, until no job may
    start now or `stopping()` (a graceful stop takes no new job). How many it ran.

    A job left waiting (its account at its cap) is taken by the worker of a job that ends
    (it claims again), or on the sweeper's wake-up; never stranded."""
    ran = 0
    while not stopping():
        claimed = _claim_next(env)
        if claimed is None:
            return ran
        job, owner = claimed
        with logs.job_context(job.id):
            _run_claimed(env, job, owner)
        ran += 1
    return ran


def _claim_next(env: WorkerEnvironment) -> tuple[Job, str] | None:
    jobs = env.settings.jobs
    owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
    with env.db.session() as session:
        job = repository.claim_next(
            session,
            owner,
            utcnow(),
            timedelta(seconds=jobs.lease_seconds),
            jobs.max_running_per_account,
            live.kinds(),
        )
        if job is None:
            return None
        session.expunge(job)
    return job, owner


def _run_claimed(env: WorkerEnvironment, job: Job, owner: str) -> None:
    jobs = env.settings.jobs
    kind = get_kind(job.kind)
    if job.attempts > jobs.max_attempts:
        lost = (
            f"The job's worker stopped {jobs.max_attempts} times; it was not charged "
            "(beyond the audio it had streamed)."
        )
        _fail(env, job, owner, kind, WorkerLost(lost))
        return
    if kind is None:
        _fail(env, job, owner, None, InternalError(f"No worker knows job kind {job.kind!r}."))
        return
    log.info("job %s (%s) attempt %d on %s", job.id, job.kind, job.attempts, owner)
    began = time.monotonic()
    outcome = "requeued"
    try:
        outcome = _execute(env, job, owner, kind)
    except KeyboardInterrupt:
        # The worker is shutting down and the job outlived `shutdown_timeout_seconds`
        # (Huey interrupts its processes): hand it to another worker now, not after its
        # lease runs out. Nothing was captured (capture commits with the completion).
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the process ends after this
        _requeue(env, job, owner)
        raise
    finally:
        metrics.observe_job(job.kind, outcome, time.monotonic() - began)


def _requeue(env: WorkerEnvironment, job: Job, owner: str) -> None:
    try:
        with env.db.session() as session:
            released = repository.release(session, job.id, owner, utcnow())
        if released:
            get_queue(env.settings).wake_worker(job.id)
            log.warning("job %s (%s) interrupted by shutdown; re-queued", job.id, job.kind)
    except Exception:
        # Its lease runs out and the sweeper re-queues it: later, but never lost.
        log.exception("job %s could not be re-queued; its lease will expire", job.id)


def _execute(env: WorkerEnvironment, job: Job, owner: str, kind: JobKind) -> str:
    """Run the handler and end the job: how it ended (completed, failed, cancelled)."""
    try:
        request = kind.read_request(job.request)
    except ValidationError as exc:
        _fail(env, job, owner, kind, _malformed(job, exc))
        return "failed"
    try:
        workdir = workdirs.create(env.settings, job.id, owner)
    except OSError as exc:
        _fail(env, job, owner, kind, _unexpected(job, exc))
        return "failed"
    context = JobContext(
        job_id=job.id,
        kind=job.kind,
        request=request,
        principal=Principal(job.account_id, job.environment, ""),  # type: ignore[arg-type]
        settings=env.settings,
        db=env.db,
        workdir=workdir,
        report=lambda fraction, stage: _report(env, job.id, owner, fraction, stage),
        reserver=lambda amount: _reserve(env, job, owner, amount),
        charger=lambda amount: _charge(env, job, owner, amount),
        floor_setter=lambda amount: _charge_at_least(env, job, owner, amount),
    )
    heartbeat = _Heartbeat(env, job.id, owner, context.cancelled)
    heartbeat.start()
    try:
        outcome = kind.handler(context)
        result = kind.stored_result(outcome.result)
    except JobCancelled:
        log.info("job %s was cancelled while running", job.id)
        return "cancelled"
    except AppError as exc:
        _fail(env, job, owner, kind, exc)
        return "failed"
    except Exception as exc:
        _fail(env, job, owner, kind, _unexpected(job, exc))
        return "failed"
    else:
        done = _complete(env, job, owner, kind, result, outcome.credits_used)
        return "completed" if done else "cancelled"
    finally:
        heartbeat.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _report(
    env: WorkerEnvironment, job_id: str, owner: str, fraction: float, stage: str | None
) -> None:
    with env.db.session() as session:
        repository.report_progress(session, job_id, owner, fraction, stage, utcnow())


def _reserve(env: WorkerEnvironment, job: Job, owner: str, amount: int) -> None:
    principal = Principal(job.account_id, job.environment, "")  # type: ignore[arg-type]
    billing = wiring.billing(env.settings)
    with env.db.session() as session:
        if job.reservation_id is not None:
            # Reserved at submit, or by a first attempt whose worker died: kept if it covers
            # the amount, else released and taken again whole (this rolls back on a 402).
            if job.credits_reserved >= amount:
                return
            billing.release(session, job.reservation_id)
        reservation_id = billing.reserve(session, principal, amount, job.kind, job.id)
        if not repository.set_reservation(session, job.id, owner, reservation_id, amount):
            # Cancelled (or taken over) meanwhile: raising rolls the reservation back.
            raise JobCancelled(job.id)
    job.reservation_id, job.credits_reserved = reservation_id, amount


def _malformed(job: Job, exc: ValidationError) -> AppError:
    """What a job whose stored request does not fit its kind's model fails with: a bug (or
    a payload from an incompatible version), not the caller's fault, so an internal error
    whose details go to the log (where and what, never the values: a payload holds the
    caller's text and URLs)."""
    faults = [(".".join(map(str, e["loc"])), e["type"]) for e in exc.errors()]
    log.error("job %s (%s) has a request its kind cannot read: %s", job.id, job.kind, faults)
    return InternalError(
        f"The job's stored request does not fit its kind {job.kind!r}; it was not charged."
    )


def _unexpected(job: Job, exc: Exception) -> AppError:
    """What a job that raised something other than an AppError fails with."""
    if is_disk_full(exc):
        log.error("job %s (%s) failed: disk full", job.id, job.kind)
        return StorageFull("The service ran out of disk space; the job was not charged.")
    log.error("job %s (%s) failed", job.id, job.kind, exc_info=exc)
    return InternalError("The job failed unexpectedly; it was not charged.")


def _charge(env: WorkerEnvironment, job: Job, owner: str, amount: int) -> None:
    """Capture `amount` of the job's reservation before it ends (JobContext.charge_now): the
    job row says so in the same transaction, so a cancel can no longer release it."""
    used = _capped(job, amount)
    with env.db.session() as session:
        if not repository.charge(session, job.id, owner, used):
            raise JobCancelled(job.id)  # cancelled (or taken over) first: nothing charged
        if job.reservation_id:
            wiring.billing(env.settings).capture(session, job.reservation_id, used)
    job.credits_used = used


def _charge_at_least(env: WorkerEnvironment, job: Job, owner: str, amount: int) -> None:
    """Record the least the job is charged however it ends (JobContext.charge_at_least)."""
    floor = _capped(job, amount)
    with env.db.session() as session:
        if not repository.charge_at_least(session, job.id, owner, floor):
            raise JobCancelled(job.id)  # cancelled (or taken over) first: hand nothing over
    job.credits_delivered = floor


def _capped(job: Job, amount: int) -> int:
    if amount > job.credits_reserved:
        log.error("job %s used %d credits but reserved %d", job.id, amount, job.credits_reserved)
    return min(amount, job.credits_reserved)


def _complete(
    env: WorkerEnvironment,
    job: Job,
    owner: str,
    kind: JobKind,
    result: dict[str, Any],
    credits_used: int,
) -> bool:
    # A job charged before its end (a stream) keeps that charge; none charges less than
    # what it handed over.
    used = job.credits_used if job.credits_used is not None else _capped(job, credits_used)
    used = max(used, job.credits_delivered)
    with env.db.session() as session:
        done = repository.finish(
            session,
            job.id,
            owner,
            JobStatus.COMPLETED,
            utcnow(),
            result=result,
            credits_used=used,
            progress=1.0,
            error=None,
        )
        if not done:  # cancelled meanwhile, or the lease went to another worker
            return False
        if job.reservation_id:
            wiring.billing(env.settings).capture(session, job.reservation_id, used)
        emit_end(session, env.settings, job, kind.completed_event)
    return True


def _fail(
    env: WorkerEnvironment, job: Job, owner: str, kind: JobKind | None, failure: AppError
) -> None:
    error: dict[str, Any] = {
        "type": failure.type,
        "code": failure.code,
        "message": failure.message,
        "param": failure.param,
        "status": failure.status,  # what a synchronous endpoint answers for it
    }
    # A stream charged when its audio was complete stays charged: the client has the audio;
    # one that fails midway is charged what it had handed over (an earlier attempt's too:
    # `job` was read when this attempt claimed it).
    charged = job.credits_used if job.credits_used is not None else job.credits_delivered
    with env.db.session() as session:
        if not repository.finish(
            session, job.id, owner, JobStatus.FAILED, utcnow(), error=error, credits_used=charged
        ):
            return
        if job.reservation_id:  # nothing moves once captured
            billing = wiring.billing(env.settings)
            if charged and job.credits_used is None:
                billing.capture(session, job.reservation_id, charged)
            else:
                billing.release(session, job.reservation_id)
        wiring.media(env.settings).discard_job_outputs(session, env.settings, job.id)
        emit_end(session, env.settings, job, kind.failed_event if kind else None)


class _Heartbeat(threading.Thread):
    """Renews the lease; notices a cancellation (the renewal finds the job no longer ours)."""

    def __init__(self, env: WorkerEnvironment, job_id: str, owner: str, cancelled: threading.Event):
        super().__init__(daemon=True, name=f"heartbeat-{job_id}")
        self.env, self.job_id, self.owner, self.cancelled = env, job_id, owner, cancelled
        self._stop_event = threading.Event()

    def run(self) -> None:
        jobs = self.env.settings.jobs
        while not self._stop_event.wait(jobs.heartbeat_seconds):
            try:
                with self.env.db.session() as session:
                    until = utcnow() + timedelta(seconds=jobs.lease_seconds)
                    alive = repository.renew_lease(session, self.job_id, self.owner, until)
            except Exception:
                log.exception("heartbeat of job %s failed", self.job_id)
                continue
            if not alive:
                self.cancelled.set()
                return

    def stop(self) -> None:
        self._stop_event.set()


def run_task(env: WorkerEnvironment, name: str, *args: str) -> None:
    """A declared background task (jobs.tasks); its AppError is logged, not raised."""
    declared = tasks.get(name)
    if declared is None:
        log.error("no worker knows task %r", name)
        return
    try:
        declared(env.db, env.settings, *args)
    except AppError as exc:
        log.warning("task %s %s failed: %s", name, " ".join(args), exc.message)


def sweep(env: WorkerEnvironment, wake_up_to: int = 1) -> int:
    """Wake workers for jobs whose worker died (lease ran out) and queued jobs nobody took
    (their message was lost, or their account's running job was cancelled while its worker
    still ran it), at most `wake_up_to` (this machine's worker processes): each woken worker
    runs jobs until none may start. Then the housekeeping: leftover streams, work
    directories and temporary files, expired media and idempotency keys. Each step runs even
    when another fails (Redis down must not stop the disk from being swept). Repeated
    messages are harmless: claiming is conditional. (Webhook deliveries need no sweeping:
    the delivery loop finds due ones in the database.)"""
    requeued = _step("re-queueing", lambda: _requeue_stale(env, wake_up_to)) or 0
    _step("stream files", lambda: streams.remove_stale(env.db, env.settings))
    _step("work directories", lambda: workdirs.remove_orphans(env.db, env.settings))
    _step("temporary files", lambda: workdirs.remove_stale_tmp(env.settings))
    _step("expired media", lambda: wiring.media(env.settings).sweep_expired(env.db, env.settings))
    _step("idempotency keys", lambda: IdempotencyStore(env.db, env.settings).purge_expired())
    return requeued


def _requeue_stale(env: WorkerEnvironment, wake_up_to: int) -> int:
    jobs = env.settings.jobs
    now = utcnow()
    with env.db.session() as session:
        stale = repository.stale_job_ids(
            session, now, now - timedelta(seconds=jobs.requeue_after_seconds), wake_up_to
        )
        repository.touch(session, stale, now)
    queue = get_queue(env.settings)
    for job_id in stale:
        log.info("sweeper wakes a worker for job %s", job_id)
        queue.wake_worker(job_id)
    return len(stale)


def _step(name: str, work: Callable[[], int]) -> int | None:
    try:
        return work()
    except Exception:
        log.exception("sweeping %s failed", name)
        return None


class Sweeper(threading.Thread):
    def __init__(self, env: WorkerEnvironment, processes: int) -> None:
        super().__init__(daemon=True, name="sweeper")
        self.env, self.processes = env, processes
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.env.settings.jobs.sweep_interval_seconds):
            try:
                sweep(self.env, self.processes)
            except Exception:
                log.exception("sweep failed")

    def stop(self) -> None:
        self._stop_event.set()


class Companion(Protocol):
    """Work that runs beside the job processes, in the worker's main process (the webhook
    delivery loop): started once they are forked, stopped first on shutdown."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class _Consumer(Consumer):  # type: ignore[misc]  # huey has no type hints
    def __init__(self, huey: Huey, companions: Sequence[Companion], **options: Any) -> None:
        super().__init__(huey, **options)
        self.companions = companions

    def start(self) -> None:
        # Huey sets its signal handlers once every process is forked: a SIGTERM in between
        # would kill this process and leave its children consuming. Set them first (the
        # children set their own as they start).
        self._set_signal_handlers()
        super().start()
        # Threads start after the job processes were forked: a child never inherits them.
        for companion in self.companions:
            companion.start()

    def stop(self, graceful: bool = False) -> None:
        for companion in self.companions:
            companion.stop()
        super().stop(graceful)


class _MessageRunner:
    """The queue's messages, run in this worker process (jobs.queue.MessageRunner);
    `stopping` tells whether the consumer is stopping (its stop flag, shared with the
    processes it forks)."""

    def __init__(self, stopping: Callable[[], bool]) -> None:
        self.stopping = stopping

    def run_jobs(self, settings: Settings) -> None:
        run_jobs(environment(settings), self.stopping)

    def run_task(self, settings: Settings, name: str, *args: str) -> None:
        run_task(environment(settings), name, *args)


def run_worker(settings: Settings, processes: int, companions: Sequence[Companion] = ()) -> None:
    """`soundstage worker`: a Huey consumer with `processes` worker processes, the sweeper,
    and `companions` in the main process.

    With `jobs.preload_models`, each worker process loads the features' default models as
    it starts (jobs.preload), before it takes a job.

    SIGTERM (or SIGHUP's restart) is the graceful stop: no new job is taken, the running ones
    get `jobs.shutdown_timeout_seconds` to finish, then each is interrupted and re-queued at
    once (`run_job`), and the process exits 0. SIGINT (Ctrl-C), or a second SIGTERM, stops
    at once, re-queueing the running jobs the same way."""
    tasks.load_plugins(settings)
    queue = get_queue(settings)
    consumer = _Consumer(
        queue.huey,
        companions,
        workers=processes,
        worker_type="process",
        periodic=False,
        initial_delay=0.02,
        backoff=1.2,
        max_delay=0.25,
        check_worker_health=True,
        graceful_signal="TERM",
        shutdown_timeout=settings.jobs.shutdown_timeout_seconds,
    )
    queue.consume(_MessageRunner(consumer.stop_flag.is_set))
    if settings.jobs.preload_models:
        # Run by each job process as it starts (Huey's startup hooks), before its first job.
        stopping = consumer.stop_flag.is_set
        queue.huey.on_startup("soundstage.preload")(lambda: preload.preload(settings, stopping))
    env = WorkerEnvironment(settings, Database(settings), os.getpid())
    # What a worker killed before this start left behind (inputs fetched for its jobs, the
    # streams of its jobs) goes at once; the sweeper repeats it for other machines' workers.
    workdirs.remove_orphans(env.db, settings)
    streams.remove_stale(env.db, settings)
    sweeper = Sweeper(env, processes)
    sweeper.start()
    try:
        consumer.run()
    finally:
        for companion in companions:
            companion.stop()  # a second stop returns at once
        sweeper.stop()
