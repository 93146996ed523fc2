"""A Bento container writer (Apple's Bento Specification 1.0d5, the container of OMF 2.0).

A Bento file is its values, then a table of contents (TOC), then a 24-byte label at the very
end. Every value belongs to an (object, property, type) triple, all three 32-bit IDs.
Properties and types are themselves objects named by a global name (a `GlobalPropName` /
`GlobalTypeName` value of type 7-bit ASCII). The TOC is a byte stream of one-byte codes each
followed by a fixed number of bytes: "new object" (object, property, type), "new property"
(property, type), "new type" (type), then the value: immediate (0 to 4 bytes, held in a
4-byte field) or an offset and length in the file. The TOC is cut into blocks (the label's
buffer size, in KiB); an element never straddles a block, the rest of a block is skipped with
an "end of buffer" code. Object 1 describes the TOC itself: the ID seed, the TOC's own offset
and size, and the container's (offset 0, the whole file). Objects appear in the TOC in
ascending ID order, so the last one has the highest ID (Ardour's OMF importer numbers the
objects it makes up counting on from the last object of the TOC).

Object references are written the way OMF files from Avid and Pro Tools lay them out: a
reference value (OMF's `omfi:ObjRef`, and each element of an `omfi:ObjRefArray`) holds the
referenced object's Bento ID itself; no value is preceded by a "reference list ID" (TOC code
15) and there are no `ObjReferences` objects (type `ObjRefData`). Bento 1.0d5 defines those
lists (the value holds keys, the list pairs each key with an object ID), but the files real
DAWs exchange have none, and importers written against those files read a reference as the
object ID and do not follow lists. Ardour's OMF importer (a port of REAPER's), for one, reads
an ObjRefArray of a UInt16 count and 4-byte object IDs directly, and calls that file "Avid";
it takes the ID after a code 15 for the value and skips the value itself, then keeps only the
first one or two objects of the list: a session written with reference lists came out with 1
of its 5 composition tracks, 1 of 9 mobs and 1 of 4 media objects, and no sample rate; the
same file with those entries removed, otherwise byte-identical, was read whole (issue 21).

Everything here is little-endian (label flags 0x0101, the byte order Windows OMF files use).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO, Final

MAGIC: Final = bytes.fromhex("a4434da5486472d7")
LABEL_FLAGS_LITTLE_ENDIAN: Final = 0x0101
MAJOR_VERSION: Final = 2  # Bento 1.0d5
MINOR_VERSION: Final = 0
BLOCK_KIB: Final = 1

# Standard object IDs (Bento 1.0d5, Appendix D).
TOC_OBJECT: Final = 1
TOC_SEED: Final = 2
TOC_MIN_SEED: Final = 3
TOC_SELF: Final = 4
TOC_CONTAINER: Final = 5
TOC_TYPE: Final = 19
ASCII7_TYPE: Final = 21
GLOBAL_TYPE_NAME: Final = 23
GLOBAL_PROPERTY_NAME: Final = 24
FIRST_USER_ID: Final = 0x10000

# TOC stream codes.
NEW_OBJECT, NEW_PROPERTY, NEW_TYPE = 1, 2, 3
OFFSET4_LEN4: Final = 5
IMMEDIATE0: Final = 9  # ... IMMEDIATE4 = 13: 0 to 4 value bytes
END_OF_BUFFER: Final = 24
OFFSET8_LEN8: Final = 25


@dataclass(frozen=True)
class _Value:
    property_id: int
    type_id: int
    immediate: bytes | None  # 0..4 bytes held in the TOC, or None for offset + length
    offset: int = 0
    length: int = 0


class BentoWriter:
    """Values are written to `out` as they are put; close() writes the TOC and the label.
    Offsets count from the first byte written; `out` is never read, sought or told, so it
    may be a stream (a ZIP entry)."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._position = 0
        self._next_id = FIRST_USER_ID
        self._values: dict[int, list[_Value]] = {}
        self._names: dict[tuple[int, str], int] = {}

    @property
    def position(self) -> int:
        return self._position

    def new_object(self) -> int:
        object_id = self._next_id
        self._next_id += 1
        self._values[object_id] = []
        return object_id

    def property_id(self, name: str) -> int:
        return self._named(GLOBAL_PROPERTY_NAME, name)

    def type_id(self, name: str) -> int:
        return self._named(GLOBAL_TYPE_NAME, name)

    def put(self, object_id: int, property_name: str, type_name: str, data: bytes) -> None:
        """Add a value: up to 4 bytes in the TOC, larger ones in the file. A value that
        refers to objects holds their IDs (see the module's docstring)."""
        property_id, type_id = self.property_id(property_name), self.type_id(type_name)
        if len(data) <= 4:
            value = _Value(property_id, type_id, data)
        else:
            offset = self._position
            self._write(data)
            value = _Value(property_id, type_id, None, offset, len(data))
        self._values[object_id].append(value)

    def put_stream(
        self, object_id: int, property_name: str, type_name: str, chunks: Iterable[bytes]
    ) -> int:
        """Add a large value from chunks (media), written straight to the file; its length."""
        offset = self._position
        for chunk in chunks:
            self._write(chunk)
        length = self._position - offset
        self._values[object_id].append(
            _Value(
                self.property_id(property_name),
                self.type_id(type_name),
                None,
                offset,
                length,
            )
        )
        return length

    def close(self) -> None:
        """Write the TOC and the label."""
        toc_offset = self._position
        # The TOC describes its own size: encode once to learn it (every element has a
        # fixed size), then for real.
        draft = self._encode_toc(toc_offset, 0, 0)
        toc = self._encode_toc(toc_offset, len(draft), toc_offset + len(draft) + 24)
        assert len(toc) == len(draft)
        self._write(toc)
        self._write(
            MAGIC
            + struct.pack(
                "<HHHHII",
                LABEL_FLAGS_LITTLE_ENDIAN,
                BLOCK_KIB,
                MAJOR_VERSION,
                MINOR_VERSION,
                toc_offset,
                len(toc),
            )
        )

    # Internals

    def _write(self, data: bytes) -> None:
        self._out.write(data)
        self._position += len(data)

    def _named(self, kind: int, name: str) -> int:
        key = (kind, name)
        found = self._names.get(key)
        if found is None:
            found = self.new_object()
            self._names[key] = found
            encoded = name.encode("ascii") + b"\0"
            offset = self._position
            self._write(encoded)
            self._values[found].append(_Value(kind, ASCII7_TYPE, None, offset, len(encoded)))
        return found

    def _encode_toc(self, toc_offset: int, toc_size: int, container_size: int) -> bytes:
        stream = _TocStream()
        header = [
            _Value(TOC_SEED, TOC_TYPE, struct.pack("<I", self._next_id)),
            _Value(TOC_MIN_SEED, TOC_TYPE, struct.pack("<I", FIRST_USER_ID)),
            _Value(TOC_SELF, TOC_TYPE, None, toc_offset, toc_size),
            _Value(TOC_CONTAINER, TOC_TYPE, None, 0, container_size),
        ]
        for object_id, values in [(TOC_OBJECT, header), *sorted(self._values.items())]:
            current: tuple[int, int] | None = None
            for value in values:
                if current is None:
                    stream.element(
                        NEW_OBJECT, struct.pack("<III", object_id, value.property_id, value.type_id)
                    )
                elif current[0] != value.property_id:
                    stream.element(
                        NEW_PROPERTY, struct.pack("<II", value.property_id, value.type_id)
                    )
                elif current[1] != value.type_id:
                    stream.element(NEW_TYPE, struct.pack("<I", value.type_id))
                current = (value.property_id, value.type_id)
                if value.immediate is not None:
                    size = len(value.immediate)
                    payload = value.immediate.ljust(4, b"\0") if size else b""
                    stream.element(IMMEDIATE0 + size, payload)
                elif value.offset < 1 << 32 and value.length < 1 << 32:
                    stream.element(OFFSET4_LEN4, struct.pack("<II", value.offset, value.length))
                else:
                    stream.element(OFFSET8_LEN8, struct.pack("<QQ", value.offset, value.length))
        return stream.getvalue()


class _TocStream:
    """TOC elements packed into blocks of BLOCK_KIB KiB."""

    block = BLOCK_KIB * 1024

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._size = 0

    def element(self, code: int, payload: bytes) -> None:
        needed = 1 + len(payload)
        room = self.block - self._size % self.block
        if needed > room:
            self._append(bytes([END_OF_BUFFER]) + bytes(room - 1))
        self._append(bytes([code]) + payload)

    def _append(self, data: bytes) -> None:
        self._parts.append(data)
        self._size += len(data)

    def getvalue(self) -> bytes:
        return b"".join(self._parts)
