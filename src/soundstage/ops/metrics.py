"""The /metrics scrape: every process's recorded numbers (core.metrics) plus the queue read
from the database now."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from soundstage.core import metrics
from soundstage.core.db import Database
from soundstage.jobs import service as jobs
from soundstage.models.jobs import JobStatus

log = logging.getLogger("soundstage.ops")


def scrape(db: Database) -> bytes:
    return metrics.exposition(lambda: _queue_gauges(db))


def _queue_gauges(db: Database) -> Iterable[metrics.GaugeReading]:
    try:
        rows = jobs.queue_depth(db)
    except Exception:
        # The rest of the scrape still answers; /readyz tells the database is down.
        log.warning("metrics: the queue depth could not be read", exc_info=True)
        return []
    queued = [((kind,), float(n)) for kind, status, n in rows if status == JobStatus.QUEUED]
    running = [((kind,), float(n)) for kind, status, n in rows if status == JobStatus.PROCESSING]
    return [
        ("soundstage_jobs_queued", "Jobs waiting for a worker, by kind.", ["kind"], queued),
        ("soundstage_jobs_running", "Jobs a worker is running, by kind.", ["kind"], running),
    ]
