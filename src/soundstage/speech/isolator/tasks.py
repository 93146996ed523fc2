"""The voice-isolation job: fetch, check and price the input, separate it into the voice and
the rest, and encode and store the stems, block by block: memory stays bounded whatever the
input's length (it grows with its channels only)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Final

from soundstage.credits.rates import Operation
from soundstage.engines.separators.registry import get_separator
from soundstage.jobs import handlers
from soundstage.jobs.handlers import InputRule, JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest
from soundstage.media.audio import Audio, EncodeFormat, FileEncoder, iter_decode, kept_rate
from soundstage.speech.isolator.schemas import IsolationResult

KIND = "isolation"
PARAM: Final = "audio_url"
OPERATION: Final = "voice isolation"
# Decoded and separated this many frames at a time: 2 MB a block at 192 kHz x 8 channels.
BLOCK_FRAMES: Final = 1 << 16


class IsolationJob(JobRequest):
    """The job's request: the endpoint's IsolationRequest as submitted."""

    audio_url: str
    format: EncodeFormat
    return_background: bool


def isolate_voice(ctx: JobContext[IsolationJob]) -> JobOutcome[IsolationResult]:
    request = ctx.request
    rule = InputRule(PARAM, ctx.settings.isolation.max_duration_ms, OPERATION, Operation.ISOLATION)
    opened = ctx.open_audio_input(
        request.audio_url, rule, stage="decoding", block_frames=BLOCK_FRAMES
    )
    source = opened.path
    ctx.progress(0.1, "separating")

    def blocks() -> Iterator[Audio]:
        return iter_decode(source, block_frames=BLOCK_FRAMES, param=PARAM)

    fmt = request.format
    # The stems keep the input's rate (the separator answers at it) wherever the format can
    # hold it: every rate in WAV and FLAC, the nine MPEG rates (8 to 48 kHz) in MP3.
    rate = kept_rate(fmt, opened.info.sample_rate)
    names = ["vocals", "background"] if request.return_background else ["vocals"]
    paths = {name: ctx.workdir / f"{name}.{fmt}" for name in names}
    with ExitStack() as stack:
        encoders = {
            name: stack.enter_context(FileEncoder(path, fmt, sample_rate=rate))
            for name, path in paths.items()
        }
        separations = get_separator().separate_blocks(
            blocks, progress=lambda done: ctx.progress(0.1 + 0.88 * done, "separating")
        )
        for part in separations:
            encoders["vocals"].write(part.vocals)
            if "background" in encoders:
                encoders["background"].write(part.background)
        ctx.progress(0.98, "encoding")
        encoded = {name: encoder.close() for name, encoder in encoders.items()}
    saved = {
        name: ctx.save_file(paths[name], written.content_type, written.duration_ms)
        for name, written in encoded.items()
    }
    result = IsolationResult(
        duration_ms=opened.duration_ms,
        sample_rate=encoded["vocals"].sample_rate,
        vocals_url=saved["vocals"],
    )
    if "background" in saved:
        result.background_url = saved["background"]
    return JobOutcome(result, credits_used=opened.price)


def register() -> None:
    """Declare this feature's job kinds (called by the composition root, soundstage.app_tasks)."""
    handlers.declare(KIND, isolate_voice, request=IsolationJob, result=IsolationResult)
