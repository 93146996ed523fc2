"""The session as OMF Interchange 2.0 (OMF Interchange Specification 2.1), in a Bento container.

Objects (each with `OMFI:OOBJ:ObjClass`, its four-letter class):

- HEAD: byte order 'II', version 2.0, the Mobs, the MediaData, the data definitions and an
  Identification (IDNT): Soundstage's company and product name, its version (as an
  `omfi:ProductVersion` and as text, from the package's), product ID, the writer's version
  as ToolkitVersion (no OMF Toolkit wrote the file), the date and the platform.
- CMOB, the composition: a timecode track (MSLT -> TCCP at the frame rate) and one sound
  track per stem (MSLT with a TRKD naming it and numbering it A1..An, at the sample rate)
  holding a SEQU of a FILL up to the clip and an SCLP pointing at the master mob's track.
- with clip gain, the clip is a NEST (nested scope) of two slots, as Avid's files carry an
  audio clip's level: the SCLP, then an EFFE of the Mono Audio Gain effect (EDEF
  `omfi:effect:MonoAudioGain`) whose input (argument -1) is an SREF to that first slot and
  whose level (argument 1) is a CVAL constant. Importers that know no effects still find the
  clip in the scope's slots (Ardour's OMF importer reads NEST, SCLP, FILL and TRAN, and would
  drop a bare EFFE with its clip);
- per channel of each stem an MMOB (the clip's name) whose track is an SCLP of the file
  SMOB, and the file SMOB whose MediaDescription is a WAVD (WAVE descriptor: sample rate,
  length in samples, the mono WAVE header as Summary). Embedded: IsOMFI true and a WAVE media
  data object (MDAT with the same MobID) holding a mono WAVE file of the channel's samples.
  Linked: IsOMFI false and locators (DOS, Unix and text) naming, relative to the session file,
  the stem (mono) or the channel's file split from it (`stems/02_Music.L.wav`).

Multichannel audio is one mono media object per channel, as Pro Tools' OMF exports carry it
and as the AAF does: a stereo track is two composition tracks, `Music L` and `Music R`, each
with its own master and file mob. An importer that gives a region one source for all its
channels (Ardour's, which then plays channel 0 of a stereo file on both sides) so reads each
channel from its own file. A file mob's name is the name an importer gives the media file it
extracts, and Ardour's names the session's source after that file without the part from its
last dot: media names hold no dot (a dot, slash, backslash or colon in a track name becomes
`_`), and are unique in the file (` 2`, ` 3`… after a repeat).

Object references hold the referenced objects' IDs, with no Bento reference lists: the layout
of OMF files from Avid and Pro Tools, the only one importers written against those files read
(the reason and the evidence are in `bento`'s docstring).

Sample data is copied byte for byte from the stems' data chunks, in blocks.
"""

from __future__ import annotations

import itertools
import platform
import re
import secrets
import struct
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import BinaryIO, Final

from soundstage import __version__
from soundstage.formats.bento import BentoWriter
from soundstage.formats.channels import (
    channel_bytes,
    channel_suffix,
    linked_ref,
    mono_wave_header,
)
from soundstage.formats.errors import OmfTooLarge
from soundstage.formats.session import Session, SessionTrack

# Pro Tools and most OMF readers fail on files past 2 GiB (32-bit signed offsets).
MAX_OMF_BYTES: Final = (1 << 31) - 1
_COPY_BLOCK: Final = 1 << 20
_MOB_ID_PREFIX: Final = 0x53535447  # "SSTG": this product's prefix in every MobID

# Identification (OMF Interchange Specification 2.1, the IDNT class).
COMPANY_NAME: Final = "Soundstage"
PRODUCT_NAME: Final = "Soundstage DAW export"
# No registry hands out OMF product IDs any more: the MobID prefix, which names the product too.
PRODUCT_ID: Final = _MOB_ID_PREFIX
# omfi:ProductType, the fifth UInt16 of an omfi:ProductVersion.
VERSION_UNKNOWN, VERSION_RELEASED, VERSION_DEBUG, VERSION_PATCHED = 0, 1, 2, 3
VERSION_BETA, VERSION_PRIVATE_BUILD = 4, 5


# What a media name may not hold: a dot (importers cut the name there), a path separator, a
# drive's colon, control characters.
_NOT_IN_MEDIA_NAMES: Final = re.compile(r"[./\\:\x00-\x1f]")


