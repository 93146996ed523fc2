"""Audio files made in memory: a plain WAV, WAV/FLAC/M4A of an `Audio`, and a Matroska whose
header lies about its length; and bytes in a named encoding read back."""

from __future__ import annotations

import io
import struct
import wave

import av
import numpy as np
import soundfile
from av.audio.frame import AudioFrame

from soundstage.media.audio import Audio
from soundstage.media.encodings import Encoding


def wav_bytes(seconds: float = 1.0, rate: int = 16000) -> bytes:
    """A mono 16-bit WAV of a constant (near-silent) signal."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\x01\x00" * int(seconds * rate))
    return buffer.getvalue()


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


def encoded_frames(fmt: Encoding, data: bytes, channels: int = 1) -> list[AudioFrame]:
    """The frames FFmpeg decodes from bytes in `fmt`; a raw (headerless) encoding is read
    with its demuxer told the rate and channels, as a client of that format must be."""
    layout = "mono" if channels == 1 else "stereo"
    options = {"sample_rate": str(fmt.sample_rate), "ch_layout": layout} if fmt.is_raw else {}
    with av.open(io.BytesIO(data), "r", format=fmt.container, options=options) as container:
        return list(container.decode(container.streams.audio[0]))
