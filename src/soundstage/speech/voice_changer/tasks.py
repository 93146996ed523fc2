"""The voice-changer job: fetch, measure and price the input, separate the voice from its
background, re-voice the speech in the target voice (same words, timing and intonation), mix
the background back unless asked not to, encode and store."""

from __future__ import annotations

from typing import Any

import numpy as np

from soundstage.core.audio import Audio, decode, probe
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs.handlers import JobContext, JobOutcome, register
from soundstage.speech.conversion.registry import get_converter
from soundstage.speech.separators.registry import get_separator
from soundstage.storage import service as storage

KIND = "voice_changer"
CONTENT_NAMES = {"mp3": "voice.mp3", "wav": "voice.wav", "flac": "voice.flac"}
# Shares of the job's progress: separating, then re-voicing, then encoding.
_SEPARATED, _CONVERTED = 0.3, 0.92


@register(KIND)
def change_voice(ctx: JobContext) -> JobOutcome:
    request: dict[str, Any] = ctx.request
    source = ctx.workdir / "input"
    with ctx.db.read_session() as session:
        storage.read_input(session, ctx.settings, request["audio_url"], source, param="audio_url")
    ctx.reserve_credits(rates.for_duration(Operation.VOICE_CHANGER, probe(source).duration_ms))
    ctx.progress(0.02, "decoding")
    original = decode(source)
    price = ctx.price_of_decoded(Operation.VOICE_CHANGER, original.duration_ms)
    stems = get_separator().separate(
        original,
        progress=lambda done: ctx.progress(0.02 + (_SEPARATED - 0.02) * done, "separating"),
    )
    converted = get_converter().convert(
        stems.vocals,
        engine=request["engine"],
        engine_voice=request["engine_voice"],
        language=request["language"],
        progress=lambda done: ctx.progress(
            _SEPARATED + (_CONVERTED - _SEPARATED) * done, "re-voicing"
        ),
    )
    voice = converted.audio.samples[:, :1]
    if request["remove_background_noise"]:
        output = Audio(np.ascontiguousarray(voice), original.sample_rate)
    else:
        # The new voice in every channel, over the input's own background.
        mixed = stems.background.samples + voice
        output = Audio(np.ascontiguousarray(mixed, dtype=np.float32), original.sample_rate)
    ctx.progress(_CONVERTED, "encoding")
    fmt = request["format"]
    reference, duration_ms = ctx.save_audio(output, CONTENT_NAMES[fmt], fmt)
    result = {
        "output_url": reference,
        "duration_ms": duration_ms,
        "transcript": converted.text,
    }
    return JobOutcome(result, credits_used=price)
