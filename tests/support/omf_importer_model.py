"""A model of an OMF importer written against the files Avid and Pro Tools write: Ardour's
`tools/omf` (a port of the REAPER OMF plug-in), its rules restated here from reading how it
behaves, in this project's own code. Nothing in it follows the Bento specification where the
importer does not: that is the point. What it does, step by step:

1. The TOC, block by block: codes 1/2/3 set the current object, property and type (and end a
   skip); 4 is passed over; an offset value (5-8) of type 21 names an object (global property
   and type names), of type 32 (`ObjRefData`) gives the object at its first 4 bytes (and the
   one at bytes 8-11 if it is 16 bytes long), of any other type is kept as offset and length;
   an immediate (9-14) is kept as the 32-bit number of its 4 bytes. Code 15 (reference list
   ID) is kept as the value itself, and every value after it is skipped until the next code
   1/2/3. Any other code ends the block.
2. Properties and types are named from those names (and the built-in ones).
3. Each `omfi:ObjRefArray` held at an offset is taken as a UInt16 count and 4-byte object IDs
   (2 + 4 * count bytes from its offset, whatever its length): a new object, numbered on from
   the last object of the TOC, gets one "Object" value per ID, and the array's value becomes
   that object. If there was any, references are object IDs ("Avid" files); only otherwise
   is an `omfi:ObjRef` replaced by the first "Object" of the object it names.
4. UIDs become their three 32-bit numbers; the media: each `omfi:DataValue` of the objects
   in the first `OMFI:HEAD:MediaData` becomes a file named after the mob whose MobID its
   `OMFI:MDAT:MobID` is; class IDs become their four letters.
5. The session: each slot of the first CMOB whose segment is a SEQU is a track; its edit rate
   (numerator first) gives the session's sample rate (the first track's) and the length of an
   edit unit; FILLs advance the position; an SCLP is a region of the file its master mob's
   first slot points at, by name, at the position, with its length and start; other classes
   are passed over (TRAN steps back).
6. The session file it writes (`omftool.cc`): a Source per media file, named after the file
   without the part from its last dot (`basename_nosuffix`), which is the name Ardour opens
   the file by; a region names its source once per channel of that file (`source-0`,
   `source-1`…, `set_region_sources`), with no channel number, so Ardour reads channel 0 of
   it for each.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

BENTO_MAGIC = b"\xa4CM\xa5Hdr\xd7"
_BUILT_IN_NAMES = {
    **{key: f"TOC property {key}" for key in range(1, 7)},
    **{key: f"(Type {key})" for key in range(7, 43)},
    19: "TOC Value",
    21: "String",
    23: "Type Name",
    24: "Property Name",
    31: "Referenced Object",
    32: "Object",
}


class ImportFailed(Exception):
    pass


@dataclass
class Row:
    """One line of the importer's table: object, property, type, value, offset, length."""

    obj: int
    prop: Any
    type: Any
    value: Any
    offset: int = -1
    length: int = -1


@dataclass
class Region:
    source: str  # the media file's name, as extracted
    position: int  # samples
    length: int
    start: int
    channels: int

    @property
    def channel_sources(self) -> list[str]:
        """The session's `source-0`, `source-1`…: the same source for every channel (Ardour
        then plays its channel 0 in each)."""
        return [self.source] * self.channels


@dataclass
class ImportedTrack:
    name: str
    regions: list[Region] = field(default_factory=list)

    @property
    def channels(self) -> int:
        return max((region.channels for region in self.regions), default=0)


@dataclass
class Source:
    channels: int
    sample_rate: int
    frames: int


@dataclass
class ImportedSession:
    sample_rate: int
    tracks: list[ImportedTrack]
    mobs: int  # objects the first HEAD:Mobs resolves to
    media_files: dict[str, bytes]  # extracted, by name
    sources: dict[str, Source]  # the media files as a sound file library reads them
    source_names: dict[str, str]  # the session's Source name of each media file


