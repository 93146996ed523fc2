"""The AAF as importers built against Pro Tools and Resolve files read it (issue 21): each
channel its own mono essence, a multichannel clip as an Audio Channel Combiner of them, linked
media described by a consistent 44-byte WAVE summary and located by a well-formed file URI,
and Soundstage named as the file's creator. Written from real stems, read back with pyaaf2,
OpenTimelineIO's AAF adapter and by hand."""

from __future__ import annotations

import importlib.metadata
import struct
import tracemalloc
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urlparse

import aaf2
import numpy as np
import opentimelineio as otio
import pytest

from soundstage import __version__
from soundstage.creative.daw.limits import estimated_bytes
from soundstage.formats import aaf as aaf_writer
from soundstage.formats.bwf import BroadcastInfo, BwfWriter
from soundstage.formats.channels import split_channels
from soundstage.formats.session import Media, Session, SessionTrack
from soundstage.formats.timecode import FRAME_RATES
from tests.support.daw import Wave, parse_wave

RATE = 48_000
INFO = BroadcastInfo("test", "Soundstage", "ref", datetime(2026, 1, 2, tzinfo=UTC), 0, "")
# OperationDef of Pro Tools' multichannel clips, as LibAAF knows it (AAFOperationDefs.h).
COMBINER = "6b46dd7a-132d-4856-ab21-8b751d8462ec"
PRODUCT_ID = "5f0c2d7e-3a41-4e8b-9b6d-1c7a2e94d3b5"


def write_stem(folder: Path, name: str, channels: int, audio: int, total: int) -> SessionTrack:
    """A 24-bit stem of `audio` frames of distinct noise per channel, padded to `total`."""
    path = folder / name
    writer = BwfWriter(path, RATE, channels, 24, INFO)
    rng = np.random.default_rng(channels)
    writer.write(rng.integers(-(1 << 23), 1 << 23, (audio, channels)).astype(np.int32))
    layout = writer.finish(total)
    track_name = name.removesuffix(".wav").split("_", 1)[1]
    return SessionTrack(track_name, path, f"stems/{name}", channels, 0, audio, layout)


def session_of(
    tmp: Path, media: Media, channels: list[int], *, frames: int = 4_800, folder: str = "Proj"
) -> Session:
    """Tracks of these channel counts, the n-th starting n x 100 samples in."""
    stems = tmp / folder / "stems"
    stems.mkdir(parents=True, exist_ok=True)
    tracks = []
    for number, count in enumerate(channels, start=1):
        track = write_stem(stems, f"{number:02d}_T{number}.wav", count, frames, frames + 300)
        offset = number * 100
        tracks.append(replace(track, offset_frames=offset, audio_frames=frames - offset))
    return Session(
        "Layout Test", RATE, 24, FRAME_RATES["25"], 90_000, frames + 300, media, tuple(tracks),
        folder=folder,
    )  # fmt: skip


def sound_slots(aaf: aaf2.file.AAFFile) -> list[aaf2.mobslots.TimelineMobSlot]:
    [composition] = list(aaf.content.toplevel())
    return [slot for slot in composition.slots if slot.media_kind == "Sound"]


def stem_wave(track: SessionTrack) -> Wave:
    return parse_wave(track.stem_path.read_bytes())


def channel_data(wave: Wave, channel: int) -> bytes:
    """Channel `channel` (from 1) of a 24-bit wave as mono PCM bytes."""
    raw = np.frombuffer(wave.data, dtype=np.uint8).reshape(-1, wave.channels, 3)
    return raw[:, channel - 1].tobytes()


