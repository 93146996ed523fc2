"""The music job: generate the piece, encode and store the audio, its MIDI score and (with
vocals) the vocal stem, and describe what was made."""

from __future__ import annotations

from typing import Any

from soundstage.creative.music.generator import Piece, Singer, generate
from soundstage.creative.music.instruments import program_name
from soundstage.creative.music.schemas import music_license
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs.handlers import JobContext, JobOutcome, register
from soundstage.speech.engines.registry import get_engine
from soundstage.storage import service as storage

KIND = "music"
MIDI_CONTENT_TYPE = "audio/midi"


@register(KIND)
def generate_music(ctx: JobContext) -> JobOutcome:
    request: dict[str, Any] = ctx.request
    singer = None
    if request.get("singer"):
        chosen = request["singer"]
        singer = Singer(get_engine(chosen["engine"]), chosen["engine_voice"], chosen["gender"])
    ctx.progress(0.05, "composing")
    seconds = int(request["duration_seconds"])
    piece = generate(request["prompt"], float(seconds), int(request["seed"]), singer=singer)
    ctx.progress(0.8, "encoding")
    fmt = request["format"]
    output, duration_ms = ctx.save_audio(piece.mix, f"music.{fmt}", fmt)
    result: dict[str, Any] = {
        "output_url": output,
        "duration_ms": duration_ms,
        **describe(piece, int(request["seed"])),
        "midi_url": _save_midi(ctx, piece),
        "license": music_license(),
    }
    if piece.vocals is not None:
        result["vocals_url"], _ = ctx.save_audio(piece.vocals, f"vocals.{fmt}", fmt)
    return JobOutcome(result, credits_used=rates.for_duration(Operation.MUSIC, seconds * 1000))


def describe(piece: Piece, seed: int) -> dict[str, Any]:
    """The response's account of the piece: genre, tempo, key, seed, sections, instruments."""
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
            {
                "name": section.name,
                "start_ms": round(section.start_bar * bar_ms),
                "end_ms": end_ms,
                "bars": section.bars,
                "lines": [line.text for line in piece.lines if line.section == index],
            }
        )
    instruments = [
        {
            "part": track.role,
            "program": track.program,
            "name": "Drum kit" if track.is_drums else program_name(track.program),
        }
        for track in piece.score.tracks
    ]
    return {
        "genre": composition.genre.name,
        "bpm": composition.bpm,
        "key": composition.key.name,
        "seed": seed,
        "sections": sections,
        "instruments": instruments,
    }


def _save_midi(ctx: JobContext, piece: Piece) -> dict[str, Any]:
    path = ctx.workdir / "music.mid"
    piece.score.write_midi(path)
    with ctx.db.session() as session:
        media = storage.save(
            session,
            ctx.settings,
            ctx.principal,
            path,
            filename="music.mid",
            content_type=MIDI_CONTENT_TYPE,
            duration_ms=round(piece.composition.duration_s * 1000),
            purpose="output",
            job_id=ctx.job_id,
        )
        return storage.media_ref(media)
