"""The OMF file's layout as real DAWs write it (issue 21): object references are object IDs,
with no Bento reference lists, so that importers written against Avid's and Pro Tools' files
read the whole session; the Identification names Soundstage and its version; and the session
Ardour's OMF importer writes of it finds every source by name, each channel of a stereo track
from its own mono media (issue 42)."""

from __future__ import annotations

import platform
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from soundstage import __version__
from soundstage.formats.bwf import WaveLayout
from soundstage.formats.omf import product_version, write_omf
from soundstage.formats.session import Media, Session, SessionTrack
from soundstage.formats.timecode import FRAME_RATES
from tests.support.omf_importer_model import AvidStyleImporter
from tests.support.omf_reader import STD, Bento, OmfFile, read_composition

RATE = 44_100


@dataclass(frozen=True)
class Stem:
    name: str
    channels: int
    offset: int  # samples
    length: int


# The session: positions 0 / 2 / 4.5 / 0.75 s, lengths 6 / 8 / 5 / 10 s, one stereo.
STEMS = [
    Stem("Dialog", 1, 0, 6 * RATE),
    Stem("Music", 2, 2 * RATE, 8 * RATE),
    Stem("Effects", 1, 9 * RATE // 2, 5 * RATE),
    Stem("Room", 1, 3 * RATE // 4, 10 * RATE),
]
TOTAL = max(stem.offset + stem.length for stem in STEMS)
# The tracks as the composition holds them, with the stem's channel each reads (from 0): a
# stereo track is its two channels, each a track of its own.
PARTS = [("Dialog", 0), ("Music L", 0), ("Music R", 1), ("Effects", 0), ("Room", 0)]


def wave_stem(path: Path, stem: Stem, seed: int) -> tuple[WaveLayout, bytes]:
    """A 16-bit WAVE file of the session's length, noise where the clip is, silence
    around; its layout and its data chunk's bytes."""
    samples = np.zeros((TOTAL, stem.channels), dtype="<i2")
    noise = np.random.default_rng(seed).integers(-8000, 8000, (stem.length, stem.channels))
    samples[stem.offset : stem.offset + stem.length] = noise
    data = samples.tobytes()
    block = 2 * stem.channels
    fmt = struct.pack("<HHIIHH", 1, stem.channels, RATE, RATE * block, block, 16)
    header = (
        b"RIFF"
        + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data))
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", len(data))
    )
    path.write_bytes(header + data)
    return WaveLayout(len(header), len(data), TOTAL), data


def write_session(
    tmp: Path,
    media: Media = "embedded",
    gains: tuple[float, ...] = (0, 0, 0, 0),
    stems: list[Stem] = STEMS,
) -> tuple[Path, list[bytes]]:
    """The four-track session written to an OMF file, each clip at its gain (dB, 0: none);
    the file and each stem's samples."""
    tracks, samples = [], []
    for number, stem in enumerate(stems, 1):
        ref = f"stems/{number:02d}_{stem.name.replace('/', '_')}.wav"
        path = tmp / ref
        path.parent.mkdir(exist_ok=True)
        layout, data = wave_stem(path, stem, seed=number)
        samples.append(data)
        tracks.append(
            SessionTrack(
                stem.name,
                path,
                ref,
                stem.channels,
                stem.offset,
                stem.length,
                layout,
                gains[number - 1],
            )
        )
    session = Session(
        name="Layout",
        sample_rate=RATE,
        bit_depth=16,
        frame_rate=FRAME_RATES["25"],
        start_frame=90_000,
        total_frames=TOTAL,
        media=media,
        tracks=tuple(tracks),
    )
    target = tmp / f"layout-{media}-{len(list(tmp.iterdir()))}.omf"
    with target.open("wb") as out:
        write_omf(session, out)
    return target, samples


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[bytes]]:
    return write_session(tmp_path_factory.mktemp("omf-layout"))


