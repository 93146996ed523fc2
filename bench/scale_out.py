"""Scale-out: throughput of a fixed mix of short jobs (TTS of 200 characters, STT of 10 s of
speech, a 3 s sound effect) through one API node and worker nodes that share only
PostgreSQL, Redis and (with `s3`) an S3 store, in one run:

- `local`: the single-machine layout, media in the API node's data directory, shared by its
  worker(s);
- `s3`: every node with its own empty data directory, media in S3 (Ceph RGW in CI).

For each store, 1 worker node and then 2 (each `soundstage worker --processes 1`). Prints
jobs per minute, the 2-node/1-node ratio (issue 22 expects >= 1.8 on 2 cores) and the
per-job overhead of S3 against the local store (expects <= 10%).

The reference, in the same run: the same mix done by the bare engines (no service, no
queue, no database) in 1 and then 2 processes side by side. Its 2/1 ratio is what the
machine itself gives two CPU-bound processes (a virtual machine's two vCPUs may share a
physical core or its caches); the service's ratio is also printed as a share of it.

Each worker process runs its engines on one thread (faster-whisper's and Piper's
`cpu_threads` settings, BLAS through OMP_NUM_THREADS), as a node sized one worker per core
is configured (docs/scaling-out.md, "Sizing workers"): otherwise one worker would already
use both cores and the second node could only share them.

Needs PostgreSQL and Redis (and, for `s3`, the RGW that scripts/ensure-services.sh starts):

    .venv/bin/python bench/scale_out.py [--sets 6] [--stores local,s3]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
import soundfile

ROOT = Path(__file__).resolve().parents[1]
POSTGRES = os.environ.get(
    "BENCH_DATABASE_URL", "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/test"
)
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
S3 = {
    "endpoint": os.environ.get("BENCH_S3_ENDPOINT", "http://127.0.0.1:7480"),
    "access_key": os.environ.get("BENCH_S3_ACCESS_KEY", "soundstage-test-access"),
    "secret_key": os.environ.get("BENCH_S3_SECRET_KEY", "soundstage-test-secret-0123456789abcdef"),
}
TEXT = (
    "The harbour was quiet that morning. A few gulls circled over the boats, and the smell "
    "of salt and tar hung in the cold air while the fishermen mended their nets by the wall."
)[:200]
CLIENTS = 4  # requests in flight: enough to keep two workers busy


def _tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user + system, reaped children included) of a process and its live
    descendants, from /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        times[pid] = sum(int(value) for value in fields[11:15]) / tick
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo += [child for child, parent in parents.items() if parent == pid]
    return total


def _machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent busy (all cores), from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(port: int) -> None:
    for _ in range(1200):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing answers on port {port}")


@contextmanager
def fresh_database() -> Iterator[str]:
    from sqlalchemy import create_engine, make_url, text

    name = f"soundstage_bench_{secrets.token_hex(4)}"
    admin = create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def fresh_bucket() -> str:
    import boto3
    from botocore.config import Config

    name = f"bench-{secrets.token_hex(4)}"
    client = boto3.client(
        "s3",
        endpoint_url=S3["endpoint"],
        aws_access_key_id=S3["access_key"],
        aws_secret_access_key=S3["secret_key"],
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"),
    )
    client.create_bucket(Bucket=name)
    return name


@contextmanager
def cluster(
    store: str, workers: int, database_url: str
) -> Iterator[tuple[httpx.Client, list[subprocess.Popen[bytes]]]]:
    """An API node and `workers` worker nodes: the API node's client and the processes (the
    API node first)."""
    api_dir = Path(tempfile.mkdtemp(prefix="bench-api-"))
    port = _free_port()
    base = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "SOUNDSTAGE_DATABASE_URL": database_url,
        "SOUNDSTAGE_REDIS_URL": REDIS,
        "SOUNDSTAGE_REDIS_NAMESPACE": f"bench-{secrets.token_hex(4)}",
        "SOUNDSTAGE_SECRET_KEY": secrets.token_hex(32),
        "SOUNDSTAGE_LOG_LEVEL": "warning",
        # Media URLs name this API node, so jobs read their inputs as the service's own media.
        "SOUNDSTAGE_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "SOUNDSTAGE_STT__CPU_THREADS": "1",
        "SOUNDSTAGE_TTS__CPU_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    if store == "s3":
        base.update(
            SOUNDSTAGE_MEDIA__S3_ENDPOINT=S3["endpoint"],
            SOUNDSTAGE_MEDIA__S3_BUCKET=fresh_bucket(),
            SOUNDSTAGE_MEDIA__S3_ACCESS_KEY=S3["access_key"],
            SOUNDSTAGE_MEDIA__S3_SECRET_KEY=S3["secret_key"],
        )
    cli = [sys.executable, "-m", "soundstage.cli"]
    api_env = {**base, "SOUNDSTAGE_DATA_DIR": str(api_dir)}
    subprocess.run([*cli, "migrate"], env=api_env, check=True, capture_output=True)
    subprocess.run([*cli, "catalog", "load-demo"], env=api_env, check=True, capture_output=True)
    made = subprocess.run([*cli, "demo", "--json"], env=api_env, check=True, capture_output=True)
    key = json.loads(made.stdout)["key"]
    processes = [subprocess.Popen([*cli, "serve", "--no-worker", "--port", str(port)], env=api_env)]
    for _ in range(workers):
        # Local media: the worker shares the API node's directory (one machine). S3: its own.
        own = api_dir if store == "local" else Path(tempfile.mkdtemp(prefix="bench-worker-"))
        processes.append(
            subprocess.Popen(
                [*cli, "worker", "--processes", "1"], env={**base, "SOUNDSTAGE_DATA_DIR": str(own)}
            )
        )
    try:
        _wait_for(port)
        client = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            timeout=600,
        )
        client.post("/api/v1/sandbox/credits", json={"amount": 1_000_000}).raise_for_status()
        yield client, processes
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()


def speech_upload(client: httpx.Client) -> str:
    """10 s of speech (Piper through the service itself), uploaded as the caller's media."""
    made = client.post(
        "/api/v1/speech/tts",
        json={"text": TEXT + " " + TEXT[:60], "voice_id": "voice_joe", "format": "wav"},
    )
    made.raise_for_status()
    audio = httpx.get(made.json()["output_url"], timeout=60).content
    samples, rate = soundfile.read(io.BytesIO(audio), dtype="float32")
    ten = np.zeros(rate * 10, dtype="float32")
    ten[: min(len(samples), len(ten))] = samples[: len(ten)]
    wav = io.BytesIO()
    soundfile.write(wav, ten, rate, format="WAV")
    upload = client.post("/api/v1/uploads", files={"file": ("speech.wav", wav.getvalue())})
    upload.raise_for_status()
    return str(upload.json()["url"])


