"""The voice-changer job: fetch, check and price the input, separate the voice from its
background, re-voice the speech in the target voice (same words, timing and intonation), mix
the background back unless asked not to, encode and store.

Memory is bounded by the duration cap, not by the input's rate or channels: the input is
decoded at most at 48 kHz and separated block by block; the background goes to the work
directory as it comes, and only the voice, mono at the converter's working rate, is held
whole (the converter transcribes and re-voices it whole); the new voice is mixed back over
the background block by block while encoding."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Final

import numpy as np
import soxr

from soundstage.credits.rates import Operation
from soundstage.engines.conversion.base import WORKING_RATE
from soundstage.engines.conversion.registry import get_converter
from soundstage.engines.separators.registry import get_separator
from soundstage.jobs import handlers
from soundstage.jobs.handlers import InputRule, JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest
from soundstage.media import encodings
from soundstage.media.audio import (
    Audio,
    EncodeFormat,
    EncodingFileEncoder,
    FileEncoder,
    Samples,
    iter_decode,
)
from soundstage.speech.voice_changer.schemas import VoiceChangerResult

KIND = "voice_changer"
CONTENT_NAMES = {"mp3": "voice.mp3", "wav": "voice.wav", "flac": "voice.flac"}
PARAM: Final = "audio_url"
OPERATION: Final = "the voice changer"
# The output's highest sample rate (higher inputs are decoded at it): the new voice is
# synthesized at 16-22 kHz, and the separator works at 48 kHz.
MAX_OUTPUT_RATE: Final = 48_000
BLOCK_FRAMES: Final = 1 << 16
# Shares of the job's progress: separating, then re-voicing, then mixing and encoding.
_DECODED, _SEPARATED, _CONVERTED = 0.05, 0.3, 0.92


class VoiceChangerJob(JobRequest):
    """The job's request: the endpoint's VoiceChangerRequest, with the language settled and
    the target voice resolved to its engine's voice."""

    audio_url: str
    format: EncodeFormat
    remove_background_noise: bool
    language: str
    # The catalog voice asked for (the history's filter); `engine_voice` is what is spoken.
    voice_id: str | None = None
    engine: str
    engine_voice: str
    # The output's encoding (a media.encodings name), for the compatible APIs' exact output
    # formats; None: `format` as the native API makes it.
    encoding: encodings.EncodingName | None = None


def change_voice(ctx: JobContext[VoiceChangerJob]) -> JobOutcome[VoiceChangerResult]:
    request = ctx.request
    rule = InputRule(
        PARAM, ctx.settings.voice_changer.max_duration_ms, OPERATION, Operation.VOICE_CHANGER
    )
    opened = ctx.open_audio_input(
        request.audio_url, rule, stage="decoding", block_frames=BLOCK_FRAMES
    )
    rate = min(opened.info.sample_rate, MAX_OUTPUT_RATE)
    keep_background = not request.remove_background_noise
    background = ctx.workdir / "background.f32"
    speech, channels, frames = _separated(
        ctx, opened.path, rate, background if keep_background else None
    )
    converted = get_converter().convert(
        speech,
        engine=request.engine,
        engine_voice=request.engine_voice,
        language=request.language,
        progress=lambda done: ctx.progress(
            _SEPARATED + (_CONVERTED - _SEPARATED) * done, "re-voicing"
        ),
    )
    del speech
    ctx.progress(_CONVERTED, "encoding")
    voice = _resampled_blocks(converted.audio.samples[:, 0], WORKING_RATE, rate, frames)
    with _encoder(ctx.workdir, request) as encoder:
        if keep_background:
            # The new voice in every channel, over the input's own background.
            with background.open("rb") as rest:
                for block in voice:
                    under = np.fromfile(rest, dtype=np.float32, count=block.size * channels)
                    mixed = under.reshape(-1, channels) + block[:, None]
                    encoder.write(Audio(mixed, rate))
        else:
            for block in voice:
                encoder.write(Audio(block.reshape(-1, 1), rate))
        written = encoder.close()
    result = VoiceChangerResult(
        output_url=ctx.save_file(encoder.path, written.content_type, written.duration_ms),
        duration_ms=written.duration_ms,
        transcript=converted.text,
    )
    return JobOutcome(result, credits_used=opened.price)


