"""Discover over 100,000 studios: `soundstage serve` on a freshly seeded database against a
bare FastAPI app answering the same JSON from memory, both under uvicorn on loopback, in one
run. Prints p50/p95 latency of filtered queries (sequential, keep-alive), throughput (several
client processes for a fixed time), their ratios, and the query plans (EXPLAIN) of every
filter kind, which must read through indexes.

    .venv/bin/python bench/studios_discover.py [--studios 100000] [--requests 1500]
        [--seconds 10] [--clients 4] [--postgres postgresql+psycopg://user:pw@host/db]

SQLite always; PostgreSQL too when --postgres names a server (a database is created and
dropped for the run).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from _service import free_port
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.migrate import upgrade_database
from soundstage.core.pagination import PageParams
from soundstage.studios import repository
from soundstage.studios.catalog import STUDIO_TYPES, StudioSpec
from soundstage.studios.demo import CITIES, demo_studio
from soundstage.studios.importer import upsert_studios
from soundstage.studios.places import place_key

REFERENCE_APP = """
import json
from fastapi import FastAPI, Request
app = FastAPI()
BODIES = json.load(open("bodies.json"))
@app.get("/api/v1/studios/discover")
def discover(request: Request) -> dict:
    return BODIES[str(request.query_params)]
"""
CHUNK = 2000
# Distinct generated studios; the rest of the catalog repeats them under new ids, which keeps
# the demo's mix of cities, types and capacities at a fraction of the generation time.
UNIQUE = 4000


def _make(indexes: range) -> list[StudioSpec]:
    return [demo_studio(i) for i in indexes]


def _nth(base: list[StudioSpec], index: int) -> StudioSpec:
    if index < len(base):
        return base[index]
    spec, suffix = base[index % len(base)], f"{index:06d}"
    rooms = [
        room.model_copy(update={"id": f"room_bench_{suffix}_{chr(97 + n)}"})
        for n, room in enumerate(spec.rooms)
    ]
    return spec.model_copy(update={"id": f"studio_bench_{suffix}", "rooms": rooms})


def seed(settings: Settings, count: int) -> float:
    upgrade_database(settings)
    db = Database(settings)
    started = time.perf_counter()
    unique = min(count, UNIQUE)
    chunks = [range(i, min(i + CHUNK, unique)) for i in range(0, unique, CHUNK)]
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        base = [spec for specs in pool.map(_make, chunks) for spec in specs]
    for start in range(0, count, CHUNK):
        with db.session() as session:
            upsert_studios(
                session, [_nth(base, i) for i in range(start, min(start + CHUNK, count))]
            )
        print(f"\r  seeded {min(start + CHUNK, count):,}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    db.dispose()
    return time.perf_counter() - started


def query_mix(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """(kind, params) of filtered discover queries, as users would send them."""
    cities = rng.sample(CITIES, 12)
    mix: list[tuple[str, dict[str, Any]]] = []
    for city in cities[:4]:
        mix.append(("city", {"city": city.name.upper()}))
        mix.append(("city+type", {"city": city.name, "type": rng.choice(STUDIO_TYPES)}))
    for city in cities[4:8]:
        mix.append(("state", {"state": city.state}))
        mix.append(("state code+capacity", {"state": city.state_code, "capacity": 4}))
    for studio_type in STUDIO_TYPES:
        mix.append(("type", {"type": studio_type}))
        mix.append(("type+capacity", {"type": studio_type, "capacity": rng.choice((3, 8, 16))}))
    for capacity in (2, 6, 12, 19):
        mix.append(("capacity", {"capacity": capacity}))
    for city in cities[8:]:
        mix.append(
            (
                "all four",
                {"city": city.name, "state": city.state, "type": "recording", "capacity": 2},
            )
        )
    return mix


def plans(settings: Settings, mix: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Every filter kind's query plan; a line for each plan that reads the whole table."""
    db = Database(settings)
    problems = []
    seen = set()
    with db.session() as session:
        dialect = session.get_bind().dialect.name
        for kind, params in mix:
            if kind in seen:
                continue
            seen.add(kind)
            filters = repository.StudioFilters(
                city_key=place_key(params["city"]) if "city" in params else None,
                state_key=place_key(params["state"]) if "state" in params else None,
                type=params.get("type"),
                capacity=params.get("capacity"),
            )
            stmt = repository.discover_statement(session, filters, PageParams(limit=20))
            assert stmt is not None
            sql = str(
                stmt.compile(
                    dialect=session.get_bind().dialect, compile_kwargs={"literal_binds": True}
                )
            )
            if dialect == "sqlite":
                plan = [r[-1] for r in session.execute(text(f"EXPLAIN QUERY PLAN {sql}"))]
                full = [p for p in plan if p.startswith("SCAN studio") and "INDEX" not in p]
            else:
                plan = [r[0] for r in session.execute(text(f"EXPLAIN {sql}"))]
                full = [p for p in plan if "Seq Scan on studio" in p]
            print(f"  {kind:20s} {' | '.join(p.strip() for p in plan)}")
            if full:
                problems.append(f"{kind}: {full}")
    db.dispose()
    return problems


