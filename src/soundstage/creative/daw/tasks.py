"""The DAW export job: measure every track (fetched and kept by the submission, see
jobs.inputs), reserve the credits for the session's length (held since the submission),
render the stems, write the session file (AAF or OMF) and deliver one ZIP."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, Literal

from soundstage.config import Settings
from soundstage.creative.daw import limits, package
from soundstage.creative.daw.schemas import DawResult, DawTrackResult
from soundstage.creative.daw.stems import (
    OPERATION,
    RenderedStem,
    StemSpec,
    check_pannable,
    check_sizes,
    render_stem,
)
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.formats.aaf import write_aaf
from soundstage.formats.bwf import BroadcastInfo, BwfWriter
from soundstage.formats.channels import split_channels
from soundstage.formats.omf import check_size, write_omf
from soundstage.formats.session import Media, Session, SessionTrack
from soundstage.formats.timecode import FRAME_RATES, FrameRateName, frame_count, samples_at
from soundstage.jobs import handlers, inputs
from soundstage.jobs.handlers import JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest
from soundstage.media.audio import MediaInfo, probe
from soundstage.media.input_limits import check_input
from soundstage.storage import service as storage

KIND = "daw"


class DawTrackJob(JobRequest):
    name: str
    audio_url: str
    start_ms: int
    gain_db: float
    pan: float


class DawJob(inputs.KeptInputs):
    """The job's request: the endpoint's DawExportRequest, and its kept inputs."""

    tracks: list[DawTrackJob]
    format: Literal["aaf", "omf"]
    sample_rate: int
    bit_depth: int
    name: str
    frame_rate: FrameRateName
    start_timecode: str
    media: Media
    gain_mode: Literal["printed", "clip"]


def export_session(ctx: JobContext[DawJob]) -> JobOutcome[DawResult]:
    request = ctx.request
    specs = _fetch_tracks(ctx)
    reserved = _reserve(ctx, specs)
    folder = storage.safe_filename(request.name, "session")
    root = ctx.workdir / "package" / folder
    (root / "stems").mkdir(parents=True)
    writers, stems = _render_stems(ctx, specs, root / "stems")
    session = _finish(ctx.settings, request, writers, stems, folder)

    ctx.progress(0.85, "packaging")
    rows = [
        package.TrackSheetRow(number, track, asked.start_ms, asked.gain_db, stem.spec.pan)
        for number, (track, asked, stem) in enumerate(
            zip(session.tracks, request.tracks, stems, strict=True), start=1
        )
    ]
    session_file = f"{folder}.{request.format}"
    archive = _package(ctx, session, rows, folder, session_file)
    rate = session.sample_rate
    duration_ms = round(session.total_frames * 1000 / rate)
    result = DawResult(
        download_url=ctx.save_file(archive, "application/zip", duration_ms),
        session_file=f"{folder}/{session_file}",
        format=request.format,
        media=request.media,
        gain_mode=request.gain_mode,
        bit_depth=request.bit_depth,
        sample_rate=rate,
        duration_ms=duration_ms,
        tracks=[_track_result(row, folder, rate) for row in rows],
    )
    charged = min(rates.for_duration(Operation.DAW, duration_ms), reserved)
    return JobOutcome(result, credits_used=charged)


def _finish(
    settings: Settings,
    request: DawJob,
    writers: list[BwfWriter],
    stems: list[RenderedStem],
    folder: str,
) -> Session:
    """Every stem padded to the session's length (the longest track's end) and closed, after
    the bounds are checked again on the exact length (the headers' durations were
    estimates); the session they make."""
    last = max(stems, key=lambda stem: stem.spec.offset_frames + stem.audio_frames)
    total_frames = last.spec.offset_frames + last.audio_frames
    try:
        end_ms = round(total_frames * 1000 / request.sample_rate)
        param = limits.clip_param(last.spec.index, request.tracks[last.spec.index].start_ms)
        limits.check_session_length(settings, end_ms, param)
        check_sizes([stem.spec for stem in stems], total_frames, request.bit_depth)
        limits.check_output_size(
            settings,
            total_frames,
            [stem.channels for stem in stems],
            request.bit_depth,
            request.media,
            split_channels=splits_channels(request),
        )
        layouts = [writer.finish(total_frames) for writer in writers]
    except BaseException:
        for writer in writers:
            writer.abandon()
        raise
    return _session(request, stems, layouts, total_frames, folder)


def _package(
    ctx: JobContext[DawJob],
    session: Session,
    rows: list[package.TrackSheetRow],
    folder: str,
    session_file: str,
) -> Path:
    """The ZIP: the session file, the track sheet (README.txt, tracks.csv) and the stems."""
    request = ctx.request
    texts = {
        "README.txt": package.track_sheet(session, rows, session_file, request.gain_mode),
        "tracks.csv": package.tracks_csv(session, rows),
    }
    archive = ctx.workdir / f"{folder}.zip"
    package.write_zip(
        archive,
        folder,
        session_file,
        _session_writer(session, request.format, ctx.workdir / session_file),
        texts,
        _media_files(session, splits_channels(request)),
    )
    return archive


def splits_channels(request: DawJob) -> bool:
    """A linked session (AAF or OMF) links one mono file per channel: each multichannel stem
    is also delivered split into mono files (formats.channels)."""
    return request.media == "linked"


def _media_files(session: Session, split: bool) -> list[Path]:
    """The files of `stems/`: each stem, followed (when `split`) by its channels' files."""
    files: list[Path] = []
    for track in session.tracks:
        files.append(track.stem_path)
        if split and track.channels > 1:
            files += split_channels(
                track.stem_path, track.layout, track.channels, session.sample_rate,
                session.bit_depth,
            )  # fmt: skip
    return files


