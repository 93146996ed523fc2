"""The Huey queue: SQLite storage in the data directory by default, Redis when configured,
so that any number of worker processes on any number of machines share one queue."""

from __future__ import annotations

import logging
import threading
from typing import Any, Protocol

from huey import Huey, RedisHuey, SqliteHuey

from soundstage.config import Settings
from soundstage.jobs import tasks

log = logging.getLogger("soundstage.jobs")


class MessageRunner(Protocol):
    """What a worker process does with a message: `jobs.worker` runs them, and hands itself to
    the queue when it starts consuming (`JobQueue.consume`), so the queue, which submitters
    import too, never imports the worker."""

    def run_jobs(self, settings: Settings) -> None: ...

    def run_task(self, settings: Settings, name: str, *args: str) -> None: ...


class JobQueue:
    """Two kinds of message: a job waits, and run a declared background task (jobs.tasks) by
    name. Each carries only ids: the database is the source of truth, so a lost or repeated
    message is harmless. (Webhook deliveries are not here: `webhooks.loop` sends them, so
    that they never take an audio worker.)

    A job's message only wakes a worker: which job it runs is the database's choice, the
    next in the fair order between accounts (jobs.repository.claim_next), and it goes on
    taking jobs in that order until none may start. So a burst of one account's messages
    ahead in the queue never puts another account's job behind the burst."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.huey = make_huey(settings)
        self._runner: MessageRunner | None = None

        def run_job(job_id: str) -> None:
            # The name and the argument (the job that woke the worker) are those of the
            # messages of old, which ran that very job: queued ones are still understood.
            self._running().run_jobs(settings)

        self._wake = self.huey.task(name="soundstage.run_job")(run_job)
        self._tasks: dict[str, Any] = {}
        self._tasks_lock = threading.Lock()

    def wake_worker(self, job_id: str) -> None:
        """Tell the workers that `job_id` (committed) waits: one of them takes the next job
        in the fair order, this one or another."""
        self._wake(job_id)

    def enqueue(self, name: str, *args: str) -> None:
        """Ask a worker to run the declared task `name` with `args` (ids)."""
        self._task(name)(*args)

    def consume(self, runner: MessageRunner) -> None:
        """Consumer side, at startup: `runner` runs the messages this process takes (and the
        worker processes it forks), and every declared task is known to Huey by name."""
        self._runner = runner
        for name in tasks.names():
            self._task(name)

    def _running(self) -> MessageRunner:
        if self._runner is None:
            raise RuntimeError("a message was taken by a process that is not a worker")
        return self._runner

    def _task(self, name: str) -> Any:
        """The Huey task that runs the declared task `name` in a worker. The enqueuing
        process needs only the name: the task's code is imported by the worker."""
        with self._tasks_lock:
            if name not in self._tasks:
                settings = self.settings

                def run_task(*args: str) -> None:
                    self._running().run_task(settings, name, *args)

                self._tasks[name] = self.huey.task(name=f"soundstage.{name}")(run_task)
            return self._tasks[name]


def enqueue(settings: Settings, name: str, *args: str) -> None:
    """Ask a worker to run the declared task `name` (see jobs.tasks) with `args` (ids)."""
    get_queue(settings).enqueue(name, *args)


def make_huey(settings: Settings) -> Huey:
    name = settings.redis_namespace
    if settings.redis_url:
        return RedisHuey(name=name, url=settings.redis_url, results=False, utc=True)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SqliteHuey(
        name=name, filename=str(settings.data_dir / "queue.db"), results=False, utc=True, timeout=60
    )


_queues: dict[tuple[str, str | None, str], JobQueue] = {}
_lock = threading.Lock()


def get_queue(settings: Settings) -> JobQueue:
    """One queue per storage, per process."""
    key = (str(settings.data_dir.resolve()), settings.redis_url, settings.redis_namespace)
    with _lock:
        if key not in _queues:
            _queues[key] = JobQueue(settings)
        return _queues[key]