def _encoder(workdir: Path, request: VoiceChangerJob) -> FileEncoder | EncodingFileEncoder:
    if request.encoding is None:
        return FileEncoder(workdir / CONTENT_NAMES[request.format], request.format)
    named = encodings.encoding(request.encoding)
    return EncodingFileEncoder(workdir / f"voice.{named.container}", named)


def _separated(
    ctx: JobContext[VoiceChangerJob], source: Path, rate: int, background: Path | None
) -> tuple[Audio, int, int]:
    """The input's voice, mono at the converter's working rate, with its channel count and
    its length at `rate`; its background (float32 at `rate`, interleaved) is written to
    `background` as it comes, if given. The voice too is spilled to the work directory as it
    comes and read back at once: one array of its exact length, never a list of parts and
    their joined copy."""

    def blocks() -> Iterator[Audio]:
        return iter_decode(source, sample_rate=rate, block_frames=BLOCK_FRAMES, param=PARAM)

    down = _stream(rate, WORKING_RATE)
    voice_path = ctx.workdir / "voice.f32"
    written = frames = channels = 0
    with ExitStack() as files:
        voice = files.enter_context(voice_path.open("wb"))
        spill = files.enter_context(background.open("wb")) if background is not None else None
        for part in get_separator().separate_blocks(
            blocks,
            progress=lambda done: ctx.progress(
                _DECODED + (_SEPARATED - _DECODED) * done, "separating"
            ),
        ):
            if spill is not None:
                spill.write(part.background.samples.tobytes())
            mono = part.vocals.samples.mean(axis=1, dtype=np.float32)
            mono = mono if down is None else down.resample_chunk(mono, last=False)
            voice.write(mono.tobytes())
            written += mono.size
            frames += part.vocals.frames
            channels = part.vocals.channels
        if down is not None:
            tail = down.resample_chunk(np.zeros(0, dtype=np.float32), last=True)
            voice.write(tail.tobytes())
            written += tail.size
        wanted = _frames_at(frames, rate, WORKING_RATE)
        if written < wanted:  # resampling may end a sample or two short
            voice.write(np.zeros(wanted - written, dtype=np.float32).tobytes())
    speech = np.fromfile(voice_path, dtype=np.float32, count=wanted)
    voice_path.unlink()
    return Audio(speech.reshape(-1, 1), WORKING_RATE), channels, frames


def _resampled_blocks(
    samples: Samples, source_rate: int, rate: int, frames: int
) -> Iterator[Samples]:
    """Mono samples at `rate`, exactly `frames` long, in blocks of BLOCK_FRAMES (the last
    may be shorter), resampled as they go."""
    up = _stream(source_rate, rate)
    step = max(1, BLOCK_FRAMES * source_rate // rate)
    pending = np.zeros(0, dtype=np.float32)
    produced = 0
    for start in range(0, samples.size, step):
        chunk = samples[start : start + step]
        last = start + step >= samples.size
        converted = chunk if up is None else up.resample_chunk(chunk, last=last)
        pending = np.concatenate([pending, converted])
        while pending.size >= BLOCK_FRAMES and produced + BLOCK_FRAMES <= frames:
            yield pending[:BLOCK_FRAMES]
            pending = pending[BLOCK_FRAMES:]
            produced += BLOCK_FRAMES
    rest = _exact(pending, frames - produced)
    for start in range(0, rest.size, BLOCK_FRAMES):
        yield rest[start : start + BLOCK_FRAMES]


def _stream(source_rate: int, rate: int) -> soxr.ResampleStream | None:
    if source_rate == rate:
        return None
    return soxr.ResampleStream(source_rate, rate, 1, dtype="float32", quality="HQ")


def _frames_at(frames: int, source_rate: int, rate: int) -> int:
    """The length at another rate, rounded half up, as media.audio counts it."""
    return (2 * frames * rate + source_rate) // (2 * source_rate)


def _exact(samples: Samples, frames: int) -> Samples:
    """Cut or padded with silence to exactly `frames` (resampling may end a sample off)."""
    if samples.size >= frames:
        return np.ascontiguousarray(samples[:frames], dtype=np.float32)
    return np.concatenate([samples, np.zeros(frames - samples.size, dtype=np.float32)])


def register() -> None:
    """Declare this feature's job kinds (called by the composition root, soundstage.app_tasks)."""
    handlers.declare(KIND, change_voice, request=VoiceChangerJob, result=VoiceChangerResult)
