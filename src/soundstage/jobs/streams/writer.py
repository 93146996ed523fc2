"""The worker's end of a stream, whatever the backend: a file-like object the encoder writes
to, which can hold bytes back until they are paid for."""

from __future__ import annotations

from types import TracebackType
from typing import Final

from soundstage.jobs.streams.base import StreamSink

# Bytes written without a flush are handed to the backend once this many have gathered (the
# encoder flushes after each piece of audio, so this only splits a long piece).
WRITE_BUFFER_BYTES: Final = 1 << 16


class StreamWriter:
    """Writes reach the backend at each flush, except after `hold()`: those bytes wait for
    `release()` (the job has recorded that they are paid for) or `complete()`, which hands
    them over together with the end mark. Leaving the `with` block without `complete()`
    (the job failed or was cancelled) removes the stream at once."""

    def __init__(self, sink: StreamSink) -> None:
        self._sink = sink
        self._pending = bytearray()
        self._held: list[bytes] | None = None
        self._completed = False

    def write(self, data: bytes, /) -> int:
        if self._held is not None:
            self._held.append(bytes(data))
            return len(data)
        self._pending += data
        if len(self._pending) >= WRITE_BUFFER_BYTES:
            self._send()
        return len(data)

    def flush(self) -> None:
        if self._held is None:
            self._send()

    def hold(self) -> None:
        """Keep what is written from now on until `release()` or `complete()`."""
        if self._held is None:
            self._send()
            self._held = []

    def release(self) -> None:
        """Hand over the bytes held so far, and go on holding what is written next."""
        if self._held:
            self._sink.append(b"".join(self._held))
            self._held = []

    def complete(self) -> None:
        """Hand over the held bytes and mark the stream complete."""
        self._send()
        self._sink.end(b"".join(self._held or ()))
        self._held = None
        self._completed = True

    def _send(self) -> None:
        if self._pending:
            data, self._pending = bytes(self._pending), bytearray()
            self._sink.append(data)

    def __enter__(self) -> StreamWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self._completed:
            self._sink.abandon()