@pytest.mark.parametrize("channels", [2, 6])
def test_a_multichannel_track_combines_one_mono_essence_per_channel(
    tmp_path: Path, channels: int
) -> None:
    """The stereo (or 5.1) track's clip is an Audio Channel Combiner of one SourceClip per
    MasterMob slot, slots numbered 1..n by PhysicalTrackNumber, each slot a mono essence
    holding exactly that channel of the stem; a mono track stays a plain SourceClip."""
    session = session_of(tmp_path, "embedded", [1, channels])
    path = tmp_path / "layout.aaf"
    aaf_writer.write_aaf(session, path)

    with aaf2.open(str(path), "r") as aaf:
        mono_slot, multi_slot = sound_slots(aaf)
        mono_clip = list(mono_slot.segment.components)[-1]
        assert type(mono_clip).__name__ == "SourceClip"
        [mono_master_slot] = mono_clip.mob.slots
        assert mono_master_slot["PhysicalTrackNumber"].value == 1
        mono_descriptor = mono_master_slot.segment.mob.descriptor
        assert mono_descriptor["Channels"].value == 1

        track = session.tracks[1]
        group = list(multi_slot.segment.components)[-1]
        assert type(group).__name__ == "OperationGroup"
        assert str(group.operation.auid) == COMBINER
        assert group.length == track.audio_frames
        inputs = list(group.segments)
        assert len(inputs) == channels
        master = inputs[0].mob
        assert master.name == track.name
        assert [clip.mob for clip in inputs] == [master] * channels
        assert [clip.slot_id for clip in inputs] == [slot.slot_id for slot in master.slots]
        assert {(clip.start, clip.length) for clip in inputs} == {
            (track.offset_frames, track.audio_frames)
        }
        assert [slot["PhysicalTrackNumber"].value for slot in master.slots] == list(
            range(1, channels + 1)
        )
        sources = [slot.segment.mob for slot in master.slots]
        assert len({source.mob_id for source in sources}) == channels
        wave = stem_wave(track)
        for channel, source in enumerate(sources, start=1):
            descriptor = source.descriptor
            assert type(descriptor).__name__ == "PCMDescriptor"
            assert (descriptor["Channels"].value, descriptor["QuantizationBits"].value) == (1, 24)
            assert descriptor["BlockAlign"].value == 3
            assert int(descriptor["Length"].value) == session.total_frames
            assert source.essence.open("r").read() == channel_data(wave, channel)
        suffixes = ["L", "R"] if channels == 2 else [f"A{n}" for n in range(1, channels + 1)]
        assert [source.name for source in sources] == [f"02_T2.{s}" for s in suffixes]

    # OpenTimelineIO reads the combiner as a stack of one track per channel, at the clip's
    # place on the timeline.
    timeline = otio.adapters.read_from_file(str(path))
    audio = [t for t in timeline.tracks if t.kind == otio.schema.TrackKind.Audio]
    [stack] = [item for item in audio[1] if isinstance(item, otio.schema.Stack)]
    placed = stack.range_in_parent()
    assert (placed.start_time.value, placed.duration.value) == (
        track.offset_frames, track.audio_frames)  # fmt: skip
    assert len(stack) == channels
    assert [effect.name for effect in stack.effects] == ["Audio Channel Combiner"]


def test_each_channel_is_embedded_bit_exact_in_bounded_memory(tmp_path: Path) -> None:
    """A stereo stem of 20 s (5.5 MiB) and one of 2 s go into the AAF with about the same
    peak of Python memory: the channels are streamed block by block."""

    def peak(seconds: int) -> int:
        session = session_of(tmp_path / str(seconds), "embedded", [2], frames=seconds * RATE)
        tracemalloc.start()
        try:
            aaf_writer.write_aaf(session, tmp_path / f"{seconds}.aaf")
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    short, long = peak(2), peak(20)
    assert long < 4 * 1024**2, long
    assert long < short + 1024**2, (short, long)
    session = session_of(tmp_path / "20", "embedded", [2], frames=20 * RATE)
    wave = stem_wave(session.tracks[0])
    with aaf2.open(str(tmp_path / "20.aaf"), "r") as aaf:
        [slot] = sound_slots(aaf)
        [group] = [c for c in slot.segment.components if type(c).__name__ == "OperationGroup"]
        master = next(iter(group.segments)).mob
        for channel, master_slot in enumerate(master.slots, start=1):
            stream = master_slot.segment.mob.essence.open("r")
            assert stream.read() == channel_data(wave, channel)


def test_linked_media_have_a_consistent_44_byte_wave_summary(tmp_path: Path) -> None:
    """Each WAVEDescriptor Summary is a mono PCM WAVE header: RIFF size 36 + data bytes,
    a 16-byte `fmt ` chunk and the `data` chunk's header with the channel's size; the
    linked file starts with exactly those bytes (a split channel) or has that format and
    data (a mono stem)."""
    session = session_of(tmp_path, "linked", [1, 2])
    for track in session.tracks:
        if track.channels > 1:
            split_channels(track.stem_path, track.layout, track.channels, RATE, 24)
    path = tmp_path / "linked.aaf"
    aaf_writer.write_aaf(session, path)

    data_bytes = session.total_frames * 3
    expected = (
        b"RIFF" + struct.pack("<I", 36 + data_bytes) + b"WAVE"
        + b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, RATE, RATE * 3, 3, 24)
        + b"data" + struct.pack("<I", data_bytes)
    )  # fmt: skip
    assert len(expected) == 44
    stems = tmp_path / "Proj" / "stems"
    with aaf2.open(str(path), "r") as aaf:
        descriptors = [
            master_slot.segment.mob.descriptor
            for slot in sound_slots(aaf)
            for master_slot in _master(slot).slots
        ]
        for descriptor in descriptors:
            assert type(descriptor).__name__ == "WAVEDescriptor"
            assert descriptor["ContainerFormat"].value.name == "ContainerDef_External"
            assert bytes(descriptor["Summary"].value) == expected
            [locator] = descriptor["Locator"].value
            linked = parse_wave((stems / _file_name(locator)).read_bytes())
            assert (linked.channels, linked.sample_rate, linked.bits) == (1, RATE, 24)
            assert len(linked.data) == data_bytes
        assert len(descriptors) == 3
    wave = stem_wave(session.tracks[1])
    for channel, suffix in ((1, "L"), (2, "R")):
        raw = (stems / f"02_T2.{suffix}.wav").read_bytes()
        assert raw[:44] == expected
        assert raw[44:] == channel_data(wave, channel)


