"""The voice-isolation job: fetch, measure and price the input, separate it into the voice and
the rest, encode and store the stems."""

from __future__ import annotations

from typing import Any

from soundstage.core.audio import decode, probe
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs.handlers import JobContext, JobOutcome, register
from soundstage.speech.separators.registry import get_separator
from soundstage.storage import service as storage

KIND = "isolation"


@register(KIND)
def isolate_voice(ctx: JobContext) -> JobOutcome:
    request: dict[str, Any] = ctx.request
    source = ctx.workdir / "input"
    with ctx.db.read_session() as session:
        storage.read_input(session, ctx.settings, request["audio_url"], source, param="audio_url")
    ctx.reserve_credits(rates.for_duration(Operation.ISOLATION, probe(source).duration_ms))
    ctx.progress(0.05, "decoding")
    mixture = decode(source)
    price = ctx.price_of_decoded(Operation.ISOLATION, mixture.duration_ms)
    ctx.progress(0.1, "separating")
    stems = get_separator().separate(
        mixture, progress=lambda done: ctx.progress(0.1 + 0.8 * done, "separating")
    )
    ctx.progress(0.9, "encoding")
    fmt = request["format"]
    wanted = {"vocals": stems.vocals}
    if request["return_background"]:
        wanted["background"] = stems.background
    result: dict[str, Any] = {"duration_ms": mixture.duration_ms}
    for name, audio in wanted.items():
        result[f"{name}_url"], _ = ctx.save_audio(audio, f"{name}.{fmt}", fmt)
    return JobOutcome(result, credits_used=price)
