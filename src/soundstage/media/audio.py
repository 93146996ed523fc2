"""The one place audio is decoded (any container, via PyAV) to float32 PCM and encoded to files."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Final, Literal, Protocol

import av
import numpy as np
import numpy.typing as npt
import soundfile as sf
from av.audio.frame import AudioFrame
from av.audio.layout import AudioLayout
from av.audio.resampler import AudioResampler
from av.audio.stream import AudioStream
from av.container import InputContainer
from av.stream import Disposition

from soundstage.core.errors import AppError
from soundstage.media.encodings import Encoding

Samples = npt.NDArray[np.float32]
EncodeFormat = Literal["wav", "mp3", "flac"]

DEFAULT_BLOCK_FRAMES: Final = 1 << 16
MP3_SAMPLE_RATES: Final = (44_100, 48_000)
# Every rate an MP3 can hold (MPEG-1, 2 and 2.5 layer III), for callers that keep the input's.
MPEG_SAMPLE_RATES: Final = (8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000)
MP3_BIT_RATE: Final = 192_000
# libsndfile sets an MPEG-1 (32 kHz and up) CBR bitrate from a 0..1 "compression level" as
# int(320 - level * 288) kb/s, which LAME rounds to the nearest legal rate.
_MP3_COMPRESSION_LEVEL: Final = (320 - MP3_BIT_RATE / 1000) / 288
MAX_CHANNELS: Final = 8
MIN_SAMPLE_RATE: Final = 1_000
MAX_SAMPLE_RATE: Final = 384_000
CONTENT_TYPES: Final[dict[str, str]] = {
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
    "flac": "audio/flac",
}

# Inputs are user uploads, so FFmpeg may only read the one local file through the demuxers we
# support: playlist and concat demuxers (hls, concat, ...) would otherwise let a crafted upload
# pull other local files or URLs into the decoded audio.
_CONTAINER_OPTIONS: Final = {
    "format_whitelist": "mp3,wav,w64,flac,mov,aac,ogg,matroska,aiff,caf",
    "protocol_whitelist": "file",
}
# PyAV raises FFmpegError for anything libav* rejects and plain ValueError for some malformed
# frames/layouts it checks itself; both mean the input is bad, never that the service is.
_MEDIA_ERRORS: Final = (av.error.FFmpegError, ValueError)
# swresample's flush can leave a resampled stream a sample or two off the exact rate ratio;
# holding back this many frames lets the last block be trimmed or padded to the exact length.
_RESERVE_FRAMES: Final = 4096
_DECODE_BLOCK_FRAMES: Final = 1 << 20
# swresample's default matrices are power preserving: stereo -> mono is 0.707 * (L + R), which
# clips on correlated channels. Capping each output row's gain at 1 makes it the plain average.
_RESAMPLER_OPTIONS: Final = {"rematrix_maxval": "1.0"}


class InvalidMedia(AppError):
    """The input could not be decoded as audio (not media, damaged, empty or without audio)."""

    status = 422
    code = "invalid_media"


@dataclass(frozen=True, eq=False)
class Audio:
    """Float32 PCM, shape (frames, channels), in [-1, 1] by convention (not enforced)."""

    samples: Samples
    sample_rate: int

    def __post_init__(self) -> None:
        if self.samples.dtype != np.float32 or self.samples.ndim != 2:
            raise ValueError("samples must be a float32 array of shape (frames, channels)")
        if self.samples.shape[1] < 1:
            raise ValueError("samples must have at least one channel")
        if self.sample_rate <= 0:
            raise ValueError("sample_rate must be positive")

    @property
    def frames(self) -> int:
        return int(self.samples.shape[0])

    @property
    def channels(self) -> int:
        return int(self.samples.shape[1])

    @property
    def duration_ms(self) -> int:
        return round(self.frames * 1000 / self.sample_rate)


@dataclass(frozen=True)
class MediaInfo:
    """What the headers say. duration_ms is the container's figure (Opus counts its pre-skip,
    6.5 ms from libopus; a truncated MP3 its original length); decode() is exact."""

    format_name: str
    has_video: bool
    audio_codec: str
    sample_rate: int
    channels: int
    duration_ms: int


@dataclass(frozen=True)
class EncodedInfo:
    size_bytes: int
    duration_ms: int
    content_type: str
    sample_rate: int
    channels: int


def probe(path: Path, *, param: str = "audio_url") -> MediaInfo:
    """Describe a media file from its headers; demuxes (never decodes) only if they lack a
    duration, as in browser-recorded WebM."""
    _check_file(path, param)
    with open_input(path, param) as container:
        try:
            stream = _audio_stream(container, param)
            ctx = stream.codec_context
            if ctx.sample_rate <= 0 or ctx.channels <= 0:
                raise InvalidMedia("The audio stream has no sample rate or channels.", param=param)
            duration_ms = _header_duration_ms(container, stream)
            if duration_ms is None:
                duration_ms = _demuxed_duration_ms(container, stream, param)
            return MediaInfo(
                format_name=container.format.name,
                # Cover art in MP3/M4A is a one-picture "video" stream; it is not video.
                has_video=any(
                    not video.disposition & Disposition.attached_pic
                    for video in container.streams.video
                ),
                audio_codec=ctx.codec.canonical_name,
                sample_rate=ctx.sample_rate,
                channels=ctx.channels,
                duration_ms=duration_ms,
            )
        except _MEDIA_ERRORS as exc:
            raise InvalidMedia(_damaged(exc), param=param) from exc


def decode(
    path: Path,
    *,
    sample_rate: int | None = None,
    channels: int | None = None,
    param: str = "audio_url",
) -> Audio:
    """Decode the file's audio to float32 at sample_rate/channels (None keeps the source's).

    Resampling keeps the duration: frames = round(source frames * rate / source rate).
    Stereo to mono averages the channels; mono to stereo copies. Codec delay is trimmed where
    the file records it (MP3 LAME tag, MP4 edit list, Opus pre-skip); AAC in MP4 still ends
    with up to one AAC frame (1024 samples) of padding, and raw ADTS AAC has no record at all.
    A file truncated inside its audio data decodes to the part that is there.
    """
    blocks = list(
        iter_decode(
            path,
            sample_rate=sample_rate,
            channels=channels,
            block_frames=_DECODE_BLOCK_FRAMES,
            param=param,
        )
    )
    if len(blocks) == 1:
        return blocks[0]
    return Audio(np.concatenate([block.samples for block in blocks]), blocks[0].sample_rate)


def iter_decode(
    path: Path,
    *,
    sample_rate: int | None = None,
    channels: int | None = None,
    block_frames: int = DEFAULT_BLOCK_FRAMES,
    param: str = "audio_url",
) -> Iterator[Audio]:
    """Decode in blocks of exactly block_frames frames (the last may be shorter), so hours of
    audio take bounded memory; together they equal decode(). Bad arguments and empty files
    raise at the call, damaged media raises InvalidMedia while iterating."""
    _check_target(sample_rate, channels)
    if block_frames < 1:
        raise ValueError("block_frames must be positive")
    _check_file(path, param)
    return _decode_blocks(path, sample_rate, channels, block_frames, param)


def encode(
    audio: Audio,
    path: Path,
    fmt: EncodeFormat,
    *,
    sample_rate: int | None = None,
    bit_depth: Literal[16, 24] | None = None,
) -> EncodedInfo:
    """Write audio to path as WAV/FLAC (PCM, 16 or 24 bit, default 16) or MP3 (192 kb/s CBR,
    44.1 or 48 kHz, mono or stereo: other rates are resampled, more channels downmixed; a
    `sample_rate` may name any MPEG rate, see kept_rate(), below 32 kHz at up to 160 kb/s).

    The length is kept exactly: WAV/FLAC hold every frame, and the MP3's LAME tag tells
    FFmpeg/mpg123-based players to trim LAME's delay and padding (about 40 ms at 44.1 kHz
    that a player ignoring the tag would add).

    Samples are clipped to [-1, 1]. The file appears at path only once complete. Bad
    arguments raise ValueError; a failed write raises OSError.
    """
    if audio.frames == 0:
        raise ValueError("audio has no frames")
    with FileEncoder(path, fmt, sample_rate=sample_rate, bit_depth=bit_depth) as encoder:
        encoder.write(audio)
        return encoder.close()


class FileEncoder:
    """encode() for audio that comes block by block (bounded memory whatever the length):
    the blocks written, joined, give the file encode() would write from them.

    The first block fixes the input's sample rate and channels (every later one must have
    them); the output's are chosen as encode() chooses them. close() completes the file and
    only then puts it at path; leaving the `with` block on an exception (or abort()) leaves
    no file. Bad arguments raise ValueError; a failed write raises OSError.
    """

    def __init__(
        self,
        path: Path,
        fmt: EncodeFormat,
        *,
        sample_rate: int | None = None,
        bit_depth: Literal[16, 24] | None = None,
    ) -> None:
        if fmt not in CONTENT_TYPES:
            raise ValueError(f"unsupported format {fmt!r}")
        if fmt == "mp3":
            if bit_depth is not None:
                raise ValueError("MP3 has no bit depth")
            if sample_rate is not None and sample_rate not in MPEG_SAMPLE_RATES:
                raise ValueError(f"MP3 sample_rate must be one of {MPEG_SAMPLE_RATES}")
        elif bit_depth not in (None, 16, 24):
            raise ValueError("bit_depth must be 16 or 24")
        _check_target(sample_rate, None)
        self.path, self.fmt = path, fmt
        self._sample_rate, self._bit_depth = sample_rate, bit_depth or 16
        self._partial = path.with_name(f".{path.name}.partial")
        self._input: tuple[int, int] | None = None
        self._blocks: _Blocks | None = None
        self._file: sf.SoundFile | None = None
        self._pts = 0
        self._frames = 0

    def __enter__(self) -> FileEncoder:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            self.abort()

    def write(self, audio: Audio) -> None:
        if self._input is None:
            self._start(audio.sample_rate, audio.channels)
        elif (audio.sample_rate, audio.channels) != self._input:
            raise ValueError("every block must have the first one's sample rate and channels")
        assert self._blocks is not None
        for frame in _frames_of(audio):
            frame.pts = self._pts
            self._pts += frame.samples
            self._store(self._blocks.push(frame))

    def close(self) -> EncodedInfo:
        """Complete the file and put it at path: what was written."""
        if self._blocks is None or self._file is None:
            raise ValueError("audio has no frames")
        self._store(self._blocks.finish())
        if self._frames == 0:
            raise ValueError("audio has no frames")
        try:
            self._file.close()
            self._partial.replace(self.path)
        except (sf.SoundFileError, RuntimeError) as exc:
            self.abort()
            raise OSError(f"could not write {self.fmt} to {self.path}: {exc}") from exc
        rate, channels = self._file.samplerate, self._file.channels
        return EncodedInfo(
            size_bytes=self.path.stat().st_size,
            duration_ms=round(self._frames * 1000 / rate),
            content_type=CONTENT_TYPES[self.fmt],
            sample_rate=rate,
            channels=channels,
        )

    def abort(self) -> None:
        """Give up: no file is left at path (nor a partial one)."""
        if self._file is not None and not self._file.closed:
            with contextlib.suppress(sf.SoundFileError, RuntimeError):
                self._file.close()
        self._partial.unlink(missing_ok=True)

    def _start(self, input_rate: int, input_channels: int) -> None:
        _check_target(self._sample_rate, input_channels)
        if self.fmt == "mp3":
            rate = self._sample_rate or _mp3_rate(input_rate)
            channels = min(input_channels, 2)
        else:
            rate = self._sample_rate or input_rate
            channels = input_channels
            _check_target(rate, channels)
        self._input = (input_rate, input_channels)
        self._blocks = _Blocks(rate, channels, DEFAULT_BLOCK_FRAMES)
        try:
            self._file = _open_for_writing(self._partial, self.fmt, rate, channels, self._bit_depth)
        except (sf.SoundFileError, RuntimeError) as exc:
            raise OSError(f"could not write {self.fmt} to {self.path}: {exc}") from exc

    def _store(self, blocks: Iterator[Audio]) -> None:
        assert self._file is not None
        try:
            for block in blocks:
                self._file.write(_pcm_safe(block.samples))
                self._frames += block.frames
        except (av.error.FFmpegError, sf.SoundFileError, RuntimeError) as exc:
            raise OSError(f"could not write {self.fmt} to {self.path}: {exc}") from exc


# Reading


def _check_target(sample_rate: int | None, channels: int | None) -> None:
    if sample_rate is not None and not MIN_SAMPLE_RATE <= sample_rate <= MAX_SAMPLE_RATE:
        raise ValueError(f"sample_rate must be {MIN_SAMPLE_RATE}..{MAX_SAMPLE_RATE}")
    if channels is not None and not 1 <= channels <= MAX_CHANNELS:
        raise ValueError(f"channels must be 1..{MAX_CHANNELS}")


def _check_file(path: Path, param: str) -> None:
    # A missing file is the caller's bug (it lost its own download), not the user's media, so
    # stat()'s FileNotFoundError is left to surface as one.
    if path.stat().st_size == 0:
        raise InvalidMedia("The media file is empty.", param=param)


def open_input(path: Path, param: str) -> InputContainer:
    """The media file opened for reading through the allowed demuxers only (InvalidMedia,
    naming param, if none reads it)."""
    try:
        # An absolute path is never taken for "protocol:..." by FFmpeg.
        return av.open(
            str(path.absolute()),
            mode="r",
            container_options=dict(_CONTAINER_OPTIONS),
            metadata_errors="replace",
        )
    except _MEDIA_ERRORS as exc:
        raise InvalidMedia(
            "The file is not a supported audio or video file, or it is damaged or truncated.",
            param=param,
        ) from exc


def _audio_stream(container: InputContainer, param: str) -> AudioStream:
    stream = container.streams.best("audio")
    if not isinstance(stream, AudioStream):
        raise InvalidMedia("The file contains no audio stream.", param=param)
    if stream.codec_context is None:  # PyAV leaves it unset when FFmpeg has no decoder
        raise InvalidMedia("The file's audio codec is not supported.", param=param)
    return stream


def _damaged(exc: Exception) -> str:
    detail = getattr(exc, "strerror", None) or str(exc)
    return f"The file's audio could not be decoded: {detail}."


def _header_duration_ms(container: InputContainer, stream: AudioStream) -> int | None:
    if stream.duration and stream.time_base:
        return round(stream.duration * stream.time_base * 1000)
    if container.duration and container.duration > 0:
        return round(container.duration / 1000)  # AV_TIME_BASE is microseconds
    return None


def _demuxed_duration_ms(container: InputContainer, stream: AudioStream, param: str) -> int:
    start: int | None = None
    end: int | None = None
    for packet in container.demux(stream):
        if packet.pts is None or not packet.duration:
            continue
        packet_end = packet.pts + packet.duration
        start = packet.pts if start is None else min(start, packet.pts)
        end = packet_end if end is None else max(end, packet_end)
    if start is None or end is None or stream.time_base is None:
        raise InvalidMedia("The audio stream holds no audio.", param=param)
    return round((end - start) * stream.time_base * 1000)


def _decode_blocks(
    path: Path, sample_rate: int | None, channels: int | None, block_frames: int, param: str
) -> Iterator[Audio]:
    produced = False
    with open_input(path, param) as container:
        stream = _audio_stream(container, param)
        try:
            for block in _convert(
                _decoded_frames(container, stream), sample_rate, channels, block_frames
            ):
                produced = True
                yield block
        except _MEDIA_ERRORS as exc:
            raise InvalidMedia(_damaged(exc), param=param) from exc
    if not produced:
        raise InvalidMedia("The file's audio stream could not be decoded.", param=param)


def _decoded_frames(container: InputContainer, stream: AudioStream) -> Iterator[AudioFrame]:
    for packet in container.demux(stream):
        try:
            frames = stream.decode(packet)
        except av.error.InvalidDataError:
            # Like ffmpeg, drop a damaged packet and go on: one glitched frame in a phone
            # recording should not reject the upload. A file with nothing decodable still fails.
            continue
        yield from frames


# Converting


def _layout_name(channels: int) -> str:
    return {1: "mono", 2: "stereo"}.get(channels, f"{channels}c")  # "6c" is FFmpeg's 5.1


class _Converter:
    """Brings frames of any sample format, layout and rate to packed float32 at one rate and
    channel count, following format changes mid-stream."""

    def __init__(self, sample_rate: int | None, channels: int | None) -> None:
        self.rate = sample_rate or 0  # 0: take the first frame's
        self._layout = None if channels is None else AudioLayout(_layout_name(channels))
        self._source: tuple[str, str, int] | None = None
        self._resampler: AudioResampler | None = None
        self._resampled_channels = 0
        self._duplicate = False
        self._expected = Fraction(0)
        self.produced = 0

    @property
    def expected_frames(self) -> int:
        """The exact input length at the output rate, rounded half up."""
        return int(self._expected + Fraction(1, 2))

    def push(self, frame: AudioFrame) -> list[Samples]:
        if frame.samples == 0:
            return []
        parts: list[Samples] = []
        source = (frame.format.name, frame.layout.name, frame.sample_rate)
        if self._resampler is None or source != self._source:
            # AudioResampler is fixed to its first frame's format, so a change needs a new one.
            parts = self.flush()
            self._resampler = self._start(frame)
            self._source = source
        self._expected += Fraction(frame.samples * self.rate, frame.sample_rate)
        return parts + self._arrays(self._resampler.resample(frame))

    def flush(self) -> list[Samples]:
        if self._resampler is None:
            return []
        parts = self._arrays(self._resampler.resample(None))
        self._resampler = None
        return parts

    def _start(self, frame: AudioFrame) -> AudioResampler:
        self.rate = self.rate or frame.sample_rate
        if self._layout is None:
            self._layout = frame.layout
        # swresample spreads mono over stereo at -3 dB; copying the channel keeps the level.
        self._duplicate = frame.layout.nb_channels == 1 and self._layout.nb_channels == 2
        layout = AudioLayout("mono") if self._duplicate else self._layout
        self._resampled_channels = layout.nb_channels
        return AudioResampler(
            format="flt", layout=layout, rate=self.rate, options=dict(_RESAMPLER_OPTIONS)
        )

    def _arrays(self, frames: list[AudioFrame]) -> list[Samples]:
        parts: list[Samples] = []
        for frame in frames:
            # A passthrough AudioResampler answers a flush with [None].
            if frame is None or frame.samples == 0:
                continue
            samples = np.asarray(frame.to_ndarray(), dtype=np.float32)
            samples = samples.reshape(-1, self._resampled_channels)
            if self._duplicate:
                samples = np.repeat(samples, 2, axis=1)
            self.produced += samples.shape[0]
            parts.append(samples)
        return parts


def _convert(
    frames: Iterable[AudioFrame], sample_rate: int | None, channels: int | None, block_frames: int
) -> Iterator[Audio]:
    """Convert and re-cut frames into blocks of block_frames, trimming or padding the tail so
    the total is the input length times the rate ratio, rounded."""
    blocks = _Blocks(sample_rate, channels, block_frames)
    for frame in frames:
        yield from blocks.push(frame)
    yield from blocks.finish()


class _Blocks:
    """_convert() fed one frame at a time (for a writer that is handed its audio)."""

    def __init__(self, sample_rate: int | None, channels: int | None, block_frames: int) -> None:
        self._converter = _Converter(sample_rate, channels)
        self._pending = _Pending()
        self._block_frames = block_frames

    def push(self, frame: AudioFrame) -> Iterator[Audio]:
        self._pending.extend(self._converter.push(frame))
        while self._pending.frames >= self._block_frames + _RESERVE_FRAMES:
            yield Audio(self._pending.take(self._block_frames), self._converter.rate)

    def finish(self) -> Iterator[Audio]:
        converter, pending = self._converter, self._pending
        pending.extend(converter.flush())
        pending.adjust(converter.expected_frames - converter.produced)
        while pending.frames > 0:
            yield Audio(pending.take(self._block_frames), converter.rate)


class _Pending:
    """Converted samples not yet handed out as a block."""

    def __init__(self) -> None:
        self._parts: list[Samples] = []
        self.frames = 0

    def extend(self, parts: list[Samples]) -> None:
        self._parts.extend(parts)
        self.frames += sum(part.shape[0] for part in parts)

    def take(self, count: int) -> Samples:
        joined = self._join()
        block, rest = joined[:count], joined[count:]
        self._parts = [rest] if rest.shape[0] else []
        self.frames = rest.shape[0]
        return block

    def adjust(self, delta: int) -> None:
        if delta == 0 or not self._parts:
            return
        joined = self._join()
        if delta < 0:
            joined = joined[: max(0, joined.shape[0] + delta)]
        else:
            padding = np.zeros((delta, joined.shape[1]), dtype=np.float32)
            joined = np.concatenate([joined, padding])
        self._parts = [joined]
        self.frames = joined.shape[0]

    def _join(self) -> Samples:
        if len(self._parts) == 1:
            return self._parts[0]
        return np.concatenate(self._parts)


def _frames_of(audio: Audio) -> Iterator[AudioFrame]:
    layout = _layout_name(audio.channels)
    for start in range(0, audio.frames, DEFAULT_BLOCK_FRAMES):
        chunk = np.ascontiguousarray(audio.samples[start : start + DEFAULT_BLOCK_FRAMES])
        frame = AudioFrame.from_ndarray(chunk.reshape(1, -1), format="flt", layout=layout)
        frame.sample_rate = audio.sample_rate
        frame.pts = start
        frame.time_base = Fraction(1, audio.sample_rate)
        yield frame


# Writing


def kept_rate(fmt: EncodeFormat, source_rate: int) -> int:
    """The rate closest to keeping `source_rate` that a `fmt` file holds: the source's own
    for WAV and FLAC (any rate), and for MP3 when it is one of the nine MPEG rates (8 to
    48 kHz); any other rate goes to MP3 at 44.1 or 48 kHz, in its rate family (88.2 kHz ->
    44.1 kHz, 96 kHz -> 48 kHz). Pass it as FileEncoder's `sample_rate`."""
    if fmt != "mp3" or source_rate in MPEG_SAMPLE_RATES:
        return source_rate
    return _mp3_rate(source_rate)