@pytest.fixture(scope="module", params=["embedded", "linked"])
def both(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_session(tmp_path_factory.mktemp("omf-layout"), request.param)[0]


def test_the_toc_has_no_reference_lists_and_no_reference_data(both: Path) -> None:
    data = both.read_bytes()
    bento = Bento(data)
    assert bento.validate() == []
    ref_types = {i for i, n in bento.type_names.items() if n in ("omfi:ObjRef", "omfi:ObjRefArray")}
    references = [e for e in bento.entries if e.type in ref_types]
    assert len(references) > 50  # the session's graph is made of them
    # No value is preceded by a "reference list ID" (TOC code 15).
    assert [e for e in bento.entries if e.reference_list is not None] == []
    # No reference-list objects: no ObjReferences property, no ObjRefData value.
    assert [e for e in bento.entries if e.prop == STD["ObjReferences"]] == []
    assert [e for e in bento.entries if e.type == STD["ObjRefData"]] == []


def test_every_reference_is_the_id_of_an_omf_object_in_the_file(both: Path) -> None:
    omf = OmfFile(both)
    assert omf.validate() == []
    bento = omf.bento
    classed = {obj.id: obj.class_id for obj in omf.all_objects()}
    names = bento.type_names
    seen = {"omfi:ObjRef": 0, "omfi:ObjRefArray": 0}
    for entry in bento.entries:
        kind = names.get(entry.type)
        if kind not in seen:
            continue
        seen[kind] += 1
        # Nothing says the value holds keys: it holds object IDs, and they are read as such.
        assert entry.reference_list is None
        raw = bento.value(entry)
        if kind == "omfi:ObjRef":
            assert len(raw) == 4
            targets: tuple[int, ...] = struct.unpack("<I", raw)
        else:
            (count,) = struct.unpack_from("<H", raw)
            assert len(raw) == 2 + 4 * count
            targets = struct.unpack_from(f"<{count}I", raw, 2)
        for target in targets:
            assert target in classed, (entry, target)
    assert seen["omfi:ObjRef"] > 20
    assert seen["omfi:ObjRefArray"] > 10
    # The references make the session: a master and a file mob per channel (the stereo
    # track has two of each), the composition.
    head = omf.head
    assert (
        sorted(m.class_id for m in head.refs("OMFI:HEAD:Mobs"))
        == ["CMOB"] + ["MMOB"] * 5 + ["SMOB"] * 5
    )
    composition = read_composition(omf)
    assert [t.name for t in composition.tracks] == [name for name, _ in PARTS]


@pytest.fixture(scope="module")
def with_clip_gains(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[bytes]]:
    """The session with a clip gain on the stereo track and on the last one."""
    return write_session(tmp_path_factory.mktemp("omf-gain"), gains=(0, -6, 0, 3.5))


def channel_of(data: bytes, channels: int, channel: int) -> bytes:
    """One channel of interleaved 16-bit samples."""
    return np.frombuffer(data, dtype="<i2").reshape(-1, channels)[:, channel].tobytes()


@pytest.mark.parametrize("gains", [False, True], ids=["unity", "clip-gains"])
def test_an_importer_written_against_avid_files_reads_every_track_mob_and_media(
    embedded: tuple[Path, list[bytes]], with_clip_gains: tuple[Path, list[bytes]], gains: bool
) -> None:
    # With clip gains, a clip is a nested scope of the clip and its gain effect: an importer
    # that knows no effect still places the clip (a bare effect on a clip, as written before,
    # made it drop the clip).
    path, samples = with_clip_gains if gains else embedded
    importer = AvidStyleImporter(path.read_bytes())
    session = importer.session()
    # With reference lists this importer found 0 tracks at rate 0, 1 mob and 1 media file.
    assert [t.name for t in session.tracks] == [name for name, _ in PARTS]
    assert session.sample_rate == RATE
    assert session.mobs == 11  # 5 file mobs, 5 master mobs (one per channel), the composition
    assert sorted(session.media_files) == sorted(name for name, _ in PARTS)
    assert importer.resolved_as_avid  # arrays of object IDs: no reference is looked up
    stems = [STEMS[0], STEMS[1], STEMS[1], STEMS[2], STEMS[3]]
    data = [samples[0], samples[1], samples[1], samples[2], samples[3]]
    for track, (name, channel), stem, stem_data in zip(
        session.tracks, PARTS, stems, data, strict=True
    ):
        [region] = track.regions
        assert region.source == name
        # The session Ardour's importer writes names the source as the file it extracted:
        # Ardour opens it by that name (`Dialog.PHYS` was named `Dialog`, and went missing).
        assert session.source_names[region.source] == region.source
        assert (region.position, region.length) == (stem.offset, stem.length)
        # The clip starts in its media where it sits on the timeline (media of session length).
        assert region.start == stem.offset
        # Every region is mono: its one source holds its own channel, so no stereo track
        # plays its left channel on both sides (a source per channel, read as channel 0).
        assert track.channels == region.channels == 1
        assert region.channel_sources == [name]
        source = session.sources[region.source]
        assert (source.channels, source.sample_rate, source.frames) == (1, RATE, TOTAL)
        media = session.media_files[region.source]
        expected = channel_of(stem_data, stem.channels, channel)
        assert media.endswith(expected)  # the channel's samples, bit for bit
    left, right = (session.media_files[name] for name in ("Music L", "Music R"))
    assert left != right
    assert [t.regions[0].position for t in session.tracks] == [0, 88_200, 88_200, 198_450, 33_075]
    assert [t.regions[0].length / RATE for t in session.tracks] == [6, 8, 8, 5, 10]


def test_media_names_hold_no_dot_and_each_source_is_found_by_its_name(tmp_path: Path) -> None:
    """Track names with dots, a slash, a colon, and two that meet once those are replaced:
    every media file the importer extracts is named as the session's source names it, and no
    two share a name."""
    stems = [
        Stem("Dialog Mono48.v2", 1, 0, RATE),
        Stem("Dialog Mono48_v2", 1, RATE, RATE),
        Stem("FX: door/slam", 2, 0, RATE),
        Stem("Room", 1, 0, RATE),
    ]
    path, _ = write_session(tmp_path, stems=stems)
    session = AvidStyleImporter(path.read_bytes()).session()
    names = [t.name for t in session.tracks]
    assert names == [
        "Dialog Mono48.v2",
        "Dialog Mono48_v2",
        "FX: door/slam L",
        "FX: door/slam R",
        "Room",
    ]
    media = [t.regions[0].source for t in session.tracks]
    assert media == ["Dialog Mono48_v2", "Dialog Mono48_v2 2", "FX_ door_slam L",
                     "FX_ door_slam R", "Room"]  # fmt: skip
    assert sorted(session.media_files) == sorted(media)
    for name in media:
        assert not set(name) & set("./\\:"), name
        assert session.source_names[name] == name


def test_the_identification_names_soundstage_its_version_and_toolkit(both: Path) -> None:
    omf = OmfFile(both)
    [identification] = omf.head.refs("OMFI:HEAD:IdentificationList")
    assert identification.class_id == "IDNT"
    assert identification.string("OMFI:IDNT:CompanyName") == "Soundstage"
    assert identification.string("OMFI:IDNT:ProductName") == "Soundstage DAW export"
    assert identification.string("OMFI:IDNT:ProductVersionString") == __version__
    numbers = tuple(int(part) for part in __version__.split("."))
    for prop in ("OMFI:IDNT:ProductVersion", "OMFI:IDNT:ToolkitVersion"):
        assert identification.type_of(prop) == "omfi:ProductVersion"
        major, minor, tertiary, patch, kind = struct.unpack("<5H", identification.raw(prop))
        assert (major, minor, tertiary) == numbers[:3]
        assert (patch, kind) == (0, 1)  # kVersionReleased
    assert identification.type_of("OMFI:IDNT:ProductID") == "omfi:Int32"
    assert identification.raw("OMFI:IDNT:ProductID") == b"GTSS"  # "SSTG", the MobID prefix
    assert identification.string("OMFI:IDNT:Platform") == platform.system()
    assert identification.type_of("OMFI:IDNT:Date") == "omfi:TimeStamp"


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("0.1.0", (0, 1, 0, 0, 1)),
        ("2.3.4.5", (2, 3, 4, 5, 1)),
        ("65535.0", (65535, 0, 0, 0, 1)),  # the largest UInt16 fits
        ("65536.0", (65535, 0, 0, 0, 1)),  # one past it is held at the largest
        ("1.0rc2", (1, 0, 0, 0, 4)),  # beta
        ("1.0.post1", (1, 0, 0, 0, 3)),  # patched
        ("1.0.dev3", (1, 0, 0, 0, 5)),  # private build
        ("1.0+local", (1, 0, 0, 0, 5)),
        ("unknown", (0, 0, 0, 0, 0)),
    ],
)
def test_product_versions_as_omf_writes_them(version: str, expected: tuple[int, ...]) -> None:
    assert struct.unpack("<5H", product_version(version)) == expected


