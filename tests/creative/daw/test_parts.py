"""The export's parts on real files, without the service: stem lengths at awkward rates,
quantisation, timecode, and the OMF test reader catching broken containers."""

from __future__ import annotations

import csv
import io
import struct
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
import soundfile

from soundstage.core.errors import InvalidField
from soundstage.creative.daw.package import TrackSheetRow, track_sheet, tracks_csv
from soundstage.creative.daw.stems import (
    MAX_EXPORT_BYTES,
    Quantiser,
    StemSpec,
    check_sizes,
    expected_frames,
    render_stem,
)
from soundstage.formats.bwf import (
    HEADER_ALLOWANCE,
    MAX_RIFF_BYTES,
    BroadcastInfo,
    BwfWriter,
    WaveLayout,
    max_frames,
)
from soundstage.formats.omf import write_omf
from soundstage.formats.session import Session, SessionTrack
from soundstage.formats.timecode import FRAME_RATES, frame_count, samples_at, timecode_at
from tests.support.daw import parse_wave
from tests.support.omf_reader import Bento, OmfFile

INFO = BroadcastInfo("test", "Soundstage", "ref", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), 0, "")


def stem_of(tmp: Path, rate: int, frames: int, channels: int, **spec: object) -> Path:
    source = tmp / f"in-{rate}-{frames}.wav"
    signal = np.random.default_rng(frames).uniform(-0.5, 0.5, (frames, channels))
    soundfile.write(source, signal.astype(np.float32), rate, subtype="FLOAT")
    fields: dict[str, object] = {"offset_frames": 0, "gain_db": 0.0, "pan": 0.0, **spec}
    stem_spec = StemSpec(0, "T", source, rate, channels, **fields)  # type: ignore[arg-type]
    target = tmp / f"stem-{rate}-{frames}.wav"
    writer, rendered = render_stem(stem_spec, target, sample_rate=48_000, bit_depth=24, info=INFO)
    writer.finish(rendered.spec.offset_frames + rendered.audio_frames + 10)
    return target


@pytest.mark.parametrize(
    ("rate", "frames"), [(8_000, 1), (11_025, 12_345), (22_050, 99_999), (44_100, 44_101)]
)
def test_stems_have_the_exact_length_at_the_new_rate(
    tmp_path: Path, rate: int, frames: int
) -> None:
    wave = parse_wave(stem_of(tmp_path, rate, frames, 2, offset_frames=7).read_bytes())
    audio = expected_frames(frames, rate, 48_000)
    assert audio == round(frames * 48_000 / rate)
    assert wave.frames == 7 + audio + 10
    samples = wave.integers()
    assert not samples[:7].any()
    assert not samples[7 + audio :].any()


def spec(index: int, channels: int) -> StemSpec:
    return StemSpec(index, f"T{index}", Path("unused.wav"), 48_000, channels, 0, 0.0, 0.0)


@pytest.mark.parametrize(("channels", "bit_depth"), [(8, 24), (3, 24), (8, 16), (2, 16)])
def test_a_stem_past_what_a_wave_file_holds_is_refused(channels: int, bit_depth: int) -> None:
    limit = max_frames(channels, bit_depth)
    frame_bytes = channels * bit_depth // 8
    assert limit * frame_bytes + HEADER_ALLOWANCE <= MAX_RIFF_BYTES
    assert (limit + 1) * frame_bytes + HEADER_ALLOWANCE > MAX_RIFF_BYTES
    specs = [spec(0, 1), spec(1, channels)]
    check_sizes(specs, limit, bit_depth)
    with pytest.raises(InvalidField) as refused:
        check_sizes(specs, limit + 1, bit_depth)
    assert (refused.value.param, refused.value.code) == ("tracks[1].audio_url", "stem_too_large")


def test_the_review_case_eight_channels_for_63_minutes_at_48_khz_24_bit() -> None:
    check_sizes([spec(0, 8)], 62 * 60 * 48_000, 24)
    with pytest.raises(InvalidField, match="4 GiB"):
        check_sizes([spec(0, 8)], 63 * 60 * 48_000, 24)


def test_the_largest_header_fits_the_allowance(tmp_path: Path) -> None:
    """The header BwfWriter writes with the longest fields the export gives it."""
    info = BroadcastInfo(
        "x" * 300, "Soundstage", "y" * 40, INFO.origination, 1 << 40, "A=PCM,F=48000" * 40
    )
    writer = BwfWriter(tmp_path / "long.wav", 48_000, 8, 24, info)
    assert writer.data_offset <= HEADER_ALLOWANCE
    writer.abandon()


def test_an_export_past_the_total_size_is_refused() -> None:
    """Stereo 24-bit stems of 6 bytes a frame, each below 4 GiB, too many together."""
    frames = max_frames(2, 24)
    count = MAX_EXPORT_BYTES // (frames * 6) + 1
    check_sizes([spec(i, 2) for i in range(count - 1)], frames, 24)
    with pytest.raises(InvalidField) as refused:
        check_sizes([spec(i, 2) for i in range(count)], frames, 24)
    assert (refused.value.param, refused.value.code) == ("tracks", "export_too_large")