def _mp3_rate(source_rate: int) -> int:
    if source_rate in MP3_SAMPLE_RATES:
        return source_rate
    # Stay in the source's rate family (22.05k -> 44.1k, 16k -> 48k) for an integer ratio.
    return 44_100 if source_rate % 11_025 == 0 else 48_000


def _pcm_safe(samples: Samples) -> Samples:
    # libsndfile and LAME wrap rather than clip out-of-range floats.
    cleaned = np.nan_to_num(samples, nan=0.0, posinf=1.0, neginf=-1.0)
    return np.clip(cleaned, -1.0, 1.0, out=cleaned)


def _open_for_writing(
    path: Path, fmt: EncodeFormat, rate: int, channels: int, bit_depth: int
) -> sf.SoundFile:
    # soundfile (libsndfile) writes all three formats. WAV/FLAC: the PCM subtype is named
    # outright and there is no codec delay, so the file holds exactly the frames given. MP3:
    # libsndfile has LAME fill in its own Xing/LAME tag with the encoder delay and padding, and
    # decoders that read it (FFmpeg, mpg123) return exactly the frames given, at every length
    # tried. PyAV's libmp3lame (FFmpeg's wrapper and mp3 muxer) returned up to 46 extra samples
    # whenever the last 1152-sample frame held 46 or fewer.
    if fmt == "mp3":
        options: dict[str, object] = {
            "format": "MP3",
            "subtype": "MPEG_LAYER_III",
            "bitrate_mode": "CONSTANT",
            "compression_level": _MP3_COMPRESSION_LEVEL,
        }
    else:
        options = {"format": fmt.upper(), "subtype": f"PCM_{bit_depth}"}
    return sf.SoundFile(str(path), mode="w", samplerate=rate, channels=channels, **options)


