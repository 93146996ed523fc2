"""Job kinds and a bare Huey app for bench/job_overhead.py."""

from __future__ import annotations

import os
import tempfile

from huey import SqliteHuey

from soundstage.jobs.handlers import JobContext, JobOutcome, register
from soundstage.jobs.payloads import JobRequest, JobResult


class EmptyRequest(JobRequest):
    """Nothing to read."""


class EmptyResult(JobResult):
    """Nothing to say."""


@register("bench.empty", request=EmptyRequest, result=EmptyResult)
def empty(ctx: JobContext[EmptyRequest]) -> JobOutcome[EmptyResult]:
    return JobOutcome(EmptyResult(), 0)


# The reference: a bare Huey round trip (enqueue, a worker runs a no-op, the caller gets
# the result) on the same kind of storage, without the database, leases or credits.
_BARE_DB = os.environ.get("BENCH_BARE_DB", os.path.join(tempfile.gettempdir(), "bench-bare.db"))
bare = SqliteHuey("bench-bare", filename=_BARE_DB, utc=True)


@bare.task(name="bench.noop")
def noop() -> int:
    return 1


def run_consumer() -> None:
    """Polls like Soundstage's worker does (same delays), so only the machinery differs."""
    consumer = bare.create_consumer(
        workers=1,
        worker_type="process",
        initial_delay=0.02,
        backoff=1.2,
        max_delay=0.25,
        periodic=False,
    )
    consumer.run()