@contextmanager
def serving(command: list[str], port: int, **popen: Any) -> Iterator[str]:
    """A server process until the block ends; its base URL once it answers."""
    proc = subprocess.Popen(command, **popen)
    try:
        for _ in range(1200):
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(30)


def _answers(
    base: str, auth: dict[str, str], mix: list[tuple[str, dict[str, Any]]]
) -> tuple[list[str], dict[str, str], dict[str, Any]]:
    """Each query of the mix and its second page (the first page's cursor): the URLs, their
    filter kinds, and our service's answers by query string."""
    urls: list[str] = []
    kinds: dict[str, str] = {}
    bodies: dict[str, Any] = {}
    with httpx.Client(base_url=base, headers=auth, timeout=60) as client:
        for kind, params in mix:
            page = params
            for _ in range(2):
                url = f"/api/v1/studios/discover?{urlencode(page)}"
                response = client.get(url)
                response.raise_for_status()
                body = response.json()
                urls.append(url)
                kinds[url] = kind
                bodies[str(httpx.URL(url).params)] = body
                if not body["has_more"]:
                    break
                page = {**params, "starting_after": body["data"][-1]["id"]}
    return urls, kinds, bodies


def sequential(base: str, headers: dict[str, str], urls: list[str]) -> list[float]:
    with httpx.Client(base_url=base, headers=headers) as client:
        for url in urls[:50]:  # warm-up
            client.get(url).raise_for_status()
        times = []
        for url in urls:
            start = time.perf_counter()
            client.get(url).raise_for_status()
            times.append(time.perf_counter() - start)
    return times


def _hammer(args: tuple[str, dict[str, str], list[str], float]) -> int:
    base, headers, urls, seconds = args
    done = 0
    with httpx.Client(base_url=base, headers=headers) as client:
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            client.get(urls[done % len(urls)]).raise_for_status()
            done += 1
    return done


def throughput(
    base: str, headers: dict[str, str], urls: list[str], clients: int, seconds: float
) -> float:
    jobs = [(base, headers, urls[i::clients] or urls, seconds) for i in range(clients)]
    with multiprocessing.get_context("spawn").Pool(clients) as pool:
        return sum(pool.map(_hammer, jobs)) / seconds


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] * 1000