# Streaming


class _Writer(Protocol):
    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...


class _NonSeekable:
    """What FFmpeg's muxers write to: they then leave their placeholders (WAV's 0xFFFFFFFF
    sizes, FLAC's unknown total) instead of seeking back to patch bytes already sent."""

    def __init__(self, out: _Writer) -> None:
        self._out = out

    def write(self, data: bytes) -> int:
        return self._out.write(data)

    def seekable(self) -> bool:
        return False

    def flush(self) -> None:
        self._out.flush()


# FFmpeg's muxers and encoders for the native formats, and each encoder's sample format.
_STREAM_CODECS: Final[dict[str, tuple[str, str]]] = {
    # format: (FFmpeg muxer, FFmpeg codec)
    "mp3": ("mp3", "libmp3lame"),
    "wav": ("wav", "pcm_s16le"),
    "flac": ("flac", "flac"),
}
_SAMPLE_FORMATS: Final[dict[str, str]] = {
    "libmp3lame": "s16p",
    "libopus": "flt",
    "aac": "fltp",
    "flac": "s16",
    "pcm_s16le": "s16",
    "pcm_mulaw": "s16",
    "pcm_alaw": "s16",
}
# Codecs that hold at most two channels here (Opus and AAC could carry more with a channel
# mapping; speech never needs it).
_STEREO_CODECS: Final = frozenset({"libmp3lame", "libopus", "aac"})
# libopus's default (unconstrained) VBR spent up to 29% over the named rate on a second of
# speech; constrained VBR keeps within a few percent, as a name like opus_48000_64 promises.
_CODEC_OPTIONS: Final[dict[str, dict[str, str]]] = {"libopus": {"vbr": "constrained"}}
# The Ogg muxer sends a page once it holds this much audio (microseconds; FFmpeg's default is
# a second): shorter pages reach a listener sooner at ~30 bytes of page header each.
_OGG_PAGE_MICROSECONDS: Final = 200_000
# FFmpeg's WAV header (RIFF, fmt, LIST of tags) ends well within this.
_WAV_HEADER_BYTES: Final = 4096