@dataclass(frozen=True)
class Part:
    """One composition track: a mono track, or one channel of a multichannel one."""

    track: SessionTrack
    channel: int  # from 1
    name: str  # the composition track's and its master mob's: `Music L`
    media_name: str  # the file mob's (the extracted media file's): no dot, unique


def parts(session: Session) -> list[Part]:
    """Every channel of every track, in track and channel order, with its names."""
    found: list[Part] = []
    taken: set[str] = set()
    for track in session.tracks:
        for channel in range(1, track.channels + 1):
            suffix = f" {channel_suffix(channel, track.channels)}" if track.channels > 1 else ""
            media = base = _NOT_IN_MEDIA_NAMES.sub("_", track.name) + suffix
            repeat = itertools.count(2)
            while media.casefold() in taken:
                media = f"{base} {next(repeat)}"
            taken.add(media.casefold())
            found.append(Part(track, channel, track.name + suffix, media))
    return found


@dataclass(frozen=True)
class MobID:
    prefix: int
    major: int
    minor: int

    def pack(self) -> bytes:
        return struct.pack("<iII", self.prefix, self.major, self.minor)


class _Omf:
    """OMF objects and typed properties over a Bento writer."""

    def __init__(self, bento: BentoWriter) -> None:
        self.bento = bento
        self._minor = itertools.count(secrets.randbelow(1 << 24))
        self._major = int(time.time()) & 0xFFFFFFFF
        self.now = struct.pack("<IB", int(time.time()) & 0xFFFFFFFF, 1)  # seconds, GMT

    def new(self, class_id: str) -> int:
        obj = self.bento.new_object()
        self.bento.put(obj, "OMFI:OOBJ:ObjClass", "omfi:ClassID", class_id.encode("ascii"))
        return obj

    def mob_id(self) -> MobID:
        return MobID(_MOB_ID_PREFIX, self._major, next(self._minor))

    def string(self, obj: int, prop: str, value: str) -> None:
        self.bento.put(obj, prop, "omfi:String", value.encode("utf-8") + b"\0")

    def unique_name(self, obj: int, prop: str, value: str) -> None:
        self.bento.put(obj, prop, "omfi:UniqueName", value.encode("ascii") + b"\0")

    def uint32(self, obj: int, prop: str, value: int) -> None:
        self.bento.put(obj, prop, "omfi:UInt32", struct.pack("<I", value))

    def length(self, obj: int, prop: str, value: int) -> None:
        self.bento.put(obj, prop, "omfi:Length32", struct.pack("<i", value))

    def position(self, obj: int, prop: str, value: int) -> None:
        self.bento.put(obj, prop, "omfi:Position32", struct.pack("<i", value))

    def rational(self, obj: int, prop: str, numerator: int, denominator: int) -> None:
        self.bento.put(obj, prop, "omfi:Rational", struct.pack("<ii", numerator, denominator))

    def boolean(self, obj: int, prop: str, value: bool) -> None:
        self.bento.put(obj, prop, "omfi:Boolean", bytes([1 if value else 0]))

    def timestamp(self, obj: int, prop: str) -> None:
        self.bento.put(obj, prop, "omfi:TimeStamp", self.now)

    def uid(self, obj: int, prop: str, value: MobID) -> None:
        self.bento.put(obj, prop, "omfi:UID", value.pack())

    def ref(self, obj: int, prop: str, target: int) -> None:
        """An `omfi:ObjRef`: the target's Bento object ID, 4 bytes (no reference list)."""
        self.bento.put(obj, prop, "omfi:ObjRef", struct.pack("<I", target))

    def refs(self, obj: int, prop: str, targets: Sequence[int]) -> None:
        """An `omfi:ObjRefArray`: a UInt16 count, then each target's Bento object ID in 4
        bytes (2 + 4 * count bytes, no reference list), the layout Avid's files have."""
        data = struct.pack(f"<H{len(targets)}I", len(targets), *targets)
        self.bento.put(obj, prop, "omfi:ObjRefArray", data)