def test_the_test_reader_still_follows_bento_reference_lists() -> None:
    """A container laid out as Bento 1.0d5 allows: the reference's value holds a key (7) and
    its reference list pairs the key with the object (0x10001). The reader resolves it through
    the list, never taking the key for an ID, and an ID is no key of the list."""
    names = [  # (object, global name kind, name)
        (0x10010, STD["PropName"], "OMFI:OOBJ:ObjClass"),
        (0x10011, STD["TypeName"], "omfi:ClassID"),
        (0x10012, STD["PropName"], "OMFI:MSLT:Segment"),
        (0x10013, STD["TypeName"], "omfi:ObjRef"),
    ]
    body, toc = b"", b""
    for obj, kind, name in names:
        encoded = name.encode("ascii") + b"\0"
        toc += b"\x01" + struct.pack("<III", obj, kind, STD["ASCII7"])
        toc += b"\x05" + struct.pack("<II", len(body), len(encoded))
        body += encoded
    pairs = struct.pack("<II", 7, 0x10001)
    class_prop, class_type = 0x10010, 0x10011
    toc += b"\x01" + struct.pack("<III", 0x10001, class_prop, class_type) + b"\x0dFILL"
    toc += b"\x01" + struct.pack("<III", 0x10002, class_prop, class_type) + b"\x0dMSLT"
    toc += b"\x02" + struct.pack("<II", 0x10012, 0x10013)
    toc += b"\x0f" + struct.pack("<I", 0x10003) + b"\x0d" + struct.pack("<I", 7)
    toc += b"\x01" + struct.pack("<III", 0x10003, STD["ObjReferences"], STD["ObjRefData"])
    toc += b"\x05" + struct.pack("<II", len(body), len(pairs))
    body += pairs
    label = b"\xa4CM\xa5Hdr\xd7" + struct.pack("<HHHHII", 0x0101, 1, 2, 0, len(body), len(toc))
    bento = Bento(body + toc + label)
    assert bento.type_names[0x10013] == "omfi:ObjRef"
    [reference] = [e for e in bento.entries if e.prop == 0x10012]
    assert (reference.obj, reference.reference_list, reference.immediate) == (
        0x10002, 0x10003, struct.pack("<I", 7))  # fmt: skip
    assert bento.references(reference) == {7: 0x10001}
    assert bento.resolve(reference, 7) == 0x10001  # through the list: not object 7
    assert bento.resolve(reference, 0x10001) is None
