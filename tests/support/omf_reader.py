"""An OMF 2.0 reader for the tests, written from the Bento Specification 1.0d5 and the OMF
Interchange Specification 2.1, not from the writer: it takes either byte order, parses every
TOC code (continued values, 8-byte offsets, end-of-buffer blocks), resolves object references
both ways a file may hold them: through the value's reference list when the TOC gives it one
(Bento 1.0d5: the value holds keys, the list pairs each key with an object ID; a key is never
assumed to be an ID), otherwise as the object ID itself (the layout of Avid's and Pro Tools'
files); and reports anything that breaks the container's rules in `problems` instead of
trusting the file.
"""

from __future__ import annotations

import builtins
import itertools
import struct
from dataclasses import dataclass, field
from pathlib import Path

LABEL_SIZE = 24
BENTO_MAGIC = b"\xa4CM\xa5Hdr\xd7"

# Bento standard IDs (Appendix D of the Bento specification).
STD = {
    "TOC": 1,
    "Seed": 2,
    "MinSeed": 3,
    "Object": 4,
    "Container": 5,
    "TOCType": 19,
    "ASCII7": 21,
    "ASCII8": 22,
    "TypeName": 23,
    "PropName": 24,
    "ObjReferences": 31,
    "ObjRefData": 32,
}
LAST_STANDARD_ID = 99

# Bytes that follow each TOC code, and what the code means.
_PAYLOAD = {
    1: 12, 2: 8, 3: 4, 4: 4, 5: 8, 6: 8, 7: 12, 8: 12, 9: 0, 10: 4, 11: 4, 12: 4, 13: 4,
    14: 4, 15: 4, 16: 4, 17: 4, 18: 8, 19: 8, 20: 8, 21: 12, 22: 12, 23: 12, 24: 0, 25: 16,
    26: 16,
}  # fmt: skip
_CONTINUED = {6, 8, 14, 26}

# OMF 2.1 data types and the size of their values (None: variable, checked elsewhere).
OMF_TYPE_SIZES: dict[str, int | None] = {
    "omfi:ClassID": 4,
    "omfi:UID": 12,
    "omfi:Rational": 8,
    "omfi:Int32": 4,
    "omfi:UInt32": 4,
    "omfi:Length32": 4,
    "omfi:Position32": 4,
    "omfi:Int16": 2,
    "omfi:UInt16": 2,
    "omfi:Boolean": 1,
    "omfi:TimeStamp": 5,
    "omfi:VersionType": 2,
    "omfi:ArgIDType": 4,
    "omfi:ProductVersion": 10,  # major, minor, tertiary, patchLevel, type: UInt16 each
    "omfi:ObjRef": 4,
    "omfi:String": None,
    "omfi:UniqueName": None,
    "omfi:ObjRefArray": None,
    "omfi:DataValue": None,
}

# Class hierarchy of the OMF 2.1 classes the tests meet (child -> parent).
OMF_PARENTS = {
    "HEAD": "OOBJ",
    "IDNT": "OOBJ",
    "DDEF": "OOBJ",
    "MOBJ": "OOBJ",
    "CMOB": "MOBJ",
    "MMOB": "MOBJ",
    "SMOB": "MOBJ",
    "MSLT": "OOBJ",
    "TRKD": "OOBJ",
    "CPNT": "OOBJ",
    "SEGM": "CPNT",
    "SEQU": "SEGM",
    "FILL": "SEGM",
    "SCLP": "SEGM",
    "TCCP": "SEGM",
    "EFFE": "SEGM",
    "NEST": "SEGM",
    "SREF": "SEGM",
    "CVAL": "SEGM",
    "ESLT": "OOBJ",
    "EDEF": "OOBJ",
    "MDES": "OOBJ",
    "MDFL": "MDES",
    "WAVD": "MDFL",
    "AIFD": "MDFL",
    "LOCR": "OOBJ",
    "DOSL": "LOCR",
    "UNXL": "LOCR",
    "MACL": "LOCR",
    "TXTL": "LOCR",
    "MDAT": "OOBJ",
    "WAVE": "MDAT",
    "AIFC": "MDAT",
}