def test_linked_locators_are_file_uris_to_unique_file_names(tmp_path: Path) -> None:
    """Every NetworkLocator is an absolute, percent-encoded file:// URI of the file under the
    project folder; the file names (what a DAW relinks by) are unique, exist in stems/, and
    name the file SourceMobs."""
    session = session_of(tmp_path, "linked", [2, 1, 6], folder="My Project #1")
    for track in session.tracks:
        if track.channels > 1:
            split_channels(track.stem_path, track.layout, track.channels, RATE, 24)
    path = tmp_path / "linked.aaf"
    aaf_writer.write_aaf(session, path)

    stems = tmp_path / "My Project #1" / "stems"
    names = []
    with aaf2.open(str(path), "r") as aaf:
        for slot in sound_slots(aaf):
            for master_slot in _master(slot).slots:
                source = master_slot.segment.mob
                [locator] = source.descriptor["Locator"].value
                url = locator["URLString"].value
                parsed = urlparse(url)
                assert (parsed.scheme, parsed.netloc, parsed.query, parsed.fragment) == (
                    "file", "", "", "")  # fmt: skip
                assert url.isascii()
                assert " " not in url
                assert "#" not in url
                path_part = unquote(parsed.path)
                folder, name = path_part.rsplit("/stems/", 1)
                assert folder == "/My Project #1"
                assert source.name == name
                assert (stems / name).is_file()
                names.append(name)
    assert len(names) == 2 + 1 + 6
    assert Counter(names).most_common(1)[0][1] == 1
    assert names[:3] == ["01_T1.L.wav", "01_T1.R.wav", "02_T2.wav"]

    timeline = otio.adapters.read_from_file(str(path))
    targets = [clip.media_reference.target_url for clip in timeline.find_clips()]
    assert sorted(unquote(urlparse(t).path).rsplit("/", 1)[1] for t in targets) == sorted(names)


def test_the_file_names_soundstage_as_its_creator(tmp_path: Path) -> None:
    session = session_of(tmp_path, "embedded", [1])
    path = tmp_path / "id.aaf"
    aaf_writer.write_aaf(session, path)
    with aaf2.open(str(path), "r") as aaf:
        [identification] = list(aaf.header["IdentificationList"])
        # Soundstage's own, fixed for every version (not pyaaf2's 97e04c67-...).
        assert str(identification["ProductID"].value) == PRODUCT_ID
        version = identification["ProductVersion"].value
        major, minor, tertiary = (int(part) for part in __version__.split(".")[:3])
        assert (version["major"], version["minor"], version["tertiary"]) == (
            major, minor, tertiary)  # fmt: skip
        assert version["type"] in ("VersionReleased", "VersionBeta", 1, 4)
        assert identification["ProductVersionString"].value == __version__
        toolkit = identification["ToolkitVersion"].value
        pyaaf2 = importlib.metadata.version("pyaaf2").split(".")
        assert [toolkit["major"], toolkit["minor"], toolkit["tertiary"]] == [
            int(part) for part in pyaaf2[:3]
        ]
        assert identification["CompanyName"].value == "Soundstage"
        assert identification["ProductName"].value == "Soundstage"
        assert identification["Platform"].value
        # LibAAF writes "<ProductName> <ProductVersionString>" into a 32-byte BWF field
        # (with its NUL) when it extracts embedded audio, and asserts that it fits.
        originator = f"{identification['ProductName'].value} {__version__}"
        assert len(originator) < 32


def test_a_linked_aaf_counts_the_split_channels_in_the_export_size() -> None:
    mono_and_stereo = estimated_bytes(48_000, [1, 2], 24, "linked", split_channels=True)
    assert mono_and_stereo == 48_000 * 3 * (1 + 2 + 2)
    assert estimated_bytes(48_000, [1, 2], 24, "linked") == 48_000 * 3 * 3


def _master(slot: aaf2.mobslots.TimelineMobSlot) -> aaf2.mobs.MasterMob:
    """The MasterMob of the track's clip, inside a combiner or not."""
    clip = list(slot.segment.components)[-1]
    if type(clip).__name__ == "OperationGroup":
        clip = next(iter(clip.segments))
    return clip.mob


def _file_name(locator: aaf2.misc.NetworkLocator) -> str:
    return unquote(urlparse(locator["URLString"].value).path).rsplit("/", 1)[1]
