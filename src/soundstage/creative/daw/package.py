"""The delivered ZIP: `<project>/` with the session file, `stems/` and the track sheet
(README.txt for people, tracks.csv for tools)."""

from __future__ import annotations

import csv
import io
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final, cast

from soundstage.formats.session import Session, SessionTrack
from soundstage.formats.timecode import timecode_at

_HOW_TO_OPEN = """\
How to open
-----------
Unzip the whole folder and keep its layout ({session} next to stems/).

Pro Tools      File > Open Session... (or Import Session Data) and pick {session};
               choose "Copy from source media" so Pro Tools copies the audio into the
               session's Audio Files folder.
Nuendo/Cubase  File > Import > AAF/OMF... and pick {session}.
Logic Pro      {logic}
DaVinci Resolve (Fairlight)  File > Import > Timeline... and pick {session}; with linked
               media, point the media pool at the stems/ folder if asked.
Ardour 8       {ardour}
Any DAW        The stems alone line up too: import every NN_Name.wav of stems/ at the
               session start ({start}); each is a broadcast WAVE with that
               time reference.
{linked}"""

_LINKED = """\
Linked media   The session points at the audio as file:///{folder}/stems/<file>. Unzipped
               anywhere else, a DAW that does not find it there asks for it: relink to
               the stems/ folder (Pro Tools: Relink window or "Manually Find & Relink";
               Resolve: Relink Selected Clips; Nuendo/Cubase and Logic: search the
               folder when asked). The file names are unique, so a search by name finds
               them. Ardour finds stems/ next to {session} by itself.
"""

_SPLIT = """\
               A stereo or multichannel stem is linked as one mono file per channel,
               split from it in stems/ (NN_Name.L.wav and .R.wav, or .A1.wav, .A2.wav...):
               {shown}.
"""

# OMF has no multichannel clip an importer agrees on: each channel is a track of its own.
_OMF_CHANNELS = """\
Stereo in OMF  Each channel of a stereo (multichannel) track is a mono track of its own,
               "Name L" and "Name R" (A1, A2...), each with its own audio: pan them hard
               left and right, or join them into a stereo track where the DAW can.
"""


# A spreadsheet opening the CSV runs a cell that starts with one of these as a formula (CSV
# injection, OWASP): such a text gets a leading quote there. The track sheet, the session and
# the stems keep the name as given.
_FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class TrackSheetRow:
    number: int
    track: SessionTrack
    start_ms: int
    gain_db: float
    pan: float


def track_sheet(
    session: Session, rows: list[TrackSheetRow], session_file: str, gain_mode: str
) -> str:
    rate = session.frame_rate
    format_name = "AAF" if session_file.endswith(".aaf") else "OMF 2.0"
    lines = [
        *_sheet_header(session, session_file, format_name),
        "",
        f"{'#':>2}  {'Track':<24} {'Stem':<34} {'Start':>11} {'Start TC':<12} "
        f"{'Length':>11} {'Gain dB':>8} {'Pan':>5} {'Ch':>3}",
        *(_sheet_row(session, row) for row in rows),
        "",
        "Gain and pan are printed into the stems: the session plays every clip at unity."
        if gain_mode == "printed"
        else "Gains are clip gains in the session (the stems are at unity); pans are printed.",
        "Every stem runs from the session start to its end, so clips sit at their start",
        "inside their stems and can be lengthened to reveal the silence around them.",
        "",
        _HOW_TO_OPEN.format(
            session=session_file,
            start=timecode_at(session.start_frame, rate),
            logic=f"File > Import > AAF... and pick {session_file}."
            if format_name == "AAF"
            else "imports AAF, not OMF: import the stems, or export again as AAF.",
            ardour=f"Session > Open... (or the New Session dialog), pick {session_file}."
            if format_name == "AAF"
            else "opens AAF, not OMF, from its menus; its omftool (tools/omf in Ardour's\n"
            f"               source) turns {session_file} into an Ardour session.",
            linked=_linked_note(session, session_file, format_name),
        ),
    ]
    return "\n".join(lines)


