"""The dubbed output as a file like the input: audio in the input's format family, or the
input's video with its video streams copied packet for packet (never re-encoded) and the dub
as its one audio track. The audio is encoded as it comes, block by block."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Final, Literal

import av
import numpy as np
from av.audio.stream import AudioStream
from av.container import InputContainer, OutputContainer
from av.packet import Packet
from av.stream import Disposition
from av.video.stream import VideoStream

from soundstage.media.audio import (
    Audio,
    EncodeFormat,
    FileEncoder,
    InvalidMedia,
    MediaInfo,
    open_input,
)
from soundstage.speech.dubbing.limits import PARAM

_BLOCK_FRAMES: Final = 1 << 14
_LOSSLESS: Final = frozenset({"flac", "alac", "ape", "wavpack", "tta"})
_WEBM_AUDIO: Final = frozenset({"opus", "vorbis"})
_WEBM_VIDEO: Final = frozenset({"vp8", "vp9", "av1"})
AAC_BIT_RATE: Final = 192_000


@dataclass(frozen=True)
class OutputPlan:
    """What the output is: `encode` for media.audio.encode's formats, `mux` for PyAV."""

    how: Literal["encode", "mux"]
    filename: str
    content_type: str
    encode_format: EncodeFormat | None = None
    container: str | None = None
    audio_codec: str | None = None


_MP4: Final = OutputPlan("mux", "dubbed.mp4", "video/mp4", None, "mp4", "aac")
_MOV: Final = OutputPlan("mux", "dubbed.mov", "video/quicktime", None, "mov", "aac")
_MKV: Final = OutputPlan("mux", "dubbed.mkv", "video/x-matroska", None, "matroska", "aac")
_WEBM: Final = OutputPlan("mux", "dubbed.webm", "video/webm", None, "webm", "libopus")


def plan(info: MediaInfo, source: Path) -> OutputPlan:
    """Video stays in its container family (MP4 -> MP4, QuickTime MOV -> MOV, WebM -> WebM,
    Matroska -> MKV; others MP4 or else MKV), in the first of them that can hold its video
    streams as they are (an MP4 of ProRes becomes a MOV), or InvalidMedia; audio stays
    lossless if it was (PCM -> WAV, FLAC/ALAC -> FLAC), AAC stays AAC (M4A), other lossy audio
    becomes MP3."""
    if info.has_video:
        return _video_plan(info, source)
    codec = info.audio_codec
    if codec.startswith("pcm_"):
        return OutputPlan("encode", "dubbed.wav", "audio/wav", "wav")
    if codec in _LOSSLESS:
        return OutputPlan("encode", "dubbed.flac", "audio/flac", "flac")
    if codec == "aac":
        return OutputPlan("mux", "dubbed.m4a", "audio/mp4", None, "ipod", "aac")
    return OutputPlan("encode", "dubbed.mp3", "audio/mpeg", "mp3")


def write(
    info: MediaInfo, source: Path, audio: Iterable[Audio], directory: Path
) -> tuple[Path, str]:
    """The output for the input `source` (described by info) with `audio` (consecutive
    blocks, encoded as they come) as its sound, written in directory: its path and content
    type."""
    chosen = plan(info, source)
    path = directory / chosen.filename
    if chosen.encode_format is not None:
        with FileEncoder(path, chosen.encode_format) as encoder:
            for block in audio:
                encoder.write(block)
            encoder.close()
    elif chosen.container is not None and chosen.audio_codec is not None:
        try:
            mux(source, audio, path, container=chosen.container, audio_codec=chosen.audio_codec)
        except (av.FFmpegError, ValueError) as exc:
            raise InvalidMedia(
                f"The dubbed media could not be written: {exc}", param=PARAM
            ) from exc
    return path, chosen.content_type


