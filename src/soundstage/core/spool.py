"""A request body read whole without being held whole: in memory up to a bound, beyond it in
an unnamed temporary file (gone when closed, or when the process dies), read back in chunks."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import BinaryIO

from starlette.concurrency import run_in_threadpool

READ_CHUNK_BYTES = 1 << 20


class SpooledBody:
    def __init__(self, directory: Path, memory_bytes: int) -> None:
        self.directory = directory
        self.memory_bytes = memory_bytes
        self.size = 0
        self._buffer = bytearray()
        self._file: BinaryIO | None = None
        self._position = 0

    @property
    def in_memory(self) -> bool:
        return self._file is None

    def getvalue(self) -> bytes:
        """The whole body, only while it is in memory (at most `memory_bytes`)."""
        assert self._file is None, "the body is on disk: read it in chunks"
        return bytes(self._buffer)

    async def write(self, chunk: bytes) -> None:
        self.size += len(chunk)
        self._buffer += chunk
        if len(self._buffer) > self.memory_bytes:
            await run_in_threadpool(self._spill)

    async def rewind(self) -> None:
        """After the last write: read from the start."""
        self._position = 0
        if self._file is not None:
            await run_in_threadpool(self._spill)
            await run_in_threadpool(self._file.seek, 0)

    async def read(self, size: int = READ_CHUNK_BYTES) -> bytes:
        """The next chunk (b"" at the end)."""
        if self._file is None:
            chunk = bytes(self._buffer[self._position : self._position + size])
        else:
            chunk = await run_in_threadpool(self._file.read, size)
        self._position += len(chunk)
        return chunk

    @property
    def remaining(self) -> int:
        return self.size - self._position

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._buffer = bytearray()

    def _spill(self) -> None:
        if self._file is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._file = tempfile.TemporaryFile(dir=self.directory)  # noqa: SIM115 (closed in close())
        self._file.write(self._buffer)
        self._buffer = bytearray()
