"""The music job: generate the piece, encode and store the audio, its MIDI score and (with
vocals) the vocal stem, and describe what was made."""

from __future__ import annotations

from pydantic import BaseModel

from soundstage.creative.music.schemas import (
    InstrumentOut,
    MusicLicense,
    MusicResult,
    SectionOut,
    music_license,
)
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines.fluidsynth import DEFAULT_SOUNDFONT, SoundfontName
from soundstage.engines.music.generator import Piece, Singer, generate
from soundstage.engines.music.instruments import program_name
from soundstage.engines.tts.base import Gender
from soundstage.engines.tts.registry import get_engine
from soundstage.jobs import handlers
from soundstage.jobs.handlers import JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest, MediaRef
from soundstage.media import encodings
from soundstage.media.audio import Audio, EncodeFormat, EncodingFileEncoder

KIND = "music"
MIDI_CONTENT_TYPE = "audio/midi"


class SingerChoice(BaseModel):
    """The voice that sings, resolved to its engine's voice."""

    voice_id: str
    engine: str
    engine_voice: str
    gender: Gender


class MusicJob(JobRequest):
    """The job's request: the endpoint's MusicRequest with its seed fixed and its singer
    chosen (None for an instrumental)."""

    prompt: str
    duration_seconds: int
    format: EncodeFormat
    seed: int
    singer: SingerChoice | None = None
    soundfont: SoundfontName = DEFAULT_SOUNDFONT
    # The output's encoding (a media.encodings name), for the compatible APIs' exact output
    # formats; None: `format` as the native API makes it.
    encoding: encodings.EncodingName | None = None


class Description(BaseModel):
    """The result's account of the piece: genre, tempo, key, seed, sections, instruments."""

    genre: str
    bpm: int
    key: str
    seed: int
    sections: list[SectionOut]
    instruments: list[InstrumentOut]


def generate_music(ctx: JobContext[MusicJob]) -> JobOutcome[MusicResult]:
    request = ctx.request
    singer = None
    if request.singer is not None:
        chosen = request.singer
        singer = Singer(get_engine(chosen.engine), chosen.engine_voice, chosen.gender)
    ctx.progress(0.05, "composing")
    seconds = request.duration_seconds
    piece = generate(
        request.prompt,
        float(seconds),
        request.seed,
        singer=singer,
        soundfont=request.soundfont,
    )
    ctx.progress(0.8, "encoding")
    output, duration_ms = _save(ctx, piece.mix, "music")
    result = MusicResult(
        output_url=output,
        duration_ms=duration_ms,
        **describe(piece, request.seed).model_dump(),
        soundfont=request.soundfont,
        midi_url=_save_midi(ctx, piece),
        # Validated from its dump, so that every field counts as set and is stored.
        license=MusicLicense.model_validate(music_license()),
    )
    if piece.vocals is not None:
        result.vocals_url, _ = _save(ctx, piece.vocals, "vocals")
    return JobOutcome(result, credits_used=rates.for_duration(Operation.MUSIC, seconds * 1000))


def _save(ctx: JobContext[MusicJob], audio: Audio, stem: str) -> tuple[MediaRef, int]:
    """Store `audio` in the request's `encoding` (its exact rate and bit rate), else in its
    `format`: its reference and duration."""
    request = ctx.request
    if request.encoding is None:
        return ctx.save_audio(audio, f"{stem}.{request.format}", request.format)
    named = encodings.encoding(request.encoding)
    with EncodingFileEncoder(ctx.workdir / f"{stem}.{named.container}", named) as encoder:
        encoder.write(audio)
        written = encoder.close()
    reference = ctx.save_file(encoder.path, written.content_type, written.duration_ms)
    return reference, written.duration_ms


def describe(piece: Piece, seed: int) -> Description:
    """The result's account of the piece: genre, tempo, key, seed, sections, instruments."""
    composition = piece.composition
    bar_ms = composition.bar_s * 1000
    sections = []
    for index, section in enumerate(composition.sections):
        end_ms = (
            round(composition.duration_s * 1000)
            if index == len(composition.sections) - 1
            else round(section.end_bar * bar_ms)
        )
        sections.append(
            SectionOut(
                name=section.name,
                start_ms=round(section.start_bar * bar_ms),
                end_ms=end_ms,
                bars=section.bars,
                lines=[line.text for line in piece.lines if line.section == index],
            )
        )
    instruments = [
        InstrumentOut(
            part=track.role,
            program=track.program,
            name="Drum kit" if track.is_drums else program_name(track.program),
        )
        for track in piece.score.tracks
    ]
    return Description(
        genre=composition.genre.name,
        bpm=composition.bpm,
        key=composition.key.name,
        seed=seed,
        sections=sections,
        instruments=instruments,
    )


def _save_midi(ctx: JobContext[MusicJob], piece: Piece) -> MediaRef:
    path = ctx.workdir / "music.mid"
    piece.score.write_midi(path)
    return ctx.save_file(path, MIDI_CONTENT_TYPE, round(piece.composition.duration_s * 1000))


def register() -> None:
    """Declare this feature's job kinds (called by the composition root, soundstage.app_tasks)."""
    handlers.declare(KIND, generate_music, request=MusicJob, result=MusicResult)