def _linked_note(session: Session, session_file: str, format_name: str) -> str:
    multichannel = any(track.channels > 1 for track in session.tracks)
    note = _OMF_CHANNELS if format_name != "AAF" and multichannel else ""
    if session.media != "linked":
        return note
    note += _LINKED.format(folder=session.folder, session=session_file)
    if multichannel:
        note += _SPLIT.format(
            shown="the DAW shows one stereo (multichannel) clip made of them"
            if format_name == "AAF"
            else "each is the audio of its channel's track"
        )
    return note


def _sheet_header(session: Session, session_file: str, format_name: str) -> list[str]:
    rate = session.frame_rate
    return [
        f"Soundstage DAW export: {session.name}",
        "",
        f"Session file   {session_file} ({format_name}, media {session.media})",
        f"Sample rate    {session.sample_rate} Hz",
        f"Bit depth      {session.bit_depth}-bit PCM (broadcast WAVE stems)",
        f"Frame rate     {rate.name.removesuffix('df')} fps"
        f"{' drop-frame' if rate.drop_frame else ''}",
        f"Session start  {timecode_at(session.start_frame, rate)}",
        f"Duration       {_clock(session.total_frames, session.sample_rate)} "
        f"({session.total_frames} samples)",
    ]


def _sheet_row(session: Session, row: TrackSheetRow) -> str:
    track = row.track
    return (
        f"{row.number:>2}  {track.name[:24]:<24} {track.stem_ref[:34]:<34} "
        f"{_clock(track.offset_frames, session.sample_rate):>11} "
        f"{_start_timecode(session, track):<12} "
        f"{_clock(track.audio_frames, session.sample_rate):>11} "
        f"{row.gain_db:>8.1f} {row.pan:>5.2f} {track.channels:>3}"
    )


def tracks_csv(session: Session, rows: list[TrackSheetRow]) -> str:
    out = io.StringIO()
    # RFC 4180's CRLF line ends: the csv module then quotes a name holding a CR or LF (with
    # "\n" alone a CR went out bare and split the row for every reader).
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(
        [
            "number",
            "name",
            "stem",
            "start_ms",
            "start_samples",
            "start_timecode",
            "length_samples",
            "gain_db",
            "pan",
            "channels",
            "sample_rate",
            "bit_depth",
        ]
    )
    for row in rows:
        track = row.track
        writer.writerow(
            [
                row.number,
                _csv_text(track.name),
                _csv_text(track.stem_ref),
                row.start_ms,
                track.offset_frames,
                _start_timecode(session, track),
                track.audio_frames,
                row.gain_db,
                row.pan,
                track.channels,
                session.sample_rate,
                session.bit_depth,
            ]
        )
    return out.getvalue()


def _csv_text(value: str) -> str:
    return f"'{value}" if value.startswith(_FORMULA_STARTS) else value


def _start_timecode(session: Session, track: SessionTrack) -> str:
    rate = session.frame_rate
    offset = track.offset_frames * rate.rate / session.sample_rate
    return timecode_at(session.start_frame + int(offset), rate)


def _clock(frames: int, sample_rate: int) -> str:
    total_ms = round(frames * 1000 / sample_rate)
    minutes, ms = divmod(total_ms, 60_000)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:d}:{minutes:02d}:{ms / 1000:06.3f}"


def write_zip(
    target: Path,
    folder: str,
    session_file: str,
    write_session: Callable[[BinaryIO], None],
    texts: dict[str, str],
    stems: list[Path],
) -> None:
    """The session is written straight into its entry by `write_session`. Audio is stored
    (it does not compress); text is deflated. ZIP64 when needed."""
    partial = target.with_name(f".{target.name}.partial")
    with zipfile.ZipFile(partial, "w", allowZip64=True) as archive:
        entry = zipfile.ZipInfo(f"{folder}/{session_file}", date_time=_now())
        with archive.open(entry, "w", force_zip64=True) as out:
            write_session(cast(BinaryIO, out))
        for name, text in texts.items():
            archive.writestr(f"{folder}/{name}", text, zipfile.ZIP_DEFLATED)
        for stem in stems:
            archive.write(stem, f"{folder}/stems/{stem.name}", zipfile.ZIP_STORED)
    partial.replace(target)


def _now() -> tuple[int, int, int, int, int, int]:
    return time.localtime()[:6]