def mix(audio_url: str) -> list[tuple[str, dict[str, object]]]:
    return [
        ("/api/v1/speech/tts", {"text": TEXT, "voice_id": "voice_joe", "format": "mp3"}),
        ("/api/v1/speech/stt", {"audio_url": audio_url, "language": "en"}),
        ("/api/v1/creative/sound", {"prompt": "rain on a tin roof", "duration_seconds": 3}),
    ]


def run(client: httpx.Client, requests: list[tuple[str, dict[str, object]]]) -> float:
    """Send the requests, CLIENTS at a time; the wall time until every job is done."""

    def one(request: tuple[str, dict[str, object]]) -> None:
        path, body = request
        answer = client.post(path, json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json().get("status", "completed") == "completed", answer.text

    start = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(one, requests))
    return time.perf_counter() - start


def measure(store: str, workers: int, sets: int) -> float:
    """Jobs per minute of `sets` mixes, after a warm-up that loads every worker's models.
    Also prints where the CPU went, per job: the API node, the worker nodes, the machine."""
    with fresh_database() as database_url, cluster(store, workers, database_url) as (client, procs):
        audio_url = speech_upload(client)
        jobs = mix(audio_url)
        run(client, jobs * (3 * workers))  # warm-up: each worker meets every kind
        before = [_tree_cpu_seconds(p.pid) for p in procs], _machine_busy_seconds()
        seconds = run(client, jobs * sets)
        after = [_tree_cpu_seconds(p.pid) for p in procs], _machine_busy_seconds()
    count = len(jobs) * sets
    api = (after[0][0] - before[0][0]) / count
    worker = sum(a - b for a, b in zip(after[0][1:], before[0][1:], strict=True)) / count
    machine = (after[1] - before[1]) / count
    print(
        f"  CPU s per job: API node {api:.3f}, workers {worker:.3f}, whole machine "
        f"{machine:.3f} (busy {machine * count / seconds:.2f} of {os.cpu_count()} cores)",
        flush=True,
    )
    return count * 60 / seconds


