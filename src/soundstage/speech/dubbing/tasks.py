"""The dubbing job: measure and decode the stored input, then isolate, transcribe with
speakers, translate, cast, re-voice and fit, mix over the background, write audio or video
like the input, and store it with the two transcripts as SRT. Each stage's wall time is
kept in the result (`stage_ms`).

Memory does not grow with the input's sample rate or channels: what is kept at the output's
rate and channels (the decoded input, the background, the dub track) is written to the work
directory as it comes (raw float32, see raw.py) and read back a block at a time, and the
output is mixed block by block while it is encoded. Only the voice is held whole, mono at
16 kHz (3.8 MB a minute), for the models that hear it (transcription, diarization)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from soundstage.engines.conversion.base import NothingToSay
from soundstage.engines.speakers.audio16k import SAMPLE_RATE
from soundstage.engines.speakers.base import NoSpeech
from soundstage.engines.translators.base import LanguagePair, UnsupportedLanguagePair
from soundstage.engines.translators.registry import route
from soundstage.engines.tts.base import EngineVoice, Gender
from soundstage.jobs import handlers, inputs
from soundstage.jobs.handlers import JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest, MediaRef
from soundstage.media.audio import Audio, InvalidMedia, MediaInfo, iter_decode, probe
from soundstage.models import Voice
from soundstage.speech.dubbing import media, pipeline
from soundstage.speech.dubbing.casting import Candidate, Casting, SpeakerProfile, candidates
from soundstage.speech.dubbing.fitting import Line
from soundstage.speech.dubbing.limits import AUTO, PARAM, check_length
from soundstage.speech.dubbing.pipeline import Heard, Progress
from soundstage.speech.dubbing.raw import BLOCK_FRAMES, RawAudio, RawWriter, mono_at, silent
from soundstage.speech.dubbing.schemas import (
    DubbingResult,
    SpeakerResult,
    TranslatorResult,
    UtteranceResult,
)
from soundstage.speech.dubbing.tiers import TIERS, TierName
from soundstage.speech.dubbing.utterances import Utterance
from soundstage.speech.stt import cues
from soundstage.voices import service as voices

KIND: Final = "dubbing"
COMPLETED_EVENT: Final = "dubbing.completed"
FAILED_EVENT: Final = "dubbing.failed"
CANCELLED_EVENT: Final = "dubbing.cancelled"
# The dub is made (and written) at most at this rate: the dub track is synthesized at 16 to
# 22 kHz, and the separator works at 48 kHz; a 192 kHz input would take 4 times the disk.
MAX_RATE: Final = 48_000
# Each stage's share of the job's progress (about its share of the time on 2 cores).
STAGES: Final = {
    "decoding": 0.03,
    "separating": 0.22,
    "transcribing": 0.17,
    "diarizing": 0.08,
    "translating": 0.05,
    "casting": 0.1,
    "synthesizing": 0.3,
    "encoding": 0.05,
}


class DubbingJob(inputs.KeptInputs):
    """The job's request: the endpoint's DubbingRequest with the pair's primary subtags, and
    its kept input."""

    media_url: str
    # A primary subtag, or `auto`: the transcriber detects it.
    source_language: str
    target_language: str
    tier: TierName
    preserve_voice: bool
    # A compatible API's name for the dub (ElevenLabs' `name`); the native API sets none.
    name: str | None = None


@dataclass(frozen=True)
class _Stored:
    """The stored output and the two SRT transcripts."""

    output_url: MediaRef
    duration_ms: int
    source_transcript_url: MediaRef
    target_transcript_url: MediaRef


class _Stages:
    """Progress through the stages, and the wall time each took."""

    def __init__(self, ctx: JobContext[JobRequest]) -> None:
        self._ctx = ctx
        self._done = 0.0
        self.elapsed_ms: dict[str, int] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[Progress]:
        begin, share = self._done, STAGES[name]
        self._ctx.progress(begin, name)
        started = time.perf_counter()

        reached = 0.0

        def progress(fraction: float) -> None:
            # Never back within a stage (a transcription of the mixture after one of the
            # isolated voice that heard no words starts again from 0).
            nonlocal reached
            reached = max(reached, min(fraction, 1.0))
            self._ctx.progress(begin + share * reached, name)

        yield progress
        self.elapsed_ms[name] = round((time.perf_counter() - started) * 1000)
        self._done = begin + share


@dataclass(frozen=True)
class _Revoiced:
    """What the source says and how it is said again: the lines, their translations and
    where the dub put each, the speakers and their voices, the dub track."""

    heard: Heard
    source_language: str
    pair: LanguagePair
    translations: list[str]
    profiles: list[SpeakerProfile]
    castings: dict[str, Casting]
    placed: list[Line]
    track: RawAudio


def dub(ctx: JobContext[DubbingJob]) -> JobOutcome[DubbingResult]:
    tier = TIERS[ctx.request.tier]
    stages = _Stages(ctx)
    source, pool = _input_and_voices(ctx)
    with stages.stage("decoding"):
        info = probe(source, param=PARAM)
        original = _decoded(ctx, source, min(info.sample_rate, MAX_RATE))
        # Reserved from the header at submit; charged for what the media really holds.
        price = ctx.price_of_decoded(tier.operation, original.duration_ms)
    with stages.stage("separating") as progress:
        stems = pipeline.isolate(original, tier, ctx.workdir, progress)
    done = _revoice(ctx, stages, original, stems, pool)
    original.unlink()
    stems.voice.unlink()
    with stages.stage("encoding"):
        lines = done.heard.utterances
        output = _mixed(stems.background, done.track)
        stored = _store(
            ctx, source, info, output, stems.background, lines, done.translations, done.placed
        )
    return JobOutcome(_result(ctx.request, done, stored, stages.elapsed_ms), credits_used=price)


def _input_and_voices(ctx: JobContext[DubbingJob]) -> tuple[Path, list[Candidate]]:
    """The stored input's path, and the voices that may say the target language."""
    target_language = ctx.request.target_language
    source = inputs.path(ctx, 0, ctx.request.media_url, param=PARAM)
    with ctx.db.read_session() as session:
        speaking = voices.active_voices(session, target_language)
        pool = candidates([(voice.id, _engine_voice(voice)) for voice in speaking])
    if not pool:
        raise UnsupportedLanguagePair(
            f"No voice speaks {target_language!r} here any more.", param="target_language"
        )
    return source, pool