@dataclass
class Entry:
    """One value of a TOC entry (a continued value gathers its pieces)."""

    obj: int
    prop: int
    type: int
    pieces: list[tuple[int, int]] = field(default_factory=list)  # (offset, length)
    immediate: bytes = b""
    reference_list: int | None = None

    @property
    def is_immediate(self) -> bool:
        return not self.pieces


class Bento:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.problems: list[str] = []
        self._read_label()
        self.entries: list[Entry] = self._read_toc()
        self.objects: dict[int, list[Entry]] = {}
        for entry in self.entries:
            self.objects.setdefault(entry.obj, []).append(entry)
        self.property_names = self._names(STD["PropName"])
        self.type_names = self._names(STD["TypeName"])

    # Label and TOC

    def _read_label(self) -> None:
        label = self.data[-LABEL_SIZE:]
        if len(self.data) < LABEL_SIZE or label[:8] != BENTO_MAGIC:
            raise ValueError("no Bento label at the end of the file")
        # The major version's bytes tell the byte order (2 is 1.0d5).
        major_le = struct.unpack_from("<H", label, 12)[0]
        self.order = "<" if major_le in (1, 2) else ">"
        flags, block_kib, major, minor, toc_offset, toc_size = struct.unpack_from(
            self.order + "HHHHII", label, 8
        )
        self.flags, self.block_kib, self.major, self.minor = flags, block_kib, major, minor
        self.toc_offset, self.toc_size = toc_offset, toc_size
        if major != 2:
            self.problems.append(f"label: major version {major}, not 2 (Bento 1.0d5)")
        if toc_offset + toc_size != len(self.data) - LABEL_SIZE:
            self.problems.append("label: the TOC does not end where the label starts")

    def _u32(self, raw: bytes, at: int = 0) -> int:
        return int(struct.unpack_from(self.order + "I", raw, at)[0])

    def _read_toc(self) -> list[Entry]:
        toc = self.data[self.toc_offset : self.toc_offset + self.toc_size]
        block = max(self.block_kib, 1) * 1024
        entries: list[Entry] = []
        obj = prop = type_ = 0
        pending_list: int | None = None
        continuing: Entry | None = None
        at = 0
        while at < len(toc):
            code = toc[at]
            if code == 0xFF:  # filler
                at += 1
                continue
            if code == 24:  # end of buffer: the rest of this block is unused
                at = (at // block + 1) * block
                continue
            size = _PAYLOAD.get(code)
            if size is None:
                raise ValueError(f"TOC: unknown code {code} at byte {at}")
            if at // block != (at + size) // block and (at + size) % block:
                self.problems.append(f"TOC: element at byte {at} straddles a block boundary")
            raw = toc[at + 1 : at + 1 + size]
            at += 1 + size
            if code == 1:
                obj, prop, type_ = (self._u32(raw, i) for i in (0, 4, 8))
            elif code == 2:
                prop, type_ = self._u32(raw), self._u32(raw, 4)
            elif code == 3:
                type_ = self._u32(raw)
            elif code == 4:
                pass  # generation: unused by OMF
            elif code == 15:
                pending_list = self._u32(raw)
            else:
                if continuing is not None and (continuing.obj, continuing.prop) == (obj, prop):
                    entry = continuing
                else:
                    entry = Entry(obj, prop, type_, reference_list=pending_list)
                    entries.append(entry)
                pending_list = None
                if 9 <= code <= 14:
                    length = 4 if code == 14 else code - 9
                    entry.immediate += raw[:length]
                elif code in (5, 6):
                    entry.pieces.append((self._u32(raw), self._u32(raw, 4)))
                elif code in (7, 8):
                    offset = struct.unpack_from(self.order + "Q", raw)[0]
                    entry.pieces.append((offset, self._u32(raw, 8)))
                elif code in (25, 26):
                    entry.pieces.append(struct.unpack_from(self.order + "QQ", raw))
                else:
                    raise ValueError(f"TOC: reserved code {code}")
                continuing = entry if code in _CONTINUED else None
        return entries

    def value(self, entry: Entry) -> bytes:
        if entry.is_immediate:
            return entry.immediate
        return b"".join(self.data[offset : offset + length] for offset, length in entry.pieces)

    def _names(self, property_id: int) -> dict[int, str]:
        names = {}
        for entry in self.entries:
            if entry.prop == property_id:
                raw = self.value(entry)
                if entry.type != STD["ASCII7"] or not raw.endswith(b"\0"):
                    self.problems.append(f"object {entry.obj}: its global name is not ASCII+NUL")
                names[entry.obj] = raw.rstrip(b"\0").decode("ascii")
        return names

    def resolve(self, entry: Entry, key: int) -> int | None:
        """The object a reference value's key stands for: through the entry's reference list
        if it has one (None if the list lacks the key), else the key is the object ID."""
        if entry.reference_list is None:
            return key
        return self.references(entry).get(key)

    def references(self, entry: Entry) -> dict[int, int]:
        """key -> object ID, from the entry's reference list ({} without one)."""
        if entry.reference_list is None:
            return {}
        recorded = [
            e for e in self.objects.get(entry.reference_list, []) if e.prop == STD["ObjReferences"]
        ]
        if len(recorded) != 1 or recorded[0].type != STD["ObjRefData"]:
            self.problems.append(f"reference list {entry.reference_list} is malformed")
            return {}
        raw = self.value(recorded[0])
        if len(raw) % 8:
            self.problems.append(f"reference list {entry.reference_list}: odd size")
        pairs = [
            struct.unpack_from(self.order + "II", raw, i) for i in range(0, len(raw) // 8 * 8, 8)
        ]
        return dict(pairs)

    # Validation of the container

    def validate(self) -> list[str]:
        problems = list(self.problems)
        toc = {e.prop: e for e in self.objects.get(STD["TOC"], [])}
        for name in ("Seed", "MinSeed", "Object", "Container"):
            if STD[name] not in toc:
                problems.append(f"TOC object lacks its {name} property")
        if STD["Object"] in toc and toc[STD["Object"]].pieces != [(self.toc_offset, self.toc_size)]:
            problems.append("TOC object: its own offset and size differ from the label's")
        if STD["Container"] in toc and toc[STD["Container"]].pieces != [(0, len(self.data))]:
            problems.append("TOC object: the container is not the whole file")
        seed = self._u32(self.value(toc[STD["Seed"]])) if STD["Seed"] in toc else 0
        spans = []
        for entry in self.entries:
            for used in (entry.obj, entry.prop, entry.type, entry.reference_list or 0):
                if used >= seed:
                    problems.append(f"ID {used} is not below the seed {seed}")
            for kind, names in (("property", self.property_names), ("type", self.type_names)):
                used = entry.prop if kind == "property" else entry.type
                if used > LAST_STANDARD_ID and used not in names:
                    problems.append(f"object {entry.obj}: {kind} {used} has no global name")
            if entry.obj != STD["TOC"]:
                for offset, length in entry.pieces:
                    if offset + length > self.toc_offset:
                        problems.append(f"object {entry.obj}: a value runs into the TOC")
                    spans.append((offset, length))
            if entry.is_immediate and len(entry.immediate) > 4:
                problems.append(f"object {entry.obj}: an immediate value over 4 bytes")
        spans.sort()
        for (a_offset, a_length), (b_offset, _) in itertools.pairwise(spans):
            if a_offset + a_length > b_offset:
                problems.append(f"values overlap at byte {b_offset}")
        return problems


@dataclass
class OmfObject:
    file: OmfFile
    id: int

    @property
    def class_id(self) -> str:
        return self.raw("OMFI:OOBJ:ObjClass").decode("ascii")

    def entry(self, prop: str) -> Entry | None:
        for entry in self.file.bento.objects[self.id]:
            if self.file.bento.property_names.get(entry.prop) == prop:
                return entry
        return None

    def has(self, prop: str) -> bool:
        return self.entry(prop) is not None

    def type_of(self, prop: str) -> str:
        entry = self.entry(prop)
        assert entry is not None, f"{self.id} has no {prop}"
        return self.file.bento.type_names[entry.type]

    def raw(self, prop: str) -> bytes:
        entry = self.entry(prop)
        assert entry is not None, f"object {self.id} has no {prop}"
        return self.file.bento.value(entry)

    def int(self, prop: str) -> int:
        raw = self.raw(prop)
        signed = self.type_of(prop) in (
            "omfi:Int32",
            "omfi:ArgIDType",
            "omfi:Length32",
            "omfi:Position32",
            "omfi:Int16",
        )
        code = {1: "B", 2: "H", 4: "I"}[len(raw)]
        return int(struct.unpack(self.file.order + (code.lower() if signed else code), raw)[0])

    def string(self, prop: str) -> str:
        return self.raw(prop).rstrip(b"\0").decode("utf-8")

    def rational(self, prop: str) -> tuple[builtins.int, builtins.int]:
        numerator, denominator = struct.unpack(self.file.order + "ii", self.raw(prop))
        return numerator, denominator

    def uid(self, prop: str) -> tuple[builtins.int, builtins.int, builtins.int]:
        first, second, third = struct.unpack(self.file.order + "iII", self.raw(prop))
        return first, second, third

    def ref(self, prop: str) -> OmfObject:
        entry = self.entry(prop)
        assert entry is not None
        assert self.type_of(prop) == "omfi:ObjRef"
        key = struct.unpack(self.file.bento.order + "I", self.file.bento.value(entry))[0]
        target = self.file.bento.resolve(entry, key)
        assert target is not None, f"{self.id} {prop}: key {key} is not in its reference list"
        return OmfObject(self.file, target)

    def refs(self, prop: str) -> list[OmfObject]:
        entry = self.entry(prop)
        if entry is None:
            return []
        assert self.type_of(prop) == "omfi:ObjRefArray"
        raw = self.file.bento.value(entry)
        (count,) = struct.unpack_from(self.file.bento.order + "H", raw)
        keys = struct.unpack_from(self.file.bento.order + f"{count}I", raw, 2)
        targets = [self.file.bento.resolve(entry, key) for key in keys]
        assert None not in targets, f"{self.id} {prop}: a key is not in its reference list"
        return [OmfObject(self.file, target) for target in targets if target is not None]


class OmfFile:
    def __init__(self, path: Path) -> None:
        self.bento = Bento(path.read_bytes())
        heads = [o for o in self.all_objects() if o.class_id == "HEAD"]
        assert len(heads) == 1, f"{len(heads)} HEAD objects"
        self.head = heads[0]
        byte_order = self.head.raw("OMFI:HEAD:ByteOrder")
        self.order = "<" if byte_order == b"II" else ">"

    def all_objects(self) -> list[OmfObject]:
        class_prop = [i for i, n in self.bento.property_names.items() if n == "OMFI:OOBJ:ObjClass"]
        return [
            OmfObject(self, obj)
            for obj, entries in self.bento.objects.items()
            if any(e.prop in class_prop for e in entries)
        ]

    def validate(self) -> list[str]:
        """Container rules, then OMF's: every object has a class, every property belongs to
        its class or an ancestor, every value has its type's size, every reference
        resolves to an object."""
        problems = self.bento.validate()
        if self.head.raw("OMFI:HEAD:Version") != bytes([2, 0]):
            problems.append("HEAD: version is not 2.0")
        for obj in self.all_objects():
            lineage = {obj.class_id}
            parent = OMF_PARENTS.get(obj.class_id)
            while parent:
                lineage.add(parent)
                parent = OMF_PARENTS.get(parent)
            if obj.class_id not in OMF_PARENTS:
                problems.append(f"object {obj.id}: unknown class {obj.class_id}")
            for entry in self.bento.objects[obj.id]:
                name = self.bento.property_names.get(entry.prop, f"#{entry.prop}")
                type_name = self.bento.type_names.get(entry.type, f"#{entry.type}")
                parts = name.split(":")
                if len(parts) != 3 or parts[0] != "OMFI" or parts[1] not in lineage:
                    problems.append(f"{obj.class_id} {obj.id}: {name} is not a property of it")
                problems += self._check_value(obj, name, type_name, entry)
        return problems

    def _check_value(self, obj: OmfObject, name: str, type_name: str, entry: Entry) -> list[str]:
        raw = self.bento.value(entry)
        where = f"{obj.class_id} {obj.id} {name}"
        if type_name not in OMF_TYPE_SIZES:
            return [f"{where}: unknown type {type_name}"]
        size = OMF_TYPE_SIZES[type_name]
        if size is not None and len(raw) != size:
            return [f"{where}: {type_name} of {len(raw)} bytes"]
        if type_name in ("omfi:String", "omfi:UniqueName") and not raw.endswith(b"\0"):
            return [f"{where}: string without its NUL"]
        if type_name == "omfi:Boolean" and raw not in (b"\0", b"\1"):
            return [f"{where}: Boolean {raw!r}"]
        if type_name in ("omfi:ObjRef", "omfi:ObjRefArray"):
            if type_name == "omfi:ObjRef":
                keys: tuple[int, ...] = struct.unpack(self.bento.order + "I", raw)
            else:
                (count,) = struct.unpack_from(self.bento.order + "H", raw)
                if len(raw) != 2 + 4 * count:
                    return [f"{where}: ObjRefArray of {count} in {len(raw)} bytes"]
                keys = struct.unpack_from(self.bento.order + f"{count}I", raw, 2)
            for key in keys:
                target = self.bento.resolve(entry, key)
                if target is None:
                    return [f"{where}: key {key} is not in its reference list"]
                if target not in self.bento.objects:
                    return [f"{where}: refers to missing object {target}"]
        return []


# The session as a DAW would read it


@dataclass
class Media:
    sample_rate: tuple[int, int]
    length: int
    is_omfi: bool
    channels: int
    bits: int
    samples: bytes | None  # the embedded WAVE's data chunk
    locators: list[str]


@dataclass
class Track:
    name: str
    physical_track: int
    track_id: int
    edit_rate: tuple[int, int]
    components: list[tuple[str, int]]  # (class, length) in sequence order
    clip_offset: int  # where the clip starts on the timeline
    clip_length: int
    clip_start_in_media: int
    clip_name: str
    media: Media
    clip_gain: float | None  # the Mono Audio Gain effect's constant level, if any


@dataclass
class Composition:
    name: str
    timecode_start: int
    timecode_fps: int
    drop_frame: bool
    tracks: list[Track]


def _wave_parts(wave: bytes) -> tuple[int, int, bytes]:
    assert wave[:4] == b"RIFF"
    assert wave[8:12] == b"WAVE"
    at, channels, bits, data = 12, 0, 0, b""
    while at + 8 <= len(wave):
        chunk, size = wave[at : at + 4], struct.unpack_from("<I", wave, at + 4)[0]
        body = wave[at + 8 : at + 8 + size]
        if chunk == b"fmt ":
            channels, bits = (
                struct.unpack_from("<H", body, 2)[0],
                struct.unpack_from("<H", body, 14)[0],
            )
        elif chunk == b"data":
            data = body
        at += 8 + size + size % 2
    return channels, bits, data


def read_composition(omf: OmfFile) -> Composition:
    mobs = omf.head.refs("OMFI:HEAD:Mobs")
    by_id = {mob.uid("OMFI:MOBJ:MobID"): mob for mob in mobs}
    media_data = {d.uid("OMFI:MDAT:MobID"): d for d in omf.head.refs("OMFI:HEAD:MediaData")}
    [composition] = [mob for mob in mobs if mob.class_id == "CMOB"]
    tracks, tc = [], None
    for slot in composition.refs("OMFI:MOBJ:Slots"):
        segment, description = slot.ref("OMFI:MSLT:Segment"), slot.ref("OMFI:MSLT:TrackDesc")
        if segment.class_id == "TCCP":
            tc = segment
            continue
        assert segment.class_id == "SEQU"
        parts = segment.refs("OMFI:SEQU:Components")
        position, clip, offset, gain = 0, None, 0, None
        for part in parts:
            if part.class_id in ("SCLP", "NEST"):
                clip, offset = part, position
            position += part.int("OMFI:CPNT:Length")
        if clip is not None and clip.class_id == "NEST":
            clip, gain = _gain_scope(clip)
        assert clip is not None
        master = by_id[clip.uid("OMFI:SCLP:SourceID")]
        master_slot = _slot_with_track(master, clip.int("OMFI:SCLP:SourceTrackID"))
        file_clip = master_slot.ref("OMFI:MSLT:Segment")
        file_mob = by_id[file_clip.uid("OMFI:SCLP:SourceID")]
        descriptor = file_mob.ref("OMFI:SMOB:MediaDescription")
        channels = bits = 0
        samples = None
        if file_mob.uid("OMFI:MOBJ:MobID") in media_data:
            wave = media_data[file_mob.uid("OMFI:MOBJ:MobID")].raw("OMFI:WAVE:Data")
            channels, bits, samples = _wave_parts(wave)
        else:
            channels, bits, _ = _wave_parts(descriptor.raw("OMFI:WAVD:Summary"))
        locators = [
            loc.string(
                next(
                    p
                    for p in ("OMFI:DOSL:PathName", "OMFI:UNXL:PathName", "OMFI:TXTL:Name")
                    if loc.has(p)
                )
            )
            for loc in descriptor.refs("OMFI:MDES:Locator")
        ]
        tracks.append(
            Track(
                name=description.string("OMFI:TRKD:TrackName"),
                physical_track=description.int("OMFI:TRKD:PhysicalTrack"),
                track_id=description.int("OMFI:TRKD:TrackID"),
                edit_rate=slot.rational("OMFI:MSLT:EditRate"),
                components=[(p.class_id, p.int("OMFI:CPNT:Length")) for p in parts],
                clip_offset=offset,
                clip_length=clip.int("OMFI:CPNT:Length"),
                clip_start_in_media=clip.int("OMFI:SCLP:StartTime"),
                clip_name=master.string("OMFI:MOBJ:Name"),
                media=Media(
                    sample_rate=descriptor.rational("OMFI:MDFL:SampleRate"),
                    length=descriptor.int("OMFI:MDFL:Length"),
                    is_omfi=descriptor.raw("OMFI:MDFL:IsOMFI") == b"\1",
                    channels=channels,
                    bits=bits,
                    samples=samples,
                    locators=locators,
                ),
                clip_gain=gain,
            )
        )
    assert tc is not None, "no timecode track"
    return Composition(
        name=composition.string("OMFI:MOBJ:Name"),
        timecode_start=tc.int("OMFI:TCCP:Start"),
        timecode_fps=tc.int("OMFI:TCCP:FPS"),
        drop_frame=tc.raw("OMFI:TCCP:Flags") == b"\1",
        tracks=tracks,
    )


def _gain_scope(scope: OmfObject) -> tuple[OmfObject, float]:
    """A clip with its level: a nested scope whose first slot is the clip and whose last (the
    scope's value) a Mono Audio Gain invocation on a scope reference to it, at a constant
    level. The clip and its level."""
    clip, effect = scope.refs("OMFI:NEST:Slots")
    assert clip.class_id == "SCLP"
    assert effect.class_id == "EFFE"
    kind = effect.ref("OMFI:EFFE:EffectKind")
    assert kind.string("OMFI:EDEF:EffectID") == "omfi:effect:MonoAudioGain"
    arguments = {
        slot.int("OMFI:ESLT:ArgID"): slot.ref("OMFI:ESLT:ArgValue")
        for slot in effect.refs("OMFI:EFFE:EffectSlots")
    }
    source, level = arguments[-1], arguments[1]
    # The input is the slot before the effect's in the same scope: the clip.
    assert source.class_id == "SREF"
    assert (source.int("OMFI:SREF:RelativeScope"), source.int("OMFI:SREF:RelativeSlot")) == (0, 1)
    assert level.class_id == "CVAL"
    assert level.ref("OMFI:CPNT:DataKind").string("OMFI:DDEF:DataKindID") == "omfi:data:Rational"
    numerator, denominator = struct.unpack(effect.file.order + "ii", level.raw("OMFI:CVAL:Value"))
    lengths = {part.int("OMFI:CPNT:Length") for part in (scope, clip, effect, source, level)}
    assert len(lengths) == 1, lengths
    return clip, numerator / denominator


def _slot_with_track(mob: OmfObject, track_id: int) -> OmfObject:
    for slot in mob.refs("OMFI:MOBJ:Slots"):
        if slot.ref("OMFI:MSLT:TrackDesc").int("OMFI:TRKD:TrackID") == track_id:
            return slot
    raise AssertionError(f"mob {mob.id} has no track {track_id}")