def reference_worker(mixes: int, audio_path: str) -> None:
    """The reference: the same mix done by the engines themselves in this process, no
    service around them (TTS of TEXT by Piper, the 10 s of speech transcribed by whisper-base
    with its defaults, the 3 s sound effect rendered), after one warm-up mix."""
    from soundstage.config import Settings
    from soundstage.engines.embedder import get_embedder
    from soundstage.engines.sound import scene
    from soundstage.engines.sound.interpret import index_for, interpret
    from soundstage.engines.transcribers.registry import get_transcriber
    from soundstage.engines.tts.registry import get_engine
    from soundstage.media.audio import Audio

    settings = Settings()
    samples, rate = soundfile.read(audio_path, dtype="float32", always_2d=True)
    speech = Audio(samples, rate)
    tts, stt = get_engine("piper"), get_transcriber(settings=settings)
    index = index_for(get_embedder())

    def one_mix() -> None:
        tts.synthesize(TEXT, "en_US-joe-medium")
        stt.transcribe(speech, language="en", word_timestamps=False)
        scene.render(interpret("rain on a tin roof", index), 3, 1)

    one_mix()
    print("ready", flush=True)
    sys.stdin.readline()  # go
    for _ in range(mixes):
        one_mix()


def measure_reference(processes: int, sets: int, audio_path: str) -> float:
    """Jobs per minute of the bare engines in `processes` processes side by side, `sets`
    mixes in all: how well the machine itself runs two such processes at once."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "SOUNDSTAGE_STT__CPU_THREADS": "1",
        "SOUNDSTAGE_TTS__CPU_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    share = -(-sets // processes)
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--reference-worker", str(share), audio_path],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    for child in children:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
    start = time.perf_counter()
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    for child in children:
        assert child.wait() == 0
    seconds = time.perf_counter() - start
    return 3 * share * processes * 60 / seconds


def speech_file() -> str:
    """10 s of speech from the bundled Piper voice, as a WAV file for the reference."""
    sys.path.insert(0, str(ROOT / "src"))
    from soundstage.engines.tts.registry import get_engine

    audio = get_engine("piper").synthesize(TEXT + " " + TEXT[:60], "en_US-joe-medium")
    ten = np.zeros((audio.sample_rate * 10, 1), dtype="float32")
    ten[: min(audio.frames, len(ten))] = audio.samples[: len(ten)]
    path = Path(tempfile.mkdtemp(prefix="bench-ref-")) / "speech.wav"
    soundfile.write(path, ten, audio.sample_rate)
    return str(path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", type=int, default=6, help="mixes of 3 jobs per measurement")
    parser.add_argument("--stores", default="local,s3")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--reference-worker", nargs=2, metavar=("MIXES", "AUDIO"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    if args.reference_worker:
        reference_worker(int(args.reference_worker[0]), args.reference_worker[1])
        return
    audio_path = speech_file()
    results: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.runs):
        for processes in (1, 2):
            rate = measure_reference(processes, args.sets, audio_path)
            results.setdefault(("bare engines", processes), []).append(rate)
            print(f"bare engines x{processes}: {rate:6.1f} jobs/min", flush=True)
        for store in args.stores.split(","):
            for workers in (1, 2):
                rate = measure(store, workers, args.sets)
                results.setdefault((store, workers), []).append(rate)
                print(f"{store:>5} x{workers}: {rate:6.1f} jobs/min", flush=True)
    print()
    median = {key: statistics.median(values) for key, values in results.items()}
    ceiling = median[("bare engines", 2)] / median[("bare engines", 1)]
    print(f"reference, bare engines: 2 processes / 1 = {ceiling:.2f} (this machine's own scaling)")
    for store in args.stores.split(","):
        ratio = median[(store, 2)] / median[(store, 1)]
        print(
            f"{store}: 2 worker nodes / 1 = {ratio:.2f} (expected >= 1.8), "
            f"{ratio / ceiling:.0%} of the machine's own"
        )
    if ("s3", 1) in median and ("local", 1) in median:
        for workers in (1, 2):
            overhead = median[("local", workers)] / median[("s3", workers)] - 1
            print(f"S3 per-job overhead with {workers} worker node(s): {overhead:+.1%} (<= 10%)")


if __name__ == "__main__":
    main()