def _session_writer(session: Session, fmt: str, scratch: Path) -> Callable[[BinaryIO], None]:
    """What writes the session file into the ZIP: OMF streams straight in; pyaaf2 needs a
    seekable file, so the AAF is written to `scratch` and copied."""

    def write(out: BinaryIO) -> None:
        if fmt == "omf":
            write_omf(session, out)
            return
        write_aaf(session, scratch)
        with scratch.open("rb") as written:
            shutil.copyfileobj(written, out, 1 << 20)

    return write


def _reserve(ctx: JobContext[DawJob], specs: list[tuple[StemSpec, MediaInfo]]) -> int:
    """Reserve the credits of the session's length as the inputs' headers tell it (the
    charge is the rendered length, never above this): what the submission reserved."""
    reserved = rates.for_duration(Operation.DAW, session_length(ctx.settings, ctx.request, specs))
    ctx.reserve_credits(reserved)
    return reserved


def session_length(
    settings: Settings, request: DawJob, specs: list[tuple[StemSpec, MediaInfo]]
) -> int:
    """The session's length in ms as the inputs' headers tell it (the end of its last clip,
    what the export is priced from), after refusing what cannot be made: a session or an
    export past the bounds, a stem past what a WAVE file holds, an OMF past its format's."""
    rate: int = request.sample_rate
    ends: list[int] = [
        round((spec.offset_frames + info.duration_ms * rate / 1000) * 1000 / rate)
        for spec, info in specs
    ]
    estimated_ms = max(ends)
    last = ends.index(estimated_ms)
    param = limits.clip_param(last, request.tracks[last].start_ms)
    limits.check_session_length(settings, estimated_ms, param)
    frames = round(estimated_ms * rate / 1000)
    channels = [spec.channels for spec, _ in specs]
    check_sizes([spec for spec, _ in specs], frames, request.bit_depth)
    limits.check_output_size(
        settings,
        frames,
        channels,
        request.bit_depth,
        request.media,
        split_channels=splits_channels(request),
    )
    if request.format == "omf":
        check_size(frames, channels, request.bit_depth, request.media)
    return estimated_ms


def _track_result(row: package.TrackSheetRow, folder: str, rate: int) -> DawTrackResult:
    return DawTrackResult(
        name=row.track.name,
        stem=f"{folder}/{row.track.stem_ref}",
        start_ms=row.start_ms,
        duration_ms=round(row.track.audio_frames * 1000 / rate),
        gain_db=row.gain_db,
        pan=row.pan,
        channels=row.track.channels,
    )


def _fetch_tracks(ctx: JobContext[DawJob]) -> list[tuple[StemSpec, MediaInfo]]:
    """Every input (kept by the submission, which checked them) probed again, so that the
    stems are planned from their headers before any credits are reserved or audio rendered."""
    tracks = ctx.request.tracks
    specs = []
    for index, track in enumerate(tracks):
        ctx.progress(0.02 * index / len(tracks), "fetching")
        param = track_param(index)
        source = inputs.path(ctx, index, track.audio_url, param=param)
        info = probe(source, param=param)
        specs.append((stem_spec(ctx.settings, ctx.request, index, source, info), info))
    return specs


def track_param(index: int) -> str:
    return f"tracks[{index}].audio_url"