def _video_plan(info: MediaInfo, source: Path) -> OutputPlan:
    names = set(info.format_name.split(","))
    with open_input(source, PARAM) as inp:
        videos = _videos(inp)
        if names & {"matroska", "webm"}:
            audios = {stream.codec_context.name for stream in inp.streams.audio}
            webm = {s.codec_context.name for s in videos} <= _WEBM_VIDEO and audios <= _WEBM_AUDIO
            choices = [_WEBM] if webm else [_MKV]
        elif names & {"mov", "mp4"}:
            quicktime = inp.metadata.get("major_brand", "").strip() == "qt"
            choices = [_MOV] if quicktime else [_MP4, _MOV]
        else:
            choices = [_MP4, _MKV]
        for choice in choices:
            if _holds(choice, videos):
                return choice
        codecs = ", ".join(sorted({stream.codec_context.name for stream in videos}))
    raise InvalidMedia(
        f"The video ({codecs}) cannot be copied as it is into "
        f"{' or '.join(str(choice.container) for choice in choices)}, which the dub is written in.",
        param=PARAM,
    )


def _videos(inp: InputContainer) -> list[VideoStream]:
    """The video streams, not cover art."""
    return [s for s in inp.streams.video if not s.disposition & Disposition.attached_pic]


def _holds(choice: OutputPlan, videos: list[VideoStream]) -> bool:
    """Whether the container can take these streams' packets as they are (a dry run)."""
    try:
        with av.open(io.BytesIO(), "w", format=choice.container) as out:
            for stream in videos:
                out.add_stream_from_template(stream)
            out.start_encoding()
    except (av.FFmpegError, ValueError):
        return False
    return True


def mux(
    source: Path, audio: Iterable[Audio], dest: Path, *, container: str, audio_codec: str
) -> None:
    """Write dest: the source's video streams (if any) copied unchanged, and audio
    (consecutive blocks) encoded with audio_codec, interleaved by time."""
    blocks = iter(audio)
    first = next(blocks, None)
    if first is None:
        raise ValueError("audio has no frames")
    with (
        open_input(source, PARAM) as inp,
        av.open(str(dest), "w", format=container) as out,
    ):
        videos = _videos(inp)
        copies = {stream.index: out.add_stream_from_template(stream) for stream in videos}
        rate = 48_000 if audio_codec == "libopus" else first.sample_rate
        track = out.add_stream(audio_codec, rate=rate)
        if not isinstance(track, AudioStream):
            raise ValueError(f"{audio_codec} is not an audio codec")
        track.layout = "mono" if first.channels == 1 else "stereo"
        if audio_codec == "aac":
            track.bit_rate = AAC_BIT_RATE
        _interleave(inp, out, videos, copies, _encoded(track, itertools.chain([first], blocks)))


def _interleave(
    inp: InputContainer,
    out: OutputContainer,
    videos: list[VideoStream],
    copies: dict[int, VideoStream],
    audio_packets: Iterator[Packet[Any]],
) -> None:
    pending = next(audio_packets, None)
    if videos:
        for packet in inp.demux(*videos):
            if packet.dts is None:  # the demuxer's end-of-stream marker
                continue
            now = packet.dts * packet.time_base
            while pending is not None and _time(pending) <= now:
                out.mux(pending)
                pending = next(audio_packets, None)
            packet.stream = copies[packet.stream.index]
            out.mux(packet)
    while pending is not None:
        out.mux(pending)
        pending = next(audio_packets, None)


def _time(packet: Packet[Any]) -> Fraction:
    return Fraction(packet.dts or 0) * packet.time_base


def _encoded(track: AudioStream, audio: Iterable[Audio]) -> Iterator[Packet[Any]]:
    """The blocks encoded (their first two channels, if more)."""
    pts = 0
    for block in audio:
        layout = "mono" if block.channels == 1 else "stereo"
        samples = block.samples if block.channels <= 2 else block.samples[:, :2]
        for start in range(0, block.frames, _BLOCK_FRAMES):
            chunk = np.ascontiguousarray(samples[start : start + _BLOCK_FRAMES], dtype=np.float32)
            frame = av.AudioFrame.from_ndarray(chunk.reshape(1, -1), format="flt", layout=layout)
            frame.sample_rate = block.sample_rate
            frame.pts = pts
            frame.time_base = Fraction(1, block.sample_rate)
            pts += chunk.shape[0]
            yield from track.encode(frame)
    yield from track.encode(None)
