"""POST /api/v1/creative/daw end to end: real inputs over loopback HTTP, the real worker, the
ZIP downloaded by its signed URL, the AAF read back by pyaaf2 and by OpenTimelineIO's AAF
adapter, the OMF by the independent reader, the stems by hand-parsed RIFF."""

from __future__ import annotations

import csv
import io
import math
import struct
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import aaf2
import numpy as np
import opentimelineio as otio
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.media.audio import Audio, decode
from tests.support.api import assert_error
from tests.support.daw import DAW, Wave, download, export, file_bytes, noise, parse_wave
from tests.support.factories import Customer, create_customer
from tests.support.jobs import wait_for_job
from tests.support.omf_reader import OmfFile, read_composition
from tests.support.servers import FileServer, Receiver
from tests.support.stores import account_media

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker")]

RATE = 48_000
NAMES = ["Dialog", "Music", "Phone", "Quiet"]


@pytest.fixture
def rich(db: Database) -> Customer:
    return create_customer(db, credits_each=20_000)


@pytest.fixture(scope="module")
def mixed_inputs(files: FileServer) -> dict[str, Any]:
    """mp3 44.1 kHz mono, FLAC 48 kHz stereo, WAV 8 kHz mono; their URLs and the audio."""
    with tempfile.TemporaryDirectory() as tmp:
        dialog = noise(3.0, 44_100, 1, seed=1)
        music = noise(4.0, 48_000, 2, seed=2)
        phone = noise(2.0, 8_000, 1, seed=3, level=0.5)
        return {
            "dialog": (files.put("dialog.mp3", file_bytes(dialog, "mp3", Path(tmp))), dialog),
            "music": (files.put("music.flac", file_bytes(music, "flac", Path(tmp))), music),
            "phone": (
                files.put("phone.wav", file_bytes(phone, "wav", Path(tmp), "PCM_16")),
                phone,
            ),
        }


def mixed_request(inputs: dict[str, Any], **options: Any) -> dict[str, Any]:
    return {
        "name": "Mixed Project",
        "tracks": [
            {"name": "Dialog", "audio_url": inputs["dialog"][0]},
            {"name": "Music", "audio_url": inputs["music"][0], "start_ms": 500, "gain_db": -6},
            {"name": "Phone", "audio_url": inputs["phone"][0], "start_ms": 2000, "pan": -1},
        ],
        **options,
    }


def zip_member(archive: zipfile.ZipFile, name: str) -> bytes:
    return archive.read(name)


def reference(url_audio: tuple[str, Audio], files: FileServer, rate: int) -> np.ndarray:
    """The input decoded by media.audio at the export rate (swresample): what the stem holds,
    up to the resampler's difference."""
    name = url_audio[0].rsplit("/", 1)[1]
    return decode(files.root / name, sample_rate=rate).samples.astype(np.float64)


def best_lag(stem: np.ndarray, ref: np.ndarray, start: int) -> tuple[int, float]:
    """Lag (samples) and correlation of the reference inside the stem around `start`."""
    best = (0, -1.0)
    for lag in range(-min(start, 3), 4):
        a = stem[start + lag : start + lag + ref.shape[0]]
        b = ref[: a.shape[0]]
        corr = float(np.sum(a * b) / math.sqrt(np.sum(a * a) * np.sum(b * b)))
        if corr > best[1]:
            best = (lag, corr)
    return best


