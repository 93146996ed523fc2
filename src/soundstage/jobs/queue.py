"""The Huey queue: SQLite storage in the data directory by default, Redis when configured,
so that any number of worker processes on any number of machines share one queue."""

from __future__ import annotations

import logging
import threading

from huey import Huey, RedisHuey, SqliteHuey

from soundstage.config import Settings

log = logging.getLogger("soundstage.jobs")


class JobQueue:
    """Three tasks: run a job, render a voice preview or a talent demo. Each takes only an id:
    the database is the source of truth, so a lost or repeated message is harmless. (Webhook
    deliveries are not here: `webhooks.loop` sends them, so that they never take an audio
    worker.)"""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.huey = make_huey(settings)

        def run_job(job_id: str) -> None:
            from soundstage.jobs import worker

            worker.run_job(worker.environment(settings), job_id)

        def render_preview(voice_id: str) -> None:
            from soundstage.jobs import worker

            worker.render_preview(worker.environment(settings), voice_id)

        def render_demo(demo_id: str) -> None:
            from soundstage.jobs import worker

            worker.render_demo(worker.environment(settings), demo_id)

        self._run_job = self.huey.task(name="soundstage.run_job")(run_job)
        self._render_preview = self.huey.task(name="soundstage.render_preview")(render_preview)
        self._render_demo = self.huey.task(name="soundstage.render_demo")(render_demo)

    def enqueue_job(self, job_id: str) -> None:
        self._run_job(job_id)

    def enqueue_preview(self, voice_id: str) -> None:
        self._render_preview(voice_id)

    def enqueue_demo(self, demo_id: str) -> None:
        self._render_demo(demo_id)


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