def _revoice(
    ctx: JobContext[DubbingJob],
    stages: _Stages,
    original: RawAudio,
    stems: pipeline.Isolated,
    pool: list[Candidate],
) -> _Revoiced:
    """The isolated voice heard (transcribed, speakers found), translated, cast and said
    again in the target language, each line in its span."""
    request = ctx.request
    target_language = request.target_language
    voice16 = mono_at(stems.voice, SAMPLE_RATE)
    with stages.stage("transcribing") as progress:
        transcript = pipeline.transcribe(
            voice16,
            mixture=lambda: mono_at(original, SAMPLE_RATE),
            language=None if request.source_language == AUTO else request.source_language,
            tier=TIERS[request.tier],
            settings=ctx.settings,
            progress=progress,
        )
    source_language = _source_language(request, transcript.language)
    with stages.stage("diarizing") as progress:
        heard = pipeline.hear(transcript, voice16, progress)
    if not heard.utterances:
        raise NoSpeech("The media has no speech to dub.", param=PARAM)
    lines = heard.utterances
    with stages.stage("translating"):
        translator, pair = route(source_language, target_language)
        translations = pipeline.translate(lines, voice16, translator, pair)
    with stages.stage("casting"):
        profiles = pipeline.speaker_profiles(lines, voice16)
        castings = pipeline.cast_voices(
            profiles, pool, language=target_language, preserve_voice=request.preserve_voice
        )
    del voice16
    track = silent(ctx.workdir / "dub.f32", stems.voice.sample_rate, 1, stems.voice.frames)
    with stages.stage("synthesizing") as progress:
        placed = pipeline.say_all(lines, translations, castings, stems.voice, track, progress)
    if not any(line.spoken for line in placed):
        raise NothingToSay(
            f"The {target_language} voices could say none of the translation.",
            param="target_language",
        )
    return _Revoiced(heard, source_language, pair, translations, profiles, castings, placed, track)


def _source_language(request: DubbingJob, heard: str) -> str:
    """The source's language: the one asked for, or (`auto`) the one the transcriber
    heard, which must then differ from the target (422 unsupported_language_pair)."""
    if request.source_language != AUTO:
        return request.source_language
    if heard == request.target_language:
        raise UnsupportedLanguagePair(
            f"The speech was heard to be in {heard!r}, the target language already.",
            param="source_language",
        )
    return heard