class StreamEncoder:
    """Encodes audio as it comes, for a listener who plays it before the end: every write()
    hands the encoded bytes to `out` and flushes it. The result is a valid stream of its
    format with its length unknown in the header (WAV sizes 0xFFFFFFFF, FLAC total 0, MP3
    without a LAME tag, so a player may add LAME's ~50 ms of delay and padding). For a file
    with exact headers, use encode(), or finalize() on the whole stream.

    `fmt` is a native format (MP3 at 44.1 or 48 kHz and 192 kb/s, WAV and FLAC at the
    input's rate) or an `Encoding`, whose rate and bit rate the output has exactly. Channels
    are the input's, at most two for MP3, Opus and AAC. Encoders that keep a frame's worth
    of audio (MP3, Opus, AAC) and the Ogg muxer (a page) send the end of a write with a later
    one, or at close()."""

    def __init__(
        self, out: _Writer, fmt: EncodeFormat | Encoding, sample_rate: int, channels: int
    ) -> None:
        _check_target(sample_rate, channels)
        if isinstance(fmt, Encoding):
            container, codec = fmt.container, fmt.codec
            self.sample_rate, bit_rate = fmt.sample_rate, fmt.bit_rate
        elif fmt in _STREAM_CODECS:
            container, codec = _STREAM_CODECS[fmt]
            self.sample_rate = _mp3_rate(sample_rate) if fmt == "mp3" else sample_rate
            bit_rate = MP3_BIT_RATE if fmt == "mp3" else None
        else:
            raise ValueError(f"unsupported format {fmt!r}")
        self.channels = min(channels, 2) if codec in _STEREO_CODECS else channels
        options = {"page_duration": str(_OGG_PAGE_MICROSECONDS)} if container == "ogg" else {}
        self._sink = _NonSeekable(out)
        self._container = av.open(self._sink, mode="w", format=container, options=options)
        layout = _layout_name(self.channels)
        stream = self._container.add_stream(codec, rate=self.sample_rate, layout=layout)
        assert isinstance(stream, AudioStream)
        self._stream: AudioStream = stream
        if bit_rate is not None:
            self._stream.bit_rate = bit_rate
        self._stream.codec_context.options = dict(_CODEC_OPTIONS.get(codec, {}))
        self._resampler = AudioResampler(
            format=_SAMPLE_FORMATS[codec],
            layout=layout,
            rate=self.sample_rate,
            options=dict(_RESAMPLER_OPTIONS),
        )
        self._input_rate, self._input_channels = sample_rate, channels
        self._pts = 0
        self._closed = False

    def write(self, audio: Audio) -> None:
        if (audio.sample_rate, audio.channels) != (self._input_rate, self._input_channels):
            raise ValueError("every block must have the stream's sample rate and channels")
        for frame in _frames_of(Audio(_pcm_safe(audio.samples.copy()), audio.sample_rate)):
            frame.pts = self._pts
            self._pts += frame.samples
            self._encode(self._resampler.resample(frame))
        self._sink.flush()

    def close(self) -> None:
        """Flush the encoder and write the trailer. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._encode(self._resampler.resample(None))
        for packet in self._stream.encode(None):
            self._container.mux(packet)
        self._container.close()
        self._sink.flush()

    def _encode(self, frames: list[AudioFrame]) -> None:
        for frame in frames:
            if frame is None:
                continue
            for packet in self._stream.encode(frame):
                self._container.mux(packet)


class EncodingFileEncoder:
    """FileEncoder's interface for a named encoding (media.encodings: the compatible APIs'
    output formats, at their exact rate and bit rate): StreamEncoder into a file as the
    blocks come (bounded memory), whose WAV header sizes are filled in at close(). Like
    StreamEncoder's output, an MP3 has no LAME tag (a player may add ~50 ms of delay and
    padding). close() puts the complete file at path; leaving the `with` block on an
    exception (or abort()) leaves no file."""

    def __init__(self, path: Path, fmt: Encoding) -> None:
        self.path, self.fmt = path, fmt
        self._partial = path.with_name(f".{path.name}.partial")
        self._file: io.BufferedWriter | None = None
        self._encoder: StreamEncoder | None = None
        self._input_rate = 0
        self._frames = 0

    def __enter__(self) -> EncodingFileEncoder:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            self.abort()

    def write(self, audio: Audio) -> None:
        if self._encoder is None:
            self._file = self._partial.open("wb")
            self._encoder = StreamEncoder(self._file, self.fmt, audio.sample_rate, audio.channels)
            self._input_rate = audio.sample_rate
        self._encoder.write(audio)
        self._frames += audio.frames

    def close(self) -> EncodedInfo:
        """Complete the file and put it at path: what was written."""
        if self._encoder is None or self._file is None or self._frames == 0:
            raise ValueError("audio has no frames")
        try:
            self._encoder.close()
            self._file.close()
            if self.fmt.container == "wav":
                _finalize_wav_file(self._partial)
            self._partial.replace(self.path)
        except (av.error.FFmpegError, OSError, ValueError) as exc:
            self.abort()
            raise OSError(f"could not write {self.fmt.name} to {self.path}: {exc}") from exc
        return EncodedInfo(
            size_bytes=self.path.stat().st_size,
            duration_ms=round(self._frames * 1000 / self._input_rate),
            content_type=self.fmt.content_type,
            sample_rate=self.fmt.sample_rate,
            channels=self._encoder.channels,
        )

    def abort(self) -> None:
        """Give up: no file is left at path (nor a partial one)."""
        if self._file is not None and not self._file.closed:
            self._file.close()
        self._partial.unlink(missing_ok=True)


def _finalize_wav_file(path: Path) -> None:
    """finalize() of a WAV stream in a file, in place: only its header is read and patched."""
    size = path.stat().st_size
    with path.open("r+b") as file:
        header = file.read(_WAV_HEADER_BYTES)
        offset = 12
        if header[:4] != b"RIFF" or header[8:12] != b"WAVE":
            raise ValueError("not a WAV stream")
        while offset + 8 <= len(header):
            if header[offset : offset + 4] == b"data":
                data_size = size - offset - 8
                if data_size % 2:  # a RIFF chunk of odd size is followed by a pad byte
                    file.seek(0, io.SEEK_END)
                    file.write(b"\0")
                    size += 1
                if size - 8 > 0xFFFF_FFFF:
                    raise ValueError("the WAV stream is too long for a RIFF file")
                file.seek(offset + 4)
                file.write(data_size.to_bytes(4, "little"))
                file.seek(4)
                file.write((size - 8).to_bytes(4, "little"))
                return
            chunk = int.from_bytes(header[offset + 4 : offset + 8], "little")
            offset += 8 + chunk + chunk % 2
    raise ValueError("the WAV stream has no data chunk")


def finalize(fmt: EncodeFormat | Encoding, data: bytes) -> bytes:
    """A whole stream that StreamEncoder wrote as `fmt`, made a file with exact headers, for
    an answer sent whole: WAV gets its RIFF and data sizes, FLAC its total sample count in
    STREAMINFO (its MD5 stays "unknown", as the format allows). Every other stream is already
    a complete file (MP3 is CBR, without a LAME tag) and comes back as it is. ValueError if
    the data is not a stream of that format."""
    container = fmt.container if isinstance(fmt, Encoding) else fmt
    if container == "wav":
        return _finalize_wav(data)
    if container == "flac":
        return _finalize_flac(data)
    return data


def _finalize_wav(data: bytes) -> bytes:
    out = bytearray(data)
    if out[:4] != b"RIFF" or out[8:12] != b"WAVE":
        raise ValueError("not a WAV stream")
    offset = 12
    while offset + 8 <= len(out):
        size = int.from_bytes(out[offset + 4 : offset + 8], "little")
        if out[offset : offset + 4] == b"data":
            data_size = len(out) - offset - 8
            if data_size % 2:
                out.append(0)  # a RIFF chunk of odd size is followed by a pad byte
            if len(out) - 8 > 0xFFFF_FFFF:
                raise ValueError("the WAV stream is too long for a RIFF file")
            out[offset + 4 : offset + 8] = data_size.to_bytes(4, "little")
            out[4:8] = (len(out) - 8).to_bytes(4, "little")
            return bytes(out)
        offset += 8 + size + size % 2
    raise ValueError("the WAV stream has no data chunk")


# STREAMINFO is the first metadata block, right after "fLaC" and its 4-byte header; its
# bytes 10..17 hold the rate (20 bits), channels (3), bits per sample (5) and total (36).
_FLAC_TOTAL_AT: Final = 4 + 4 + 10
_FLAC_TOTAL_BITS: Final = 36


def _finalize_flac(data: bytes) -> bytes:
    if data[:4] != b"fLaC" or data[4] & 0x7F != 0 or len(data) < _FLAC_TOTAL_AT + 8:
        raise ValueError("not a FLAC stream")
    try:
        with av.open(io.BytesIO(data), mode="r", format="flac") as container:
            stream = container.streams.audio[0]
            # The parser gives every frame's sample count without decoding it.
            total = sum(packet.duration or 0 for packet in container.demux(stream))
    except _MEDIA_ERRORS as exc:
        raise ValueError(f"not a FLAC stream: {exc}") from exc
    if total >= 1 << _FLAC_TOTAL_BITS:
        raise ValueError("the FLAC stream is too long for its header")
    out = bytearray(data)
    field = slice(_FLAC_TOTAL_AT, _FLAC_TOTAL_AT + 8)
    packed = int.from_bytes(out[field], "big") >> _FLAC_TOTAL_BITS << _FLAC_TOTAL_BITS
    out[field] = (packed | total).to_bytes(8, "big")
    return bytes(out)