def bench(name: str, env: dict[str, str], settings: Settings, args: argparse.Namespace) -> None:
    print(f"\n== {name}: seeding {args.studios:,} studios", flush=True)
    seconds = seed(settings, args.studios)
    print(f"  seeded in {seconds:.0f} s")
    mix = query_mix(random.Random(7))  # noqa: S311
    print("  query plans (EXPLAIN) by filter kind:")
    problems = plans(settings, mix)
    cli = [sys.executable, "-m", "soundstage.cli"]
    key = json.loads(
        subprocess.run([*cli, "demo", "--json"], env=env, check=True, capture_output=True).stdout
    )["key"]
    auth = {"Authorization": f"Bearer {key}"}
    port = free_port()
    with serving([*cli, "serve", "--no-worker", "--port", str(port)], port, env=env) as ours:
        urls, kinds, bodies = _answers(ours, auth, mix)
        with tempfile.TemporaryDirectory() as ref_dir:
            # The reference serves exactly the JSON our service answered, from memory.
            Path(ref_dir, "bodies.json").write_text(json.dumps(bodies))
            Path(ref_dir, "reference_app.py").write_text(REFERENCE_APP)
            ref_port = free_port()
            reference = [
                sys.executable, "-m", "uvicorn", "reference_app:app", "--port", str(ref_port),
                "--log-level", "warning",
            ]  # fmt: skip
            with serving(reference, ref_port, cwd=ref_dir) as ref:
                order = random.Random(11).choices(urls, k=args.requests)  # noqa: S311
                service = sequential(ours, auth, order)
                bare = sequential(ref, {}, order)
                ours_rps = throughput(ours, auth, urls, args.clients, args.seconds)
                bare_rps = throughput(ref, {}, urls, args.clients, args.seconds)
    report(args, urls, kinds, order, service, bare, ours_rps, bare_rps)
    print(f"  full table scans: {problems or 'none'}")


def report(
    args: argparse.Namespace,
    urls: list[str],
    kinds: dict[str, str],
    order: list[str],
    service: list[float],
    bare: list[float],
    ours_rps: float,
    bare_rps: float,
) -> None:
    by_kind: dict[str, list[float]] = {}
    for url, took in zip(order, service, strict=True):
        by_kind.setdefault(kinds[url], []).append(took)
    print(f"  {len(urls)} distinct queries (first and second pages), {args.requests} requests:")
    for kind, times in sorted(by_kind.items()):
        if len(times) >= 20:
            p50, p95 = percentile(times, 50), percentile(times, 95)
            print(f"    {kind:20s} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")
    s50, s95 = percentile(service, 50), percentile(service, 95)
    b50, b95 = percentile(bare, 50), percentile(bare, 95)
    print(f"  soundstage discover: p50 {s50:.2f} ms  p95 {s95:.2f} ms  {ours_rps:,.0f} req/s")
    print(f"  bare FastAPI, same JSON: p50 {b50:.2f} ms  p95 {b95:.2f} ms  {bare_rps:,.0f} req/s")
    print(
        f"  ratio soundstage / bare: p50 {s50 / b50:.2f}  p95 {s95 / b95:.2f}  "
        f"throughput {ours_rps / bare_rps:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--studios", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--postgres", help="a PostgreSQL server URL (a database is made on it)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs; each server is one uvicorn process; "
          f"throughput from {args.clients} client processes for {args.seconds:.0f} s")  # fmt: skip
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("SOUNDSTAGE_")}
    base_env |= {
        "SOUNDSTAGE_LOG_LEVEL": "warning",
        "SOUNDSTAGE_RATE_LIMITS__SANDBOX": "100000000/minute",
    }
    with tempfile.TemporaryDirectory() as data_dir:
        env = base_env | {"SOUNDSTAGE_DATA_DIR": data_dir}
        bench("SQLite", env, Settings(data_dir=Path(data_dir)), args)
    if args.postgres:
        name = f"soundstage_bench_{secrets.token_hex(4)}"
        admin = create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(args.postgres).set(database=name).render_as_string(hide_password=False)
        try:
            with tempfile.TemporaryDirectory() as data_dir:
                env = base_env | {"SOUNDSTAGE_DATA_DIR": data_dir, "SOUNDSTAGE_DATABASE_URL": url}
                bench("PostgreSQL", env, Settings(data_dir=Path(data_dir), database_url=url), args)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()


if __name__ == "__main__":
    main()