def _result(
    request: DubbingJob, done: _Revoiced, stored: _Stored, stage_ms: dict[str, int]
) -> DubbingResult:
    """The job's result: its media, and its account of the dub."""
    lines = done.heard.utterances
    return DubbingResult(
        output_url=stored.output_url,
        duration_ms=stored.duration_ms,
        source_transcript_url=stored.source_transcript_url,
        target_transcript_url=stored.target_transcript_url,
        source_language=done.source_language,
        target_language=request.target_language,
        tier=TIERS[request.tier].name,
        preserve_voice=request.preserve_voice,
        transcript=done.heard.transcript.text,
        translator=TranslatorResult(name=done.pair.translator, via=list(done.pair.via)),
        speakers=[_speaker(done.castings[p.speaker], p.median_hz) for p in done.profiles],
        utterances=[
            _utterance(line, text, spot)
            for line, text, spot in zip(lines, done.translations, done.placed, strict=True)
        ],
        stage_ms=stage_ms,
    )


def _decoded(ctx: JobContext[DubbingJob], source: Path, rate: int) -> RawAudio:
    """The input's audio at `rate`, in the work directory, refused (media_too_long) as soon
    as it runs over the limit: the header it was accepted by may understate it."""
    writer: RawWriter | None = None
    with ExitStack() as files:
        for block in iter_decode(source, sample_rate=rate, block_frames=BLOCK_FRAMES, param=PARAM):
            if writer is None:
                path = ctx.workdir / "decoded.f32"
                writer = files.enter_context(RawWriter(path, block.sample_rate, block.channels))
            writer.write(block.samples)
            check_length(ctx.settings, writer.audio.duration_ms)
        if writer is None:
            raise InvalidMedia("The media has no audio to dub.", param=PARAM)
        return writer.audio


def _mixed(background: RawAudio, track: RawAudio) -> Iterator[Audio]:
    """The dub track (mono) in every channel over the background, block by block."""
    voice = track.blocks()
    for block in background.blocks():
        said = next(voice).samples
        yield Audio(np.add(block.samples, said, dtype=np.float32), block.sample_rate)


def _engine_voice(voice: Voice) -> EngineVoice:
    gender: Gender = "female" if voice.gender == "female" else "male"
    return EngineVoice(
        voice.engine, voice.engine_voice, voice.language, gender, voice.accent, voice.name
    )


def _store(
    ctx: JobContext[DubbingJob],
    source: Path,
    info: MediaInfo,
    output: Iterator[Audio],
    background: RawAudio,
    lines: list[Utterance],
    translations: list[str],
    placed: list[Line],
) -> _Stored:
    """Write and store the output and the two SRT transcripts: their media references."""
    path, content_type = media.write(info, source, output, ctx.workdir)
    heard = [cues.Phrase(line.text, line.start_ms, line.end_ms, line.speaker) for line in lines]
    said = [
        cues.Phrase(text, spot.start_ms, max(spot.end_ms, spot.start_ms + 1), line.speaker)
        for line, text, spot in zip(lines, translations, placed, strict=True)
        if spot.spoken and text.strip()
    ]
    source_srt, target_srt = ctx.workdir / "source.srt", ctx.workdir / "target.srt"
    source_srt.write_text(cues.to_srt(heard), encoding="utf-8")
    target_srt.write_text(cues.to_srt(said), encoding="utf-8")
    return _Stored(
        output_url=ctx.save_file(path, content_type, background.duration_ms),
        duration_ms=background.duration_ms,
        source_transcript_url=ctx.save_file(source_srt, "application/x-subrip"),
        target_transcript_url=ctx.save_file(target_srt, "application/x-subrip"),
    )


def _speaker(role: Casting, median_hz: float | None) -> SpeakerResult:
    return SpeakerResult(
        speaker=role.speaker,
        voice_id=role.voice_id,
        engine=role.voice.engine,
        engine_voice=role.voice.voice,
        gender=role.voice.gender,
        source_median_pitch_hz=None if median_hz is None else round(median_hz, 1),
        pitch_shift_semitones=role.semitones,
        similarity=role.similarity,
    )


def _utterance(line: Utterance, translation: str, spot: Line) -> UtteranceResult:
    return UtteranceResult(
        speaker=line.speaker,
        start_ms=line.start_ms,
        end_ms=line.end_ms,
        text=line.text,
        translation=translation,
        output_start_ms=spot.start_ms,
        output_end_ms=spot.end_ms,
        time_ratio=spot.time_ratio,
        engine_rate=spot.engine_rate,
        spoken=spot.spoken,
    )


def register() -> None:
    """Declare this feature's job kinds (called by the composition root, soundstage.app_tasks)."""
    handlers.declare(
        KIND,
        dub,
        request=DubbingJob,
        result=DubbingResult,
        completed_event=COMPLETED_EVENT,
        failed_event=FAILED_EVENT,
        cancelled_event=CANCELLED_EVENT,
    )
