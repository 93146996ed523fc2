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
from soundstage.engines.cache import MODELS
from soundstage.jobs.handlers import JobContext, JobOutcome, register
from soundstage.jobs.payloads import JobRequest, JobResult, MediaLink
from soundstage.jobs.tasks import task
from soundstage.realtime.live import register_lost_kind


class EchoRequest(JobRequest):
    value: str | int
    credits: int = 0


class EchoResult(JobResult):
    echo: str | int


class SleepRequest(JobRequest):
    seconds: float
    marker: str | None = None
    # A file to which the handler appends when it began and ended (time.monotonic(), the
    # same clock in every process of the machine), one line per run.
    spans: str | None = None
    credits: int = 0


class SleepResult(JobResult):
    slept_ms: int


class NoRequest(JobRequest):
    """A kind that reads nothing from its request."""


class NoResult(JobResult):
    """A kind that never completes."""


class ToneResult(JobResult):
    output_url: MediaLink
    duration_ms: int


class PricedRequest(JobRequest):
    price: int
    seconds: float = 0


class PricedResult(JobResult):
    price: int


class ModelsResult(JobResult):
    loaded: list[str]  # "<kind>: <name>" of every model in the process's cache


@register("test.echo", request=EchoRequest, result=EchoResult)
def echo(ctx: JobContext[EchoRequest]) -> JobOutcome[EchoResult]:
    return JobOutcome(EchoResult(echo=ctx.request.value), ctx.request.credits)


@register("test.sleep", request=SleepRequest, result=SleepResult)
def sleep(ctx: JobContext[SleepRequest]) -> JobOutcome[SleepResult]:
    """Sleeps `seconds` in small steps, appending this attempt's pid to `marker` first, and
    its span to `spans` at the end."""
    began = time.monotonic()
    marker = ctx.request.marker
    if marker:
        with open(marker, "a") as out:
            out.write(f"{os.getpid()}\n")
    steps = max(1, int(ctx.request.seconds / 0.05))
    for step in range(steps):
        time.sleep(0.05)
        ctx.progress((step + 1) / steps, "sleeping")
    if ctx.request.spans:
        with open(ctx.request.spans, "a") as out:
            out.write(f"{began:.6f} {time.monotonic():.6f}\n")
    return JobOutcome(SleepResult(slept_ms=int(ctx.request.seconds * 1000)), ctx.request.credits)


@register("test.invalid", request=NoRequest, result=NoResult)
def invalid(ctx: JobContext[NoRequest]) -> JobOutcome[NoResult]:
    raise InvalidField("value: not acceptable to the engine.", param="value", code="engine_refused")


@register("test.crash", request=NoRequest, result=NoResult)
def crash(ctx: JobContext[NoRequest]) -> JobOutcome[NoResult]:
    raise RuntimeError("a bug in a handler")


@register("test.tone", request=NoRequest, result=ToneResult)
def tone(ctx: JobContext[NoRequest]) -> JobOutcome[ToneResult]:
    """Writes one second of silence as WAV and returns it as a media output."""
    path = Path(ctx.workdir) / "tone.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(b"\x00\x00" * 16000)
    ref = ctx.save_file(path, "audio/wav", 1000)
    return JobOutcome(ToneResult(output_url=ref, duration_ms=1000), 10)


@register("test.priced", request=PricedRequest, result=PricedResult)
def priced(ctx: JobContext[PricedRequest]) -> JobOutcome[PricedResult]:
    """Priced once "measured": reserves `price` credits while running, then sleeps `seconds`."""
    ctx.reserve_credits(ctx.request.price)
    steps = max(1, int(ctx.request.seconds / 0.05))
    for step in range(steps):
        time.sleep(0.05)
        ctx.progress((step + 1) / steps, "working")
    return JobOutcome(PricedResult(price=ctx.request.price), ctx.request.price)


@register("test.models", request=NoRequest, result=ModelsResult)
def models(ctx: JobContext[NoRequest]) -> JobOutcome[ModelsResult]:
    """The models its worker process had loaded when it ran (engines.cache)."""
    return JobOutcome(ModelsResult(loaded=[f"{k}: {n}" for k, n in MODELS.loaded()]), 0)


@task("test.touch")
def touch(db: Database, settings: Settings, path: str, delay_seconds: str) -> None:
    """A background task declared by a plugin: writes `path` (atomically) after a delay."""
    time.sleep(float(delay_seconds))
    partial = Path(f"{path}.{os.getpid()}.partial")
    partial.write_text("rendered")
    partial.replace(path)


# The realtime core's tests' session kind (tests/realtime): a worker fails such a job when the
# API process that ran its session died.
register_lost_kind("shout_realtime")