def test_quantiser_dithers_16_bit_only_off_the_grid() -> None:
    on_grid = (np.arange(-100, 100, dtype=np.float32) / np.float32(32768)).reshape(-1, 1)
    quantiser = Quantiser(16, seed=1)
    assert np.array_equal(quantiser(on_grid)[:, 0], np.arange(-100, 100))
    quiet = np.full((20_000, 1), 0.3 / 32768, dtype=np.float32)
    dithered = quantiser(quiet)
    assert set(np.unique(dithered)) <= {-1, 0, 1, 2}
    assert abs(float(dithered.mean()) - 0.3) < 0.03  # unbiased: the level survives on average
    assert np.array_equal(Quantiser(24, seed=1)(quiet)[:, 0], np.full(20_000, 77))  # 0.3*256
    full = np.array([[1.5], [-1.5]], dtype=np.float32)
    assert Quantiser(24, seed=1)(full)[:, 0].tolist() == [(1 << 23) - 1, -(1 << 23)]


def test_timecode_round_trips_and_positions() -> None:
    for name, rate in FRAME_RATES.items():
        for count in (0, 1, 1799, 1800, 17_982, 107_890, 2_000_000):  # all within a day
            assert frame_count(timecode_at(count, rate), rate) == count, (name, count)
    drop = FRAME_RATES["29.97df"]
    assert timecode_at(1800, drop) == "00:01:00;02"
    assert frame_count("01:00:00;00", drop) == 107_892
    assert samples_at("01:00:00:00", FRAME_RATES["25"], 48_000) == 3600 * 48_000
    # 23.976: an hour of timecode is 1.001 hours of real time.
    assert samples_at("01:00:00:00", FRAME_RATES["23.976"], 48_000) == 3600 * 48_048
    with pytest.raises(ValueError, match="drop-frame"):
        frame_count("00:01:00;01", drop)


def small_omf(tmp: Path) -> Path:
    stem = stem_of(tmp, 48_000, 4_800, 1)
    wave = parse_wave(stem.read_bytes())
    layout = WaveLayout(len(stem.read_bytes()) - len(wave.data), len(wave.data), wave.frames)
    session = Session(
        name="Parts",
        sample_rate=48_000,
        bit_depth=24,
        frame_rate=FRAME_RATES["25"],
        start_frame=90_000,
        total_frames=wave.frames,
        media="embedded",
        tracks=(SessionTrack("T", stem, "stems/T.wav", 1, 0, 4_800, layout),),
    )
    target = tmp / "parts.omf"
    with target.open("wb") as out:
        write_omf(session, out)
    return target


def test_the_omf_reader_reports_broken_containers(tmp_path: Path) -> None:
    path = small_omf(tmp_path)
    good = path.read_bytes()
    assert OmfFile(path).validate() == []

    # An object reference to an object the file does not have: find the TOC's element of an
    # ObjRef value (property and type, then the immediate 4-byte object ID), change the ID.
    bento = Bento(good)
    ref_type = next(i for i, n in bento.type_names.items() if n == "omfi:ObjRef")
    entry = next(e for e in bento.entries if e.type == ref_type)
    assert entry.reference_list is None
    pattern = struct.pack("<II", entry.prop, entry.type) + bytes([13]) + entry.immediate
    at = good.index(pattern, bento.toc_offset) + len(pattern) - 4
    broken = good[:at] + struct.pack("<I", 0xDEAD) + good[at + 4 :]
    path.write_bytes(broken)
    assert any("refers to missing object 57005" in p for p in OmfFile(path).validate())

    # Bytes between the TOC and the label: the container's size no longer matches.
    padded = good[:-24] + b"\0\0" + good[-24:]
    problems = Bento(padded).validate()
    assert "TOC object: the container is not the whole file" in problems
    assert "label: the TOC does not end where the label starts" in problems

    with pytest.raises(ValueError, match="no Bento label"):
        Bento(good[:-1])


def test_tracks_csv_quotes_names_a_spreadsheet_would_run_as_formulas() -> None:
    names = ['=HYPERLINK("http://x")', "+1+2", "-2+3", "@SUM(A1)", "\tTab", "\rReturn", "Dialog"]
    layout = WaveLayout(0, 0, 48_000)
    tracks = tuple(
        SessionTrack(name, Path(f"{n}.wav"), f"stems/{n:02d}_x.wav", 1, 0, 48_000, layout)
        for n, name in enumerate(names, start=1)
    )
    session = Session("P", 48_000, 24, FRAME_RATES["25"], 90_000, 48_000, "embedded", tracks)
    rows = [TrackSheetRow(n, t, 0, -6.0, -0.5) for n, t in enumerate(tracks, start=1)]
    table = list(csv.DictReader(io.StringIO(tracks_csv(session, rows), newline="")))
    assert [row["name"] for row in table] == [f"'{name}" for name in names[:-1]] + ["Dialog"]
    # Numbers stay numbers (a negative gain is no formula), and only the CSV is changed.
    assert {(row["gain_db"], row["pan"]) for row in table} == {("-6.0", "-0.5")}
    sheet = track_sheet(session, rows, "P.aaf", "printed")
    assert "=HYPERLINK" in sheet
    assert "'=HYPERLINK" not in sheet
