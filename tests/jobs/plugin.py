"""Job kinds used to exercise the job machinery itself (loaded into workers through the
`jobs.plugins` setting, as a deployment would load its own)."""

from __future__ import annotations

import os
import time
import wave
from pathlib import Path

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import InvalidField
from soundstage.jobs.handlers import JobContext, JobOutcome, register
from soundstage.jobs.tasks import task
from soundstage.storage import service as storage


@register("test.echo")
def echo(ctx: JobContext) -> JobOutcome:
    return JobOutcome({"echo": ctx.request["value"]}, ctx.request.get("credits", 0))


@register("test.sleep")
def sleep(ctx: JobContext) -> JobOutcome:
    """Sleeps `seconds` in small steps, appending this attempt's pid to `marker` first."""
    marker = ctx.request.get("marker")
    if marker:
        with open(marker, "a") as out:
            out.write(f"{os.getpid()}\n")
    steps = max(1, int(ctx.request["seconds"] / 0.05))
    for step in range(steps):
        time.sleep(0.05)
        ctx.progress((step + 1) / steps, "sleeping")
    return JobOutcome(
        {"slept_ms": int(ctx.request["seconds"] * 1000)}, ctx.request.get("credits", 0)
    )


@register("test.invalid")
def invalid(ctx: JobContext) -> JobOutcome:
    raise InvalidField("value: not acceptable to the engine.", param="value", code="engine_refused")


@register("test.crash")
def crash(ctx: JobContext) -> JobOutcome:
    raise RuntimeError("a bug in a handler")


@register("test.tone")
def tone(ctx: JobContext) -> JobOutcome:
    """Writes one second of silence as WAV and returns it as a media output."""
    path = Path(ctx.workdir) / "tone.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(b"\x00\x00" * 16000)
    with ctx.db.session() as session:
        media = storage.save(
            session,
            ctx.settings,
            ctx.principal,
            path,
            filename="tone.wav",
            content_type="audio/wav",
            duration_ms=1000,
            purpose="output",
            job_id=ctx.job_id,
        )
        ref = storage.media_ref(media)
    return JobOutcome({"output_url": ref, "duration_ms": 1000}, 10)


@register("test.priced")
def priced(ctx: JobContext) -> JobOutcome:
    """Priced once "measured": reserves `price` credits while running, then sleeps `seconds`."""
    ctx.reserve_credits(ctx.request["price"])
    steps = max(1, int(ctx.request.get("seconds", 0) / 0.05))
    for step in range(steps):
        time.sleep(0.05)
        ctx.progress((step + 1) / steps, "working")
    return JobOutcome({"price": ctx.request["price"]}, ctx.request["price"])


@task("test.touch")
def touch(db: Database, settings: Settings, path: str, delay_seconds: str) -> None:
    """A background task declared by a plugin: writes `path` (atomically) after a delay."""
    time.sleep(float(delay_seconds))
    partial = Path(f"{path}.{os.getpid()}.partial")
    partial.write_text("rendered")
    partial.replace(path)