def test_mixed_inputs_become_an_aaf_with_aligned_stems_and_a_webhook(
    client: TestClient,
    settings: Settings,
    files: FileServer,
    rich: Customer,
    mixed_inputs: dict[str, Any],
    tmp_path: Path,
) -> None:
    receiver = Receiver()
    hook = client.post(
        "/api/v1/webhooks/endpoints",
        headers=rich.auth(),
        json={"url": receiver.url, "enabled_events": ["daw.completed"]},
    ).json()
    receiver.secret = hook["secret"]

    response = client.post(DAW, headers=rich.auth(), json=mixed_request(mixed_inputs))
    assert response.status_code == 200, response.text
    accepted = response.json()
    assert (accepted["status"], accepted["kind"]) == ("processing", "daw")
    assert accepted["estimated_completion_ms"] > 0
    # Reserved at submit from the tracks' headers: the session lasts until Music's end.
    assert accepted["duration_ms"] == 4_500
    assert accepted["credits_reserved"] == rates.for_duration(Operation.DAW, 4_500)
    job = wait_for_job(client, rich, accepted["job_id"])
    assert job["status"] == "completed", job
    result = job["result"]

    # Duration = the longest track's end: Music starts at 0.5 s and lasts 4 s.
    total = 4_500 * RATE // 1000
    assert result["duration_ms"] == 4_500
    assert result["gain_mode"] == "printed"
    assert (result["format"], result["media"], result["sample_rate"], result["bit_depth"]) == (
        "aaf",
        "embedded",
        48_000,
        24,
    )
    price = rates.for_duration(Operation.DAW, 4_500)
    assert job["credits_used"] == price == math.ceil(5 * 750 / 60)
    balance = client.get("/api/v1/credits", headers=rich.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (20_000 - price, 0)
    # One reservation, the submission's (the job kept it), captured whole.
    ledger = client.get("/api/v1/credits/ledger", headers=rich.auth()).json()["data"]
    mine = [t for t in ledger if t["reference"] == accepted["job_id"]]
    assert sorted((t["type"], t["amount"]) for t in mine) == [
        ("capture", price),
        ("reserve", price),
    ]

    archive = download(client, settings, result["download_url"])
    names = set(archive.namelist())
    folder = "Mixed-Project"
    stems = [f"{folder}/stems/01_Dialog.wav", f"{folder}/stems/02_Music.wav",
             f"{folder}/stems/03_Phone.wav"]  # fmt: skip
    assert names == {f"{folder}/Mixed-Project.aaf", f"{folder}/README.txt",
                     f"{folder}/tracks.csv", *stems}  # fmt: skip
    assert result["session_file"] == f"{folder}/Mixed-Project.aaf"
    assert [t["stem"] for t in result["tracks"]] == stems

    waves = [parse_wave(archive.read(name)) for name in stems]
    for wave in waves:
        # Equal length from the session start, the rate and depth asked, BWF with the
        # session start (01:00:00:00) as time reference.
        assert (wave.sample_rate, wave.bits, wave.frames) == (RATE, 24, total)
        assert wave.format_tag == 1
        assert wave.time_reference == 3600 * RATE
        assert b"bext" in wave.chunks
    assert [w.channels for w in waves] == [1, 2, 2]  # the panned mono track became stereo

    dialog, music, phone = (w.floats() for w in waves)
    # Alignment: each track's audio at its offset (0, 0.5 s, 2 s), digital silence around.
    offsets = [0, RATE // 2, 2 * RATE]
    lengths = [3 * RATE, 4 * RATE, 2 * RATE]
    for stem, offset, length in zip((dialog, music, phone), offsets, lengths, strict=True):
        assert not np.any(stem[:offset])
        assert not np.any(stem[offset + length :])
        assert np.any(stem[offset : offset + 100])
    lag, corr = best_lag(dialog[:, 0], reference(mixed_inputs["dialog"], files, RATE)[:, 0], 0)
    assert (lag, corr > 0.99) == (0, True), (lag, corr)
    lag, corr = best_lag(
        phone[:, 0], reference(mixed_inputs["phone"], files, RATE)[:, 0], offsets[2]
    )
    assert (lag, corr > 0.99) == (0, True), (lag, corr)
    # Gain printed: the 48 kHz FLAC went through unresampled, so the stem is the input at
    # -6 dB to within 24-bit rounding.
    expected = reference(mixed_inputs["music"], files, RATE) * 10 ** (-6 / 20)
    assert np.max(np.abs(music[offsets[1] : offsets[1] + lengths[1]] - expected)) < 2 / (1 << 23)
    # Pan -1 on a mono track: everything left, nothing right.
    assert not np.any(phone[:, 1])
    assert np.any(phone[:, 0])

    sheet = archive.read(f"{folder}/README.txt").decode()
    assert "Sample rate    48000 Hz" in sheet
    assert "Bit depth      24-bit" in sheet
    assert "Session start  01:00:00:00" in sheet
    rows = list(csv.DictReader(io.StringIO(archive.read(f"{folder}/tracks.csv").decode())))
    assert [(r["name"], r["start_samples"], r["gain_db"], r["pan"]) for r in rows] == [
        ("Dialog", "0", "0.0", "0.0"),
        ("Music", str(offsets[1]), "-6.0", "0.0"),
        ("Phone", str(offsets[2]), "0.0", "-1.0"),
    ]
    assert rows[2]["start_timecode"] == "01:00:02:00"

    session_path = tmp_path / "session.aaf"
    session_path.write_bytes(archive.read(f"{folder}/Mixed-Project.aaf"))
    assert check_aaf_with_pyaaf2(session_path, waves, offsets, lengths, linked=False) == 90_000
    check_aaf_with_otio(session_path, NAMES[:3], offsets, lengths, linked=False)

    # The webhook: signed, daw.completed, with the job and a download URL that works.
    deadline = time.monotonic() + 30
    while not receiver.requests:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    receiver.close()
    [delivery] = receiver.requests
    assert delivery.error is None
    assert delivery.payload["type"] == "daw.completed"
    data = delivery.payload["data"]
    assert (data["job_id"], data["status"]) == (job["job_id"], "completed")
    again = download(client, settings, data["result"]["download_url"])
    assert again.read(stems[1]) == archive.read(stems[1])


def check_aaf_with_pyaaf2(
    path: Path,
    waves: list[Wave],
    offsets: list[int],
    lengths: list[int],
    *,
    linked: bool,
    rate: int = RATE,
) -> int:
    """Checks the session; answers its timecode track's start (in frames)."""
    with aaf2.open(str(path), "r") as aaf:
        [composition] = list(aaf.content.toplevel())
        sound = [slot for slot in composition.slots if slot.media_kind == "Sound"]
        assert [slot.name for slot in sound] == NAMES[: len(waves)]
        assert [slot["PhysicalTrackNumber"].value for slot in sound] == [
            number + 1 for number in range(len(waves))
        ]
        for slot, wave, offset, length in zip(sound, waves, offsets, lengths, strict=True):
            assert slot.edit_rate == rate
            components = list(slot.segment.components)
            clip = components[-1]
            assert sum(c.length for c in components[:-1]) == offset
            # A multichannel clip combines one SourceClip per channel (test_aaf_layout.py).
            inputs = list(clip.segments) if wave.channels > 1 else [clip]
            assert len(inputs) == wave.channels
            assert {(c.start, c.length) for c in inputs} == {(offset, length)}
            master = inputs[0].mob
            assert master.name == slot.name
            assert [s["PhysicalTrackNumber"].value for s in master.slots] == list(
                range(1, wave.channels + 1)
            )
            stem = f"{slot['PhysicalTrackNumber'].value:02d}_{slot.name}"
            for channel, master_slot in enumerate(master.slots, start=1):
                file_mob = master_slot.segment.mob
                descriptor = file_mob.descriptor
                assert int(descriptor["Length"].value) == wave.frames
                assert float(descriptor["SampleRate"].value) == rate
                if linked:
                    assert type(descriptor).__name__ == "WAVEDescriptor"
                    assert descriptor["ContainerFormat"].value.name == "ContainerDef_External"
                    # The Summary is the mono file's 44-byte WAVE header.
                    summary = bytes(descriptor["Summary"].value)
                    assert (len(summary), summary[:4], summary[8:12]) == (44, b"RIFF", b"WAVE")
                    fmt = summary[summary.index(b"fmt ") + 8 :]
                    _, channels, sample_rate, _, _, bits = struct.unpack_from("<HHIIHH", fmt)
                    assert (channels, sample_rate, bits) == (1, rate, wave.bits)
                    [locator] = descriptor["Locator"].value
                    name = (
                        f"{stem}.{'LR'[channel - 1]}.wav" if wave.channels == 2 else f"{stem}.wav"
                    )
                    assert locator["URLString"].value.endswith(f"/stems/{name}")
                    assert locator["URLString"].value.startswith("file:///")
                    assert file_mob.essence is None
                else:
                    assert descriptor["QuantizationBits"].value == wave.bits
                    assert descriptor["ContainerFormat"].value.name == "ContainerDef_AAF"
                    assert descriptor["Channels"].value == 1
                    assert file_mob.essence.open("r").read() == channel_bytes(wave, channel)
        [timecode] = [slot for slot in composition.slots if slot.media_kind == "Timecode"]
        return int(timecode.segment.start)


def channel_bytes(wave: Wave, channel: int) -> bytes:
    """Channel `channel` (from 1) of the wave as mono PCM bytes."""
    width = wave.bits // 8
    raw = np.frombuffer(wave.data, dtype=np.uint8).reshape(-1, wave.channels, width)
    return raw[:, channel - 1].tobytes()


def check_aaf_with_otio(
    path: Path,
    names: list[str],
    offsets: list[int],
    lengths: list[int],
    *,
    linked: bool,
    rate: int = RATE,
) -> None:
    timeline = otio.adapters.read_from_file(str(path))
    audio = [track for track in timeline.tracks if track.kind == otio.schema.TrackKind.Audio]
    assert [track.name for track in audio] == names
    for number, (track, offset, length) in enumerate(zip(audio, offsets, lengths, strict=True), 1):
        # A mono clip, or a multichannel one: a Stack of one track per channel.
        [item] = [i for i in track if isinstance(i, otio.schema.Clip | otio.schema.Stack)]
        placed = item.range_in_parent()
        # Sample-exact: positions in samples at the sample rate.
        assert (placed.start_time.value, placed.start_time.rate) == (offset, rate)
        assert (placed.duration.value, placed.duration.rate) == (length, rate)
        clips = list(item.find_clips()) if isinstance(item, otio.schema.Stack) else [item]
        assert {clip.name for clip in clips} == {track.name}
        if linked:
            stem = f"{number:02d}_{track.name}"
            names = [f"{stem}.wav"] if len(clips) == 1 else [f"{stem}.L.wav", f"{stem}.R.wav"]
            targets = [clip.media_reference.target_url for clip in clips]
            assert [t.rsplit("/", 1)[1] for t in targets] == names, targets
            assert all(t.startswith("file:///Mixed-Project/stems/") for t in targets), targets


def test_omf_and_linked_sessions_at_16_bit_and_44_1_khz(
    client: TestClient,
    settings: Settings,
    files: FileServer,
    rich: Customer,
    mixed_inputs: dict[str, Any],
    tmp_path: Path,
) -> None:
    # A quiet tone of 0.4 LSB: rounding or truncation to 16 bits would leave silence.
    rate = 44_100
    t = np.arange(2 * rate) / rate
    quiet = Audio((0.4 / 32768 * np.sin(2 * np.pi * 441 * t)).astype(np.float32)[:, None], rate)
    quiet_url = files.put("quiet.wav", file_bytes(quiet, "wav", tmp_path, "FLOAT"))
    body = mixed_request(mixed_inputs, sample_rate=44_100, bit_depth=16, frame_rate="29.97df",
                         start_timecode="00:59:59;28")  # fmt: skip
    body["tracks"].append({"name": "Quiet", "audio_url": quiet_url, "start_ms": 100})
    offsets = [0, rate // 2, 2 * rate, rate // 10]
    lengths = [3 * rate, 4 * rate, 2 * rate, 2 * rate]

    for fmt, media in (("omf", "embedded"), ("omf", "linked"), ("aaf", "linked")):
        job = export(client, rich, {**body, "format": fmt, "media": media})
        assert job["status"] == "completed", job
        archive = download(client, settings, job["result"]["download_url"])
        folder = "Mixed-Project"
        stems = [f"{folder}/{t['stem'].split('/', 1)[1]}" for t in job["result"]["tracks"]]
        waves = [parse_wave(archive.read(name)) for name in stems]
        assert {(w.sample_rate, w.bits, w.frames) for w in waves} == {
            (rate, 16, 4_500 * rate // 1000)
        }
        session = tmp_path / f"session.{fmt}"
        session.write_bytes(archive.read(f"{folder}/Mixed-Project.{fmt}"))
        # A linked session links each channel of a stereo stem as its own mono file, split
        # from it.
        split = {f"{folder}/stems/{stem}.{side}.wav" for stem in ("02_Music", "03_Phone")
                 for side in "LR"}  # fmt: skip
        sheet = archive.read(f"{folder}/README.txt").decode()
        if media == "linked":
            assert split <= set(archive.namelist())
            for name in split:
                wave = waves[int(name.rsplit("/", 1)[1][:2]) - 1]
                side = "LR".index(name[-5])
                mono = parse_wave(archive.read(name))
                assert mono.data == channel_bytes(wave, side + 1)
            assert "relink to" in sheet
        else:
            assert not split & set(archive.namelist())
        if fmt == "aaf":
            check_aaf_with_otio(session, NAMES, offsets, lengths, linked=True, rate=rate)
            start = check_aaf_with_pyaaf2(session, waves, offsets, lengths, linked=True, rate=rate)
            assert start == 107_890  # 00:59:59;28 at 29.97 drop-frame
            continue
        # OMF: each channel of a stereo track is a mono track of its own, with its own media.
        assert "Stereo in OMF" in sheet
        omf = OmfFile(session)
        assert omf.validate() == []
        composition = read_composition(omf)
        assert composition.name == "Mixed Project"
        assert (composition.timecode_fps, composition.drop_frame) == (30, True)
        assert composition.timecode_start == 60 * 60 * 30 - 2 * 54 - 2  # 00:59:59;28
        # (stem number, channel from 1 or 0 for a mono stem) of each composition track
        parts = [(1, 0), (2, 1), (2, 2), (3, 1), (3, 2), (4, 0)]
        assert [t.name for t in composition.tracks] == [
            "Dialog", "Music L", "Music R", "Phone L", "Phone R", "Quiet"]  # fmt: skip
        assert [t.physical_track for t in composition.tracks] == [1, 2, 3, 4, 5, 6]
        for track, (number, channel) in zip(composition.tracks, parts, strict=True):
            wave, offset, length = waves[number - 1], offsets[number - 1], lengths[number - 1]
            assert track.edit_rate == (rate, 1)
            assert (track.clip_offset, track.clip_length) == (offset, length)
            assert track.clip_start_in_media == offset
            assert track.clip_name == track.name
            assert track.media.sample_rate == (rate, 1)
            assert (track.media.length, track.media.channels, track.media.bits) == (
                wave.frames, 1, 16)  # fmt: skip
            if media == "embedded":
                assert track.media.is_omfi
                expected = channel_bytes(wave, channel) if channel else wave.data
                assert track.media.samples == expected
            else:
                assert not track.media.is_omfi
                assert track.media.samples is None
                stem = stems[number - 1].split("/", 1)[1]  # stems/NN_Name.wav
                if channel:
                    stem = stem.replace(".wav", f".{'LR'[channel - 1]}.wav")
                assert stem in track.media.locators

    # 16-bit dither: the 0.4 LSB tone survives as the mean of dithered values.
    quiet_stem = waves[3].integers()[offsets[3] : offsets[3] + lengths[3], 0].astype(np.float64)
    assert np.count_nonzero(quiet_stem) > lengths[3] // 4
    assert np.max(np.abs(quiet_stem)) <= 2
    tone = np.sin(2 * np.pi * 441 * np.arange(lengths[3]) / rate)
    amplitude = float(np.dot(quiet_stem, tone) / np.dot(tone, tone))
    assert abs(amplitude - 0.4) < 0.05, amplitude


def test_a_bad_track_is_refused_at_submit_and_leaves_nothing(
    client: TestClient,
    settings: Settings,
    files: FileServer,
    rich: Customer,
    mixed_inputs: dict[str, Any],
) -> None:
    """Every track is fetched and probed while the request waits: one that cannot be (no
    server, a 404, this service's own media that do not exist, not audio) is 422 naming it,
    and no job, reservation, ledger entry, stored byte or event is left."""
    good = {"name": "Good", "audio_url": mixed_inputs["phone"][0]}
    ledger_before = client.get("/api/v1/credits/ledger", headers=rich.auth()).json()["data"]
    missing_own = f"{settings.media_base_url}/med_0000000000000000000000/clip.wav"
    cases = [
        ("http://127.0.0.1:9/missing.wav", "media_unreachable"),
        (files.put("present.wav", b"").rsplit("/", 1)[0] + "/absent.wav", "media_unreachable"),
        (missing_own, "media_unreachable"),
        (files.put("notes.txt", b"not audio at all " * 64), "invalid_media"),
    ]
    for url, code in cases:
        response = client.post(
            DAW, headers=rich.auth(), json={"tracks": [good, {"name": "Bad", "audio_url": url}]}
        )
        error = assert_error(response, 422, code)
        assert error["param"] == "tracks[1].audio_url", error
    balance = client.get("/api/v1/credits", headers=rich.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (20_000, 0)
    ledger = client.get("/api/v1/credits/ledger", headers=rich.auth()).json()["data"]
    assert ledger == ledger_before
    assert client.get("/api/v1/jobs?kind=daw", headers=rich.auth()).json()["data"] == []
    assert account_media(settings, rich.account_id) == []
    assert client.get("/api/v1/events", headers=rich.auth()).json()["data"] == []


def test_eight_channels_export_and_ten_are_refused_before_anything_is_reserved(
    client: TestClient, settings: Settings, db: Database, files: FileServer, tmp_path: Path
) -> None:
    customer = create_customer(db, credits_each=1_000)
    urls = {
        channels: files.put(
            f"surround-{channels}.wav",
            file_bytes(noise(0.5, RATE, channels, seed=channels), "wav", tmp_path, "PCM_24"),
        )
        for channels in (8, 10)
    }
    job = export(client, customer, {"tracks": [{"name": "Octo", "audio_url": urls[8]}]})
    assert job["status"] == "completed", job
    assert job["result"]["tracks"][0]["channels"] == 8
    archive = download(client, settings, job["result"]["download_url"])
    wave = parse_wave(archive.read(job["result"]["tracks"][0]["stem"]))
    assert (wave.channels, wave.frames) == (8, RATE // 2)
    ledger_before = client.get("/api/v1/credits/ledger", headers=customer.auth()).json()["data"]

    tracks = [{"name": "Octo", "audio_url": urls[8]}, {"name": "Deca", "audio_url": urls[10]}]
    response = client.post(DAW, headers=customer.auth(), json={"tracks": tracks})
    assert assert_error(response, 422, "audio_out_of_range")["param"] == "tracks[1].audio_url"
    # Nothing was reserved (and released): the ledger has no new entry.
    ledger = client.get("/api/v1/credits/ledger", headers=customer.auth()).json()["data"]
    assert ledger == ledger_before
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (
        1_000 - rates.for_duration(Operation.DAW, 500), 0)  # fmt: skip


def test_clip_gain_mode_leaves_stems_at_unity_and_writes_the_gain_in_the_session(
    client: TestClient,
    settings: Settings,
    files: FileServer,
    rich: Customer,
    mixed_inputs: dict[str, Any],
    tmp_path: Path,
) -> None:
    level = 10 ** (-6 / 20)
    music_at_unity = reference(mixed_inputs["music"], files, RATE)
    for fmt in ("aaf", "omf"):
        job = export(client, rich, mixed_request(mixed_inputs, format=fmt, gain_mode="clip"))
        assert job["status"] == "completed", job
        assert job["result"]["gain_mode"] == "clip"
        assert [t["gain_db"] for t in job["result"]["tracks"]] == [0, -6, 0]
        archive = download(client, settings, job["result"]["download_url"])
        music = parse_wave(archive.read("Mixed-Project/stems/02_Music.wav")).floats()
        start = RATE // 2
        assert np.max(np.abs(music[start : start + 4 * RATE] - music_at_unity)) < 1 / (1 << 23)
        sheet = archive.read("Mixed-Project/README.txt").decode()
        assert "Gains are clip gains in the session" in sheet
        session = tmp_path / f"gain.{fmt}"
        session.write_bytes(archive.read(f"Mixed-Project/Mixed-Project.{fmt}"))
        if fmt == "omf":
            omf = OmfFile(session)
            assert omf.validate() == []
            tracks = read_composition(omf).tracks
            # Music is stereo: its two channels' tracks carry the clip gain each.
            assert [t.name for t in tracks] == [
                "Dialog", "Music L", "Music R", "Phone L", "Phone R"]  # fmt: skip
            assert [tracks[i].clip_gain for i in (0, 3, 4)] == [None, None, None]
            for channel_track in tracks[1:3]:
                assert channel_track.clip_gain == pytest.approx(level, rel=1e-5)
                assert (channel_track.clip_offset, channel_track.clip_length) == (
                    start, 4 * RATE)  # fmt: skip
            continue
        with aaf2.open(str(session), "r") as aaf:
            [composition] = list(aaf.content.toplevel())
            sound = [slot for slot in composition.slots if slot.media_kind == "Sound"]
            group = list(sound[1].segment.components)[-1]
            assert group.operation.name == "Audio Gain"
            assert str(group.operation.auid) == "9d2ea894-0968-11d3-8a38-0050040ef7d2"
            [amplitude] = list(group.parameters)
            assert float(amplitude.value) == pytest.approx(level, rel=1e-5)
            # Music is stereo: the gain applies to its two channels combined.
            [combined] = list(group.segments)
            assert combined.operation.name == "Audio Channel Combiner"
            clips = list(combined.segments)
            assert {(c.start, c.length) for c in clips} == {(start, 4 * RATE)}
            assert (len(clips), group.length) == (2, 4 * RATE)
            assert type(list(sound[0].segment.components)[-1]).__name__ == "SourceClip"
        timeline = otio.adapters.read_from_file(str(session))
        music_track = next(t for t in timeline.tracks if t.name == "Music")
        [stack] = [item for item in music_track if isinstance(item, otio.schema.Stack)]
        assert [e.name for e in stack.effects] == ["Audio Channel Combiner", "Audio Gain"]
        assert stack.range_in_parent().start_time.value == start