class _SessionWriter:
    def __init__(self, omf: _Omf, session: Session) -> None:
        self.omf, self.session = omf, session
        self.sound = self._data_definition("omfi:data:Sound")
        self.timecode = self._data_definition("omfi:data:Timecode")
        self.mobs: list[int] = []
        self.media: list[int] = []
        self.definitions = [self.sound, self.timecode]
        self._gain: tuple[int, int] | None = None  # the gain effect's EDEF and Rational DDEF

    def _data_definition(self, kind: str) -> int:
        ddef = self.omf.new("DDEF")
        self.omf.unique_name(ddef, "OMFI:DDEF:DataKindID", kind)
        return ddef

    def component(self, class_id: str, kind: int, length: int) -> int:
        obj = self.omf.new(class_id)
        self.omf.ref(obj, "OMFI:CPNT:DataKind", kind)
        self.omf.length(obj, "OMFI:CPNT:Length", length)
        return obj

    def source_clip(self, length: int, source: MobID, track_id: int, start: int) -> int:
        clip = self.component("SCLP", self.sound, length)
        self.omf.uid(clip, "OMFI:SCLP:SourceID", source)
        self.omf.uint32(clip, "OMFI:SCLP:SourceTrackID", track_id)
        self.omf.position(clip, "OMFI:SCLP:StartTime", start)
        return clip

    def track(
        self, segment: int, edit_rate: tuple[int, int], track_id: int, name: str, physical: int
    ) -> int:
        descriptor = self.omf.new("TRKD")
        self.omf.position(descriptor, "OMFI:TRKD:Origin", 0)
        self.omf.uint32(descriptor, "OMFI:TRKD:TrackID", track_id)
        self.omf.string(descriptor, "OMFI:TRKD:TrackName", name)
        self.omf.uint32(descriptor, "OMFI:TRKD:PhysicalTrack", physical)
        slot = self.omf.new("MSLT")
        self.omf.ref(slot, "OMFI:MSLT:Segment", segment)
        self.omf.rational(slot, "OMFI:MSLT:EditRate", *edit_rate)
        self.omf.ref(slot, "OMFI:MSLT:TrackDesc", descriptor)
        return slot

    def mob(self, class_id: str, mob_id: MobID, name: str, slots: Sequence[int]) -> int:
        mob = self.omf.new(class_id)
        self.omf.uid(mob, "OMFI:MOBJ:MobID", mob_id)
        self.omf.string(mob, "OMFI:MOBJ:Name", name)
        self.omf.refs(mob, "OMFI:MOBJ:Slots", slots)
        self.omf.timestamp(mob, "OMFI:MOBJ:LastModified")
        self.omf.timestamp(mob, "OMFI:MOBJ:CreationTime")
        self.mobs.append(mob)
        return mob

    def stem(self, part: Part) -> MobID:
        """The channel's file SMOB (and its media data) and MMOB; the MMOB's MobID."""
        session, omf, track = self.session, self.omf, part.track
        rate = (session.sample_rate, 1)
        file_id = omf.mob_id()
        header = mono_wave_header(session.sample_rate, session.bit_depth, track.layout.frames)
        descriptor = omf.new("WAVD")
        omf.boolean(descriptor, "OMFI:MDFL:IsOMFI", session.media == "embedded")
        omf.rational(descriptor, "OMFI:MDFL:SampleRate", *rate)
        omf.length(descriptor, "OMFI:MDFL:Length", session.total_frames)
        # The Summary is the WAVE file without its samples: RIFF, fmt and the data header.
        omf.bento.put(descriptor, "OMFI:WAVD:Summary", "omfi:DataValue", header)
        if session.media == "linked":
            omf.refs(
                descriptor, "OMFI:MDES:Locator", self._locators(linked_ref(track, part.channel))
            )
        whole = self.component("SCLP", self.sound, session.total_frames)
        # An original source: a SourceClip with a zero SourceID ends the chain.
        omf.uid(whole, "OMFI:SCLP:SourceID", MobID(0, 0, 0))
        omf.uint32(whole, "OMFI:SCLP:SourceTrackID", 0)
        omf.position(whole, "OMFI:SCLP:StartTime", 0)
        file_slot = self.track(whole, rate, 1, part.name, 1)
        file_mob = self.mob("SMOB", file_id, part.media_name, [file_slot])
        omf.ref(file_mob, "OMFI:SMOB:MediaDescription", descriptor)
        if session.media == "embedded":
            data = omf.new("WAVE")
            omf.uid(data, "OMFI:MDAT:MobID", file_id)
            omf.bento.put_stream(
                data, "OMFI:WAVE:Data", "omfi:DataValue", _wave_file(part, header, session)
            )
            self.media.append(data)

        master_id = omf.mob_id()
        clip = self.source_clip(session.total_frames, file_id, 1, 0)
        self.mob("MMOB", master_id, part.name, [self.track(clip, rate, 1, part.name, 1)])
        return master_id

    def _locators(self, relative: str) -> list[int]:
        """The same relative path for DOS/Windows, Unix and Mac readers (and as text)."""
        omf = self.omf
        dos = omf.new("DOSL")
        omf.string(dos, "OMFI:DOSL:PathName", relative.replace("/", "\\"))
        unix = omf.new("UNXL")
        omf.string(unix, "OMFI:UNXL:PathName", relative)
        text = omf.new("TXTL")
        omf.string(text, "OMFI:TXTL:Name", relative)
        return [dos, unix, text]

    def composition(self, parts: list[Part], masters: list[MobID]) -> None:
        session, omf = self.session, self.omf
        rate = session.frame_rate
        tc_rate = (rate.rate.numerator, rate.rate.denominator)
        timecode = self.component("TCCP", self.timecode, session.length_in_timecode_frames)
        omf.boolean(timecode, "OMFI:TCCP:Flags", rate.drop_frame)
        self.omf.bento.put(
            timecode, "OMFI:TCCP:FPS", "omfi:UInt16", struct.pack("<H", rate.nominal_fps)
        )
        omf.position(timecode, "OMFI:TCCP:Start", session.start_frame)
        slots = [self.track(timecode, tc_rate, 1, "TC1", 1)]
        for number, (part, master) in enumerate(zip(parts, masters, strict=True), 1):
            track = part.track
            components = []
            if track.offset_frames:
                components.append(self.component("FILL", self.sound, track.offset_frames))
            clip = self.source_clip(track.audio_frames, master, 1, track.offset_frames)
            components.append(self.with_clip_gain(clip, track.audio_frames, track.clip_gain_db))
            sequence = self.component("SEQU", self.sound, track.offset_frames + track.audio_frames)
            omf.refs(sequence, "OMFI:SEQU:Components", components)
            slots.append(
                self.track(sequence, (session.sample_rate, 1), number + 1, part.name, number)
            )
        self.mob("CMOB", omf.mob_id(), session.name, slots)

    def with_clip_gain(self, clip: int, length: int, gain_db: float) -> int:
        """The clip itself at 0 dB; otherwise a nested scope whose first slot is the clip and
        whose last (its value) is a Mono Audio Gain effect on a scope reference to the clip,
        at a constant Rational amplitude."""
        if gain_db == 0:
            return clip
        omf = self.omf
        if self._gain is None:
            effect = omf.new("EDEF")
            omf.unique_name(effect, "OMFI:EDEF:EffectID", "omfi:effect:MonoAudioGain")
            omf.string(effect, "OMFI:EDEF:EffectName", "Mono Audio Gain")
            omf.string(effect, "OMFI:EDEF:EffectDescription", "Clip gain")
            omf.bento.put(effect, "OMFI:EDEF:Bypass", "omfi:ArgIDType", struct.pack("<i", -1))
            omf.boolean(effect, "OMFI:EDEF:IsTimeWarp", False)
            self._gain = (effect, self._data_definition("omfi:data:Rational"))
            self.definitions += list(self._gain)
        effect, rational = self._gain
        level = Fraction(10 ** (gain_db / 20)).limit_denominator(1 << 20)
        value = self.component("CVAL", rational, length)
        omf.bento.put(
            value,
            "OMFI:CVAL:Value",
            "omfi:DataValue",
            struct.pack("<ii", level.numerator, level.denominator),
        )
        # The input: the slot one before the effect's, in this scope.
        reference = self.component("SREF", self.sound, length)
        omf.uint32(reference, "OMFI:SREF:RelativeScope", 0)
        omf.uint32(reference, "OMFI:SREF:RelativeSlot", 1)
        slots = []
        for argument, segment in ((-1, reference), (1, value)):
            slot = omf.new("ESLT")
            omf.bento.put(slot, "OMFI:ESLT:ArgID", "omfi:ArgIDType", struct.pack("<i", argument))
            omf.ref(slot, "OMFI:ESLT:ArgValue", segment)
            slots.append(slot)
        invocation = self.component("EFFE", self.sound, length)
        omf.ref(invocation, "OMFI:EFFE:EffectKind", effect)
        omf.refs(invocation, "OMFI:EFFE:EffectSlots", slots)
        scope = self.component("NEST", self.sound, length)
        omf.refs(scope, "OMFI:NEST:Slots", [clip, invocation])
        return scope

    def header(self) -> None:
        omf = self.omf
        identification = omf.new("IDNT")
        version = product_version(__version__)
        omf.string(identification, "OMFI:IDNT:CompanyName", COMPANY_NAME)
        omf.string(identification, "OMFI:IDNT:ProductName", PRODUCT_NAME)
        omf.bento.put(identification, "OMFI:IDNT:ProductVersion", "omfi:ProductVersion", version)
        omf.string(identification, "OMFI:IDNT:ProductVersionString", __version__)
        omf.bento.put(
            identification, "OMFI:IDNT:ProductID", "omfi:Int32", struct.pack("<i", PRODUCT_ID)
        )
        omf.timestamp(identification, "OMFI:IDNT:Date")
        # This module is the toolkit that wrote the file: the same version.
        omf.bento.put(identification, "OMFI:IDNT:ToolkitVersion", "omfi:ProductVersion", version)
        omf.string(identification, "OMFI:IDNT:Platform", platform.system() or "Unspecified")
        head = omf.new("HEAD")
        omf.bento.put(head, "OMFI:HEAD:ByteOrder", "omfi:Int16", struct.pack("<h", 0x4949))
        omf.timestamp(head, "OMFI:HEAD:LastModified")
        omf.bento.put(head, "OMFI:HEAD:Version", "omfi:VersionType", bytes([2, 0]))
        omf.refs(head, "OMFI:HEAD:DefinitionObjects", self.definitions)
        omf.refs(head, "OMFI:HEAD:IdentificationList", [identification])
        omf.refs(head, "OMFI:HEAD:Mobs", self.mobs)
        omf.refs(head, "OMFI:HEAD:MediaData", self.media)


