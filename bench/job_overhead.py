"""Job overhead: the round trip of an empty job through Soundstage's machinery (submit with
a credit reservation, commit, enqueue, a worker claims it with a lease, completes it and
captures credits, the waiting caller sees it) against a bare Huey round trip (enqueue a
no-op, wait for its result) on the same SQLite storage, in one run. Prints the p50 ratio.

    .venv/bin/python bench/job_overhead.py [--jobs 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=200)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp()
    os.environ.update(
        SOUNDSTAGE_DATA_DIR=tmp,
        SOUNDSTAGE_JOBS='{"plugins": ["bench.empty_job"], "worker_processes": 1}',
        SOUNDSTAGE_LOG_LEVEL="warning",
        BENCH_BARE_DB=str(Path(tmp) / "bare.db"),
        # src first: a checkout other than the installed one (a git worktree) runs its own code.
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
    )
    os.environ.pop("SOUNDSTAGE_DATABASE_URL", None)
    os.environ.pop("SOUNDSTAGE_REDIS_URL", None)
    sys.path.insert(0, str(ROOT))

    from soundstage import app_tasks
    from soundstage.accounts import service as accounts
    from soundstage.config import get_settings
    from soundstage.core.db import Database
    from soundstage.core.migrate import upgrade_database
    from soundstage.core.principal import Principal
    from soundstage.credits import service as credits
    from soundstage.jobs import service as jobs

    settings = get_settings()
    app_tasks.install()
    upgrade_database(settings)
    db = Database(settings)
    with db.session() as session:
        account = accounts.create_account(session, "bench")
        key = accounts.create_key(session, (account.id, "sandbox"))
        credits.grant(session, (account.id, "sandbox"), 10**9)
    who = Principal(account.id, "sandbox", key.key.id)

    procs = [
        subprocess.Popen([sys.executable, "-m", "soundstage.cli", "worker", "--processes", "1"]),
        subprocess.Popen(
            [sys.executable, "-c", "from bench.empty_job import run_consumer; run_consumer()"],
            cwd=ROOT,
        ),
    ]
    try:
        from bench.empty_job import EmptyRequest, noop

        async def ours() -> float:
            start = time.perf_counter()
            job = await jobs.submit_and_wait(
                db, settings, who, "bench.empty", EmptyRequest(), credits_needed=1
            )
            assert job.status == "completed", job
            return time.perf_counter() - start

        def bare() -> float:
            start = time.perf_counter()
            assert noop()(blocking=True, timeout=30, backoff=1.0, max_delay=0.002) == 1
            return time.perf_counter() - start

        for _ in range(10):  # warm-up: workers up, connections open
            asyncio.run(ours())
            bare()
        service_times = [asyncio.run(ours()) for _ in range(args.jobs)]
        bare_times = [bare() for _ in range(args.jobs)]
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(20)
    s50, b50 = statistics.median(service_times) * 1000, statistics.median(bare_times) * 1000
    print(f"jobs: {args.jobs} each, sequential, SQLite database and queue, 1 worker process")
    s90 = statistics.quantiles(service_times, n=10)[8] * 1000
    b90 = statistics.quantiles(bare_times, n=10)[8] * 1000
    print(f"soundstage empty job round trip: p50 {s50:.1f} ms  p90 {s90:.1f} ms")
    print(f"bare Huey no-op round trip:      p50 {b50:.1f} ms  p90 {b90:.1f} ms")
    print(f"ratio (p50 soundstage / bare): {s50 / b50:.2f}")


if __name__ == "__main__":
    main()