def stem_spec(
    settings: Settings, request: DawJob, index: int, source: Path, info: MediaInfo
) -> StemSpec:
    """What the stem of track `index` is made from (its input at `source`, described by its
    header `info`), after the input's caps and the track's pan are checked."""
    track = request.tracks[index]
    limit_ms = settings.daw.max_track_duration_ms
    check_input(info, limit_ms, param=track_param(index), operation=OPERATION)
    spec = StemSpec(
        index=index,
        name=track.name,
        source=source,
        source_rate=info.sample_rate,
        source_channels=info.channels,
        offset_frames=round(track.start_ms * request.sample_rate / 1000),
        # With clip gain, the session applies the gain and the stem stays at unity.
        gain_db=track.gain_db if request.gain_mode == "printed" else 0.0,
        pan=track.pan,
        max_duration_ms=limit_ms,
    )
    check_pannable(spec)
    return spec


def _render_stems(
    ctx: JobContext[DawJob], specs: list[tuple[StemSpec, MediaInfo]], folder: Path
) -> tuple[list[BwfWriter], list[RenderedStem]]:
    request = ctx.request
    describe = _broadcast_info(request, ctx.job_id)
    total_ms = sum(max(info.duration_ms, 1) for _, info in specs)
    done_ms = 0
    writers: list[BwfWriter] = []
    stems: list[RenderedStem] = []
    try:
        for spec, info in specs:
            name = f"{spec.index + 1:02d}_{storage.safe_filename(spec.name, 'track')}.wav"
            writer, stem = render_stem(
                spec,
                folder / name,
                sample_rate=request.sample_rate,
                bit_depth=request.bit_depth,
                info=describe(spec),
                progress=_reporter(ctx, done_ms, total_ms, spec.source_rate),
            )
            writers.append(writer)
            stems.append(stem)
            done_ms += max(info.duration_ms, 1)
    except BaseException:
        for writer in writers:
            writer.abandon()
        raise
    return writers, stems


def _broadcast_info(request: DawJob, job_id: str) -> Callable[[StemSpec], BroadcastInfo]:
    """What each stem's `bext` chunk says: the project and track, the job, one creation time
    for all, and the session start as time reference."""
    time_reference = samples_at(
        request.start_timecode, FRAME_RATES[request.frame_rate], request.sample_rate
    )
    created = datetime.now(UTC)

    def describe(spec: StemSpec) -> BroadcastInfo:
        return BroadcastInfo(
            description=f"{request.name}: {spec.name}",
            originator="Soundstage",
            originator_reference=f"{job_id}-{spec.index + 1:02d}",
            origination=created,
            time_reference=time_reference,
            coding_history=(
                f"A=PCM,F={request.sample_rate},W={request.bit_depth},T=Soundstage DAW export\r\n"
            ),
        )

    return describe


def _reporter(
    ctx: JobContext[DawJob], done_ms: int, total_ms: int, source_rate: int
) -> Callable[[int], None]:
    """Progress 0.03..0.83 over the stems, from the frames decoded so far."""
    decoded = 0

    def on_block(frames: int) -> None:
        nonlocal decoded
        decoded += frames
        position_ms = min(done_ms + decoded * 1000 / source_rate, total_ms)
        ctx.progress(0.03 + 0.8 * position_ms / total_ms, "stems")

    return on_block


def _session(
    request: DawJob,
    stems: list[RenderedStem],
    layouts: list[Any],
    total_frames: int,
    folder: str,
) -> Session:
    rate = FRAME_RATES[request.frame_rate]
    return Session(
        name=request.name,
        sample_rate=request.sample_rate,
        bit_depth=request.bit_depth,
        frame_rate=rate,
        start_frame=frame_count(request.start_timecode, rate),
        total_frames=total_frames,
        media=request.media,
        tracks=tuple(
            SessionTrack(
                name=stem.spec.name,
                stem_path=stem.path,
                stem_ref=f"stems/{stem.path.name}",
                channels=stem.channels,
                offset_frames=stem.spec.offset_frames,
                audio_frames=stem.audio_frames,
                layout=layout,
                clip_gain_db=0.0 if request.gain_mode == "printed" else track.gain_db,
            )
            for stem, layout, track in zip(stems, layouts, request.tracks, strict=True)
        ),
        folder=folder,
    )


def register() -> None:
    """Declare this feature's job kinds (called by the composition root, soundstage.app_tasks)."""
    handlers.declare(
        KIND,
        export_session,
        request=DawJob,
        result=DawResult,
        completed_event="daw.completed",
        failed_event="daw.failed",
        cancelled_event="daw.cancelled",
    )
