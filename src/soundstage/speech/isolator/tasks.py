"""The voice-isolation job: fetch, check and price the input, separate it into the voice and
the rest, and encode and store the stems, block by block: memory stays bounded whatever the
input's length (it grows with its channels only)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any, Final

from soundstage.core.audio import Audio, FileEncoder, iter_decode, kept_rate, probe
from soundstage.core.input_limits import check_input, decoded_duration_ms
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs.handlers import JobContext, JobOutcome, register
from soundstage.speech.separators.registry import get_separator
from soundstage.storage import service as storage

KIND = "isolation"
PARAM: Final = "audio_url"
OPERATION: Final = "voice isolation"
# Decoded and separated this many frames at a time: 2 MB a block at 192 kHz x 8 channels.
BLOCK_FRAMES: Final = 1 << 16


@register(KIND)
def isolate_voice(ctx: JobContext) -> JobOutcome:
    request: dict[str, Any] = ctx.request
    source = ctx.workdir / "input"
    with ctx.db.read_session() as session:
        storage.read_input(session, ctx.settings, request["audio_url"], source, param=PARAM)
    info = probe(source, param=PARAM)
    limit_ms = ctx.settings.isolation.max_duration_ms
    check_input(info, limit_ms, param=PARAM, operation=OPERATION)
    ctx.reserve_credits(rates.for_duration(Operation.ISOLATION, info.duration_ms))
    ctx.progress(0.02, "decoding")
    duration_ms = decoded_duration_ms(
        source, limit_ms, param=PARAM, operation=OPERATION, block_frames=BLOCK_FRAMES
    )
    price = ctx.price_of_decoded(Operation.ISOLATION, duration_ms)
    ctx.progress(0.1, "separating")

    def blocks() -> Iterator[Audio]:
        return iter_decode(source, block_frames=BLOCK_FRAMES, param=PARAM)

    fmt = request["format"]
    # The stems keep the input's rate (the separator answers at it) wherever the format can
    # hold it: every rate in WAV and FLAC, the nine MPEG rates (8 to 48 kHz) in MP3.
    rate = kept_rate(fmt, info.sample_rate)
    names = ["vocals", "background"] if request["return_background"] else ["vocals"]
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
    result: dict[str, Any] = {
        "duration_ms": duration_ms,
        "sample_rate": encoded["vocals"].sample_rate,
    }
    for name, written in encoded.items():
        result[f"{name}_url"] = ctx.save_file(
            paths[name], written.content_type, written.duration_ms
        )
    return JobOutcome(result, credits_used=price)
