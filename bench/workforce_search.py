"""Talent search over 100,000 talents: p50 / p95 latency of GET /api/v1/workforce/search (text
queries with filters, and filters alone; 20 full profiles a page, through the whole stack: auth,
rate limit, verification gate, full-text query, profiles with rate cards, voices and signed
demo URLs) against the same query's bare SQL (the statement the repository runs, executed with the
database driver alone), in one run. Prints the latency ratio and the absolute figures.

    .venv/bin/python bench/workforce_search.py [--talents 100000] [--rounds 30]

The catalog is the demo talent catalog (`soundstage catalog load-demo`) topped up with
generated talents to `--talents`, imported with `soundstage catalog import-talent` (timed too).
SQLite (the default deployment); PostgreSQL with `--database-url` pointing at an empty
database.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _service import served
from sqlalchemy import select

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.models import Creator
from soundstage.voices import service as voices
from soundstage.workforce.talent.demo import generate_talent
from soundstage.workforce.talent.repository import TalentFilters, search_statement
from soundstage.workforce.talent.text import query_terms

# Text queries with filters, as a buyer would type them.
QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("warm narrator", {"language": "en"}),
    ("scottish", {"role": "narrator"}),
    ("energetic promo", {"genre": "promo", "verified": True}),
    ("spanish", {"gender": "female"}),
    ("deep audiobook", {"age_range": "middle_aged"}),
    ("gravelly", {"language": "en-GB", "genre": "gaming"}),
    ("conversational host", {"genre": "corporate", "language": "en-US"}),
    ("quebecois", {}),
    ("calm soothing", {"role": "voice_actor", "gender": "male"}),
    ("amelia", {"verified": True}),
    # Criteria alone, ranked by verified, rating and id (ix_creator_rank).
    ("", {"role": "narrator", "language": "en"}),
    ("", {"genre": "gaming", "gender": "male"}),
    ("", {"accent": "scottish"}),
    ("", {}),
]
PAGE = 20


def percentile(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100)[p - 1] * 1000


def run_cli(env: dict[str, str], *args: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "soundstage.cli", *args, "--json"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def build_catalog(settings: Settings, env: dict[str, str], total: int, workdir: Path) -> float:
    """Top the demo catalog up to `total` talents through import-talent; its seconds."""
    db = Database(settings)
    with db.read_session() as session:
        catalog = voices.active_voices(session)
        taken = set(session.scalars(select(Creator.id)))
    db.dispose()
    profiles = generate_talent(catalog, total - len(taken), seed=100_000, taken=taken)
    path = workdir / "talent.json"
    with path.open("w") as out:
        json.dump({"talent": [p.model_dump(mode="json", exclude_none=True) for p in profiles]}, out)
    start = time.perf_counter()
    counts = run_cli(env, "catalog", "import-talent", str(path))
    seconds = time.perf_counter() - start
    assert counts["created"] == len(profiles), counts
    return seconds


def bare_sql(settings: Settings) -> Callable[[str, dict[str, Any]], int]:
    """One query as the driver alone runs it: the repository's statement, compiled."""
    url = settings.resolved_database_url
    if url.startswith("sqlite"):
        from sqlalchemy.dialects import sqlite

        conn: Any = sqlite3.connect(url.removeprefix("sqlite:///"))
        dialect: Any = sqlite.dialect()
        name = "sqlite"
    else:
        import psycopg
        from sqlalchemy.dialects import postgresql
        from sqlalchemy.engine import make_url

        conn = psycopg.connect(
            make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        )
        dialect = postgresql.psycopg.dialect()
        name = "postgresql"

    def run(q: str, filters: dict[str, Any]) -> int:
        stmt = search_statement(name, query_terms(q), TalentFilters(**filters), PAGE + 1)
        compiled = stmt.compile(dialect=dialect)
        if name == "sqlite":
            params: Any = [compiled.params[key] for key in compiled.positiontup or []]
        else:
            params = compiled.params
        return len(conn.execute(str(compiled), params).fetchall())

    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--talents", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--database-url", default=None, help="an empty PostgreSQL database")
    args = parser.parse_args()
    os.environ["SOUNDSTAGE_RATE_LIMITS__SANDBOX"] = "1000000/minute"
    with served(demo_catalog=True, database_url=args.database_url) as (client, data_dir):
        env = {
            **os.environ,
            "SOUNDSTAGE_DATA_DIR": str(data_dir),
            "SOUNDSTAGE_LOG_LEVEL": "warning",
        }
        if args.database_url:
            env["SOUNDSTAGE_DATABASE_URL"] = args.database_url
        settings = Settings(data_dir=data_dir, database_url=args.database_url)
        import_seconds = build_catalog(settings, env, args.talents, data_dir)
        account = json.loads((data_dir / "demo-key.json").read_text())["account_id"]
        run_cli(env, "buyers", "verify", "--account", account, "--environment", "sandbox")

        def http(q: str, filters: dict[str, Any]) -> int:
            params = {"limit": PAGE, **{k: str(v).lower() if isinstance(v, bool) else v
                                        for k, v in filters.items()}}  # fmt: skip
            if q:
                params["q"] = q
            response = client.get("/api/v1/workforce/search", params=params)
            response.raise_for_status()
            return len(response.json()["data"])

        sql = bare_sql(settings)
        found = [sql(q, f) for q, f in QUERIES]
        served_found = [http(q, f) for q, f in QUERIES]  # also the warm-up
        assert served_found == [min(n, PAGE) for n in found], (found, served_found)
        service_times: list[float] = []
        bare_times: list[float] = []
        for _ in range(args.rounds):
            for q, filters in QUERIES:
                start = time.perf_counter()
                http(q, filters)
                service_times.append(time.perf_counter() - start)
                start = time.perf_counter()
                sql(q, filters)
                bare_times.append(time.perf_counter() - start)
    shutil.rmtree(data_dir, ignore_errors=True)  # hundreds of MB
    database = "PostgreSQL" if args.database_url else "SQLite"
    n = len(service_times)
    print(
        f"talents: {args.talents} ({database}), topped up by import-talent in "
        f"{import_seconds:.1f} s; {len(QUERIES)} queries (text and filters) x {args.rounds} "
        f"rounds = {n} requests"
    )
    print(f"matches per query (first page of {PAGE}): {sorted(found)}")
    s50, s95 = percentile(service_times, 50), percentile(service_times, 95)
    b50, b95 = percentile(bare_times, 50), percentile(bare_times, 95)
    print(f"soundstage GET /api/v1/workforce/search: p50 {s50:.2f} ms  p95 {s95:.2f} ms")
    print(f"bare SQL, same query (driver only):     p50 {b50:.2f} ms  p95 {b95:.2f} ms")
    print(f"ratio (soundstage / bare SQL): p50 {s50 / b50:.2f}  p95 {s95 / b95:.2f}")


if __name__ == "__main__":
    main()