def _c_string(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("latin-1")


def _float32(value: float) -> float:
    """The importer rounds with llrintf: the double goes through a float first."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


class AvidStyleImporter:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.rows: list[Row] = []
        self._names: dict[int, str] = {}
        self._last_object = 0
        self._parse_toc()
        self._name_properties_and_types()
        self.resolved_as_avid = self._resolve_arrays()
        if not self.resolved_as_avid:
            self._resolve_references()
        self._replace(
            "omfi:UID",
            lambda row: struct.unpack_from("<iii", self.data, row.offset),
        )
        self.media_files: dict[str, bytes] = {}
        self.sources: dict[str, Source] = {}
        self._extract_media()
        self._replace(
            "omfi:ClassID",
            lambda row: _c_string(struct.pack("<I", row.value & 0xFFFFFFFF)[:4]),
        )

    # The table's queries

    def _u32(self, at: int) -> int:
        return int(struct.unpack_from("<I", self.data, at)[0])

    def values(self, obj: Any, prop: str | None = None) -> list[Any]:
        return [r.value for r in self.rows if r.obj == obj and (prop is None or r.prop == prop)]

    def first(self, obj: Any, prop: str) -> Row | None:
        return next((r for r in self.rows if r.obj == obj and r.prop == prop), None)

    def first_value(self, obj: Any, prop: str) -> Any:
        row = self.first(obj, prop)
        return None if row is None else row.value

    def object_with(self, prop: str, value: Any) -> int | None:
        return next((r.obj for r in self.rows if r.prop == prop and r.value == value), None)

    def read_name(self, row: Row | None) -> str | None:
        """A name held at an offset; None if the offset or length is not positive."""
        if row is None or not 0 < row.offset < 1 << 31 or not 0 < row.length < 1 << 31:
            return None
        return _c_string(self.data[row.offset : row.offset + row.length])

    # Loading

    def _parse_toc(self) -> None:
        data = self.data
        if data[-24:-16] != BENTO_MAGIC:
            raise ImportFailed("No valid OMF file.")
        if struct.unpack_from("<H", data, len(data) - 12)[0] != 2:
            raise ImportFailed("not a little-endian OMF 2 file (not modelled)")
        block_size = struct.unpack_from("<H", data, len(data) - 14)[0] * 1024
        toc_start, toc_size = struct.unpack_from("<II", data, len(data) - 8)
        obj = prop = type_ = 0
        skip = False
        for block in range(toc_size // block_size + 1):
            at = toc_start + block * block_size
            while at < toc_start + (block + 1) * block_size and at <= toc_start + toc_size:
                code = data[at]
                if code == 1:
                    obj, prop, type_ = struct.unpack_from("<III", data, at + 1)
                    skip, at = False, at + 12
                elif code == 2:
                    prop, type_ = struct.unpack_from("<II", data, at + 1)
                    skip, at = False, at + 8
                elif code == 3:
                    type_ = self._u32(at + 1)
                    skip, at = False, at + 4
                elif code == 4:
                    at += 4
                elif code in (5, 6, 7, 8):
                    if code in (5, 6):
                        offset, length = struct.unpack_from("<II", data, at + 1)
                    else:
                        offset, length = struct.unpack_from("<QQ", data, at + 1)
                    if not skip:
                        self._offset_value(obj, prop, type_, offset, length)
                    at += 8 if code in (5, 6) else 16
                elif code == 9:
                    if not skip:
                        self.rows.append(Row(obj, prop, type_, "true"))
                elif 10 <= code <= 14:
                    if not skip:
                        self.rows.append(Row(obj, prop, type_, self._u32(at + 1)))
                    at += 4
                elif code == 15:
                    self.rows.append(Row(obj, prop, type_, self._u32(at + 1)))
                    skip, at = True, at + 4
                else:
                    break
                at += 1
        self._last_object = obj

    def _offset_value(self, obj: int, prop: int, type_: int, offset: int, length: int) -> None:
        if type_ == 21:
            self._names[obj] = _c_string(self.data[offset : offset + length])
        elif type_ == 32:
            self.rows.append(Row(obj, prop, type_, self._u32(offset)))
            if length == 16:
                self.rows.append(Row(obj, prop, type_, self._u32(offset + 8)))
        else:
            self.rows.append(Row(obj, prop, type_, "", offset, length))

    def _name_properties_and_types(self) -> None:
        names = {**_BUILT_IN_NAMES, **self._names}
        for row in self.rows:
            row.prop, row.type = names.get(row.prop), names.get(row.type)

    def _resolve_arrays(self) -> bool:
        arrays = [r for r in self.rows if _is(r.type, "omfi:ObjRefArray") and r.value == ""]
        self.rows = [
            r for r in self.rows if not (_is(r.type, "omfi:ObjRefArray") and r.value == "")
        ]
        for array in arrays:
            count = struct.unpack_from("<H", self.data, array.offset)[0]
            self._last_object += 1
            for at in range(2, 4 * count + 2, 4):
                target = self._u32(array.offset + at)
                self.rows.append(Row(self._last_object, "Referenced Object", "Object", target))
            self.rows.append(Row(array.obj, array.prop, array.type, self._last_object))
        return bool(arrays)

    def _resolve_references(self) -> None:
        references = [r for r in self.rows if _is(r.type, "omfi:ObjRef")]
        first_object: dict[int, Any] = {}
        for row in self.rows:
            if row.type == "Object":
                first_object.setdefault(row.obj, row.value)
        for ref in references:
            self.rows = [r for r in self.rows if not (r.obj == ref.obj and r.prop == ref.prop)]
            self.rows.append(Row(ref.obj, ref.prop, "omfi:ObjRef", first_object.get(ref.value)))

    def _replace(self, type_name: str, value_of: Any) -> None:
        chosen = [r for r in self.rows if _is(r.type, type_name)]
        self.rows = [r for r in self.rows if not _is(r.type, type_name)]
        self.rows += [Row(r.obj, r.prop, r.type, value_of(r)) for r in chosen]

    def _extract_media(self) -> None:
        media_data = next((r.value for r in self.rows if r.prop == "OMFI:HEAD:MediaData"), None)
        holders = set(self.values(media_data))
        for row in [r for r in self.rows if r.obj in holders and r.type == "omfi:DataValue"]:
            mob = self.object_with("OMFI:MOBJ:MobID", self.first_value(row.obj, "OMFI:MDAT:MobID"))
            name_row = self.first(mob, "OMFI:MOBJ:Name")
            if name_row is None:
                name = str(row.obj)
            else:
                found = self.read_name(name_row)
                if found is None:
                    continue
                name = found
            content = self.data[row.offset : row.offset + row.length]
            self.media_files[name] = content
            self.sources.setdefault(name, _sound_file_info(content))

    # The session

    def session(self) -> ImportedSession:
        composition = self.object_with("OMFI:OOBJ:ObjClass", "CMOB")
        slot_lists = self.values(composition, "OMFI:MOBJ:Slots")
        slots = [r.value for r in self.rows if r.obj in slot_lists]
        sample_rate, edit_unit = 0, 0.0
        tracks: list[ImportedTrack] = []
        for slot in slots:
            segment = self.first_value(slot, "OMFI:MSLT:Segment")
            if "SEQU" not in self.values(segment):
                continue
            description = self.first_value(slot, "OMFI:MSLT:TrackDesc")
            name = self.read_name(self.first(description, "OMFI:TRKD:TrackName"))
            track = ImportedTrack(name or f"Track {len(tracks) + 1}")
            rate = self.first(slot, "OMFI:MSLT:EditRate")
            if rate is not None:
                denominator, numerator = struct.unpack_from("<ii", self.data, rate.offset)
                edit_unit = edit_unit or numerator / denominator
                sample_rate = sample_rate or denominator
            else:
                edit_unit, sample_rate = 0.04, sample_rate or 44_100
            components = self.first_value(segment, "OMFI:SEQU:Components")
            position = 0.0
            for item in self.values(components):
                frames = self.first_value(item, "OMFI:CPNT:Length")
                kind = self.first_value(item, "OMFI:OOBJ:ObjClass")
                if frames is None or kind is None:
                    continue
                length = _signed(frames) * edit_unit
                if kind == "TRAN":
                    position -= length
                elif kind == "FILL":
                    position += length
                elif kind in ("NEST", "SCLP"):
                    # A nested scope: the clip is the first of its slots with a SourceID (an
                    # effect in a later slot is read for its level only, and not applied).
                    clip = item if kind == "SCLP" else self._scope_clip(item)
                    source = self._clip_source(clip)
                    start = _signed(self.first_value(clip, "OMFI:SCLP:StartTime") or 0)
                    track.regions.append(
                        Region(
                            source,
                            round(_float32(position * sample_rate)),
                            round(_float32(length * sample_rate)),
                            round(_float32(start * edit_unit * sample_rate)),
                            self.sources[source].channels,
                        )
                    )
                    position += length
            tracks.append(track)
        mobs = next((r.value for r in self.rows if r.prop == "OMFI:HEAD:Mobs"), None)
        return ImportedSession(
            sample_rate,
            tracks,
            len(self.values(mobs)),
            self.media_files,
            self.sources,
            {name: basename_nosuffix(name) for name in self.media_files},
        )

    def _scope_clip(self, scope: int) -> int:
        slots = self.first_value(scope, "OMFI:NEST:Slots")
        for slot in self.values(slots):
            if self.first_value(slot, "OMFI:SCLP:SourceID") is not None:
                return int(slot)
        raise ImportFailed("no fallback file")

    def _clip_source(self, clip: int) -> str:
        """The name of the file mob behind the clip's master mob (its first slot)."""
        master = self.object_with("OMFI:MOBJ:MobID", self.first_value(clip, "OMFI:SCLP:SourceID"))
        master_slots = self.first_value(master, "OMFI:MOBJ:Slots")
        first_slot = next(iter(self.values(master_slots)), None)
        segment = self.first_value(first_slot, "OMFI:MSLT:Segment")
        file_id = self.first_value(segment, "OMFI:SCLP:SourceID")
        file_mob = self.object_with("OMFI:MOBJ:MobID", file_id)
        name = self.read_name(self.first(file_mob, "OMFI:MOBJ:Name"))
        if name is None:
            media = self.object_with("OMFI:MDAT:MobID", file_id)
            name = str(media)
        if name not in self.sources:
            raise ImportFailed(f"Reference to unknown source [{name}]")
        return name


def basename_nosuffix(name: str) -> str:
    """PBD's: the base name up to its last dot (all of it without one)."""
    base = name.rsplit("/", 1)[-1]
    return base[: base.rfind(".")] if "." in base else base


def _is(type_name: Any, wanted: str) -> bool:
    """SQL's LIKE without wildcards: equal, ignoring case."""
    return isinstance(type_name, str) and type_name.lower() == wanted.lower()


def _signed(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value


def _sound_file_info(wave: bytes) -> Source:
    """What a sound file library reports of a WAVE file: channels, rate, frames."""
    if wave[:4] != b"RIFF" or wave[8:12] != b"WAVE":
        raise ImportFailed("Cannot open source file")
    at, channels, rate, block_align, frames = 12, 0, 0, 1, 0
    while at + 8 <= len(wave):
        chunk, size = wave[at : at + 4], struct.unpack_from("<I", wave, at + 4)[0]
        if chunk == b"fmt ":
            channels, rate, _, block_align = struct.unpack_from("<HIIH", wave, at + 10)
        elif chunk == b"data":
            frames = min(size, len(wave) - at - 8) // block_align
        at += 8 + size + size % 2
    return Source(channels, rate, frames)
