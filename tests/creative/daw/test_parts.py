"""The export's parts on real files, without the service: stem lengths at awkward rates,
quantisation, timecode, and the OMF test reader catching broken containers."""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
import soundfile

from soundstage.creative.daw.bwf import BroadcastInfo, WaveLayout
from soundstage.creative.daw.omf import write_omf
from soundstage.creative.daw.session import Session, SessionTrack
from soundstage.creative.daw.stems import Quantiser, StemSpec, expected_frames, render_stem
from soundstage.creative.daw.timecode import FRAME_RATES, frame_count, samples_at, timecode_at
from tests.creative.daw.conftest import parse_wave
from tests.creative.daw.omf_reader import Bento, OmfFile

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


def test_quantiser_dithers_16_bit_only_off_the_grid() -> None:
    on_grid = (np.arange(-100, 100, dtype=np.float32) / 32768).reshape(-1, 1)
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

    # An object reference whose key its reference list does not hold: find the TOC's
    # "reference list ID" element and the immediate 4-byte key after it, and change the key.
    bento = Bento(good)
    ref_type = next(i for i, n in bento.type_names.items() if n == "omfi:ObjRef")
    entry = next(e for e in bento.entries if e.type == ref_type)
    assert entry.reference_list is not None
    pattern = bytes([15]) + struct.pack("<I", entry.reference_list) + bytes([13]) + entry.immediate
    at = good.index(pattern, bento.toc_offset) + len(pattern) - 4
    broken = good[:at] + struct.pack("<I", 0xDEAD) + good[at + 4 :]
    path.write_bytes(broken)
    assert any("not in its reference list" in p for p in OmfFile(path).validate())

    # Bytes between the TOC and the label: the container's size no longer matches.
    padded = good[:-24] + b"\0\0" + good[-24:]
    problems = Bento(padded).validate()
    assert "TOC object: the container is not the whole file" in problems
    assert "label: the TOC does not end where the label starts" in problems

    with pytest.raises(ValueError, match="no Bento label"):
        Bento(good[:-1])