def product_version(version: str) -> bytes:
    """An `omfi:ProductVersion` (major, minor, tertiary, patchLevel, type: UInt16 each) of a
    PEP 440 version: "1.2.3" is 1.2.3.0 released; a dev or local build is a private build, a
    pre-release (a, b, rc) a beta, a post-release patched."""
    found = re.match(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(.*)$", version.strip())
    if found is None:
        return struct.pack("<5H", 0, 0, 0, 0, VERSION_UNKNOWN)
    numbers = [min(int(part or 0), 0xFFFF) for part in found.groups()[:4]]
    rest = found.group(5).lower()
    if not rest:
        kind = VERSION_RELEASED
    elif "dev" in rest or "+" in rest:
        kind = VERSION_PRIVATE_BUILD
    elif "post" in rest:
        kind = VERSION_PATCHED
    else:
        kind = VERSION_BETA
    return struct.pack("<5H", *numbers, kind)


def _wave_file(part: Part, header: bytes, session: Session) -> Iterator[bytes]:
    """A plain mono WAVE file of the part's samples: `header`, then the channel's samples (a
    mono stem's data chunk as it is), block by block."""
    yield header
    track = part.track
    if track.channels == 1:
        yield from _data_chunk(track)
    else:
        yield from channel_bytes(
            track.stem_path, track.layout, track.channels, session.bit_depth // 8, part.channel
        )
    if track.layout.frames * session.bit_depth // 8 % 2:
        yield b"\0"


def _data_chunk(track: SessionTrack) -> Iterator[bytes]:
    remaining = track.layout.data_bytes
    with track.stem_path.open("rb") as stem:
        stem.seek(track.layout.data_offset)
        while remaining > 0:
            chunk = stem.read(min(remaining, _COPY_BLOCK))
            if not chunk:
                raise OSError(f"{track.stem_path} is shorter than its header says")
            remaining -= len(chunk)
            yield chunk


def check_size(total_frames: int, channels: Sequence[int], bit_depth: int, media: str) -> None:
    """Refuse an OMF past 2 GiB (media plus generous room for the metadata)."""
    size = 64 * 1024 + 8 * 1024 * len(channels)
    if media == "embedded":
        size += sum(total_frames * count * bit_depth // 8 + 64 for count in channels)
    if size > MAX_OMF_BYTES:
        raise OmfTooLarge(
            "format: an OMF file with this much embedded audio would pass 2 GiB, which Pro "
            "Tools and most OMF readers cannot open; use format `aaf`, or `media: linked`.",
            param="format",
        )


def write_omf(session: Session, out: BinaryIO) -> None:
    """Write the OMF file to `out`, front to back (it never seeks, so `out` may be a ZIP
    entry)."""
    check_size(
        session.total_frames,
        [track.channels for track in session.tracks],
        session.bit_depth,
        session.media,
    )
    bento = BentoWriter(out)
    writer = _SessionWriter(_Omf(bento), session)
    channels = parts(session)
    masters = [writer.stem(part) for part in channels]
    writer.composition(channels, masters)
    writer.header()
    bento.close()
