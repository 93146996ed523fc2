"""Fixtures of the speech tests."""

from __future__ import annotations

import functools
import http.server
import io
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import av
import numpy as np
import pytest
import soundfile

from soundstage.core.audio import Audio


class FileServer:
    """Static files on 127.0.0.1, which the test worker may fetch from."""

    def __init__(self, root: Path) -> None:
        self.root = root
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def put(self, name: str, data: bytes) -> str:
        (self.root / name).write_bytes(data)
        return f"http://127.0.0.1:{self.server.server_address[1]}/{name}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FileServer]:
    server = FileServer(tmp_path_factory.mktemp("files"))
    yield server
    server.server.shutdown()


def audio_bytes(audio: Audio, fmt: str = "wav") -> bytes:
    """Audio as a WAV, FLAC or M4A (AAC) file."""
    buffer = io.BytesIO()
    if fmt in ("wav", "flac"):
        soundfile.write(buffer, audio.samples, audio.sample_rate, format=fmt.upper())
        return buffer.getvalue()
    with av.open(buffer, "w", format="ipod" if fmt == "m4a" else fmt) as container:
        stream = container.add_stream("aac", rate=audio.sample_rate, layout="mono")
        frame = av.AudioFrame.from_ndarray(
            audio.samples.T.copy().astype(np.float32), format="fltp", layout="mono"
        )
        frame.sample_rate = audio.sample_rate
        for packet in stream.encode(frame):
            container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return buffer.getvalue()


def understated_mkv(audio: Audio, header_ms: float) -> bytes:
    """Audio as a Matroska FLAC whose Segment Duration says it lasts header_ms (in its
    millisecond ticks), whatever it holds: a header that lies about the length."""
    buffer = io.BytesIO()
    layout = "mono" if audio.channels == 1 else "stereo"
    with av.open(buffer, "w", format="matroska") as container:
        stream = container.add_stream("flac", rate=audio.sample_rate, layout=layout)
        frame = av.AudioFrame.from_ndarray(
            audio.samples.reshape(1, -1).astype(np.float32), format="flt", layout=layout
        )
        frame.sample_rate, frame.pts = audio.sample_rate, 0
        for packet in [*stream.encode(frame), *stream.encode(None)]:
            container.mux(packet)
    data = buffer.getvalue()
    duration = data.find(b"\x44\x89\x88")  # the Duration element, an 8-byte float
    assert duration > 0, "no Segment Duration to rewrite"
    value = duration + 3
    return data[:value] + struct.pack(">d", header_ms) + data[value + 8 :]


def stand_in_program(folder: Path, name: str, script: str) -> Path:
    """An executable shell script called name in folder, standing in for a broken or stuck
    external program (a failure the real one shows only now and then)."""
    program = folder / name
    program.write_text(f"#!/bin/sh\n{script}\n")
    program.chmod(0o755)
    return program
