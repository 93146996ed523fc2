"""media.audio on real files: every input format decoded, WAV/FLAC/MP3 written and read back."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

import av
import numpy as np
import pytest
import soundfile as sf

from soundstage.media.audio import (
    MAX_CHANNELS,
    MIN_SAMPLE_RATE,
    Audio,
    EncodingFileEncoder,
    InvalidMedia,
    decode,
    encode,
    iter_decode,
    probe,
)
from soundstage.media.encodings import encoding

RATE = 44_100
SECONDS = 1.5
FRAMES = 66_150


def tone(rate: int = RATE, seconds: float = SECONDS, channels: int = 2) -> Audio:
    """440 Hz sine plus a quieter 100 Hz -> 3 kHz chirp; the right channel at half level."""
    t = np.arange(round(rate * seconds)) / rate
    sweep = 100 * t + (3_000 - 100) / (2 * seconds) * t**2
    left = 0.4 * np.sin(2 * np.pi * 440 * t) + 0.15 * np.sin(2 * np.pi * sweep)
    columns = [left, 0.5 * left][:channels] if channels <= 2 else [left] * channels
    return Audio(np.stack(columns, axis=1).astype(np.float32), rate)


def dominant_hz(audio: Audio) -> float:
    mono = audio.samples.mean(axis=1)
    spectrum = np.abs(np.fft.rfft(mono * np.hanning(len(mono))))
    return float(np.argmax(spectrum) * audio.sample_rate / len(mono))


def snr_db(reference: Audio, decoded: Audio) -> float:
    """SNR after the best gain, over the frames both have (same rate and channels)."""
    n = min(reference.frames, decoded.frames)
    ref, out = reference.samples[:n].astype(np.float64), decoded.samples[:n].astype(np.float64)
    gain = float(np.sum(ref * out) / np.sum(out * out))
    noise = ref - gain * out
    return float(10 * np.log10(np.sum(ref * ref) / np.sum(noise * noise)))


def write_with_pyav(
    path: Path,
    container_format: str,
    audio_codec: str | None,
    codec_rate: int,
    *,
    video_codec: str | None = None,
    audio_options: dict[str, str] | None = None,
) -> Path:
    """A file in a format media.audio does not write, made by FFmpeg's encoders."""
    source = tone()
    with av.open(str(path), "w", format=container_format) as out:
        video: Any = None
        if video_codec:
            video = out.add_stream(video_codec, rate=10)
            video.width, video.height, video.pix_fmt = 64, 64, "yuv420p"
        if audio_codec:
            stream: Any = out.add_stream(audio_codec, rate=codec_rate, options=audio_options or {})
            stream.layout = "stereo"
            frame = av.AudioFrame.from_ndarray(
                source.samples.reshape(1, -1), format="flt", layout="stereo"
            )
            frame.sample_rate, frame.pts, frame.time_base = RATE, 0, Fraction(1, RATE)
            # PyAV converts to the codec's format, rate and frame size itself.
            out.mux(stream.encode(frame))
            out.mux(stream.encode(None))
        if video is not None:
            for index in range(15):
                picture = np.full((64, 64, 3), index * 15, dtype=np.uint8)
                image = av.VideoFrame.from_ndarray(picture, format="rgb24")
                image.pts, image.time_base = index, Fraction(1, 10)
                out.mux(video.encode(image))
            out.mux(video.encode(None))
    return path


# name: container, audio codec, codec rate, video codec, encoder options, probe format, codec
FOREIGN: dict[str, tuple[str, str, int, str | None, dict[str, str], str, str]] = {
    "m4a": ("ipod", "aac", 44_100, None, {}, "mp4", "aac"),
    # FFmpeg's own Vorbis encoder (PyAV bundles no libvorbis); it only does stereo.
    "ogg": ("ogg", "vorbis", 44_100, None, {"strict": "experimental"}, "ogg", "vorbis"),
    "opus": ("ogg", "libopus", 48_000, None, {}, "ogg", "opus"),
    "mp4": ("mp4", "aac", 44_100, "libx264", {}, "mp4", "aac"),
    "mov": ("mov", "aac", 44_100, "mpeg4", {}, "mov", "aac"),
    "webm": ("webm", "libopus", 48_000, "libvpx", {}, "webm", "opus"),
    "mkv": ("matroska", "flac", 44_100, "mpeg4", {}, "matroska", "flac"),
}


@pytest.fixture(scope="module")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("foreign")
    return {
        name: write_with_pyav(
            folder / f"tone.{name}", fmt, codec, rate, video_codec=video, audio_options=options
        )
        for name, (fmt, codec, rate, video, options, _, _) in FOREIGN.items()
    }


@pytest.fixture(scope="module")
def wav(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wav") / "tone.wav"
    encode(tone(), path, "wav")
    return path


@pytest.fixture(scope="module")
def mp3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mp3") / "tone.mp3"
    encode(tone(), path, "mp3")
    return path


# Round trips through the module's own encoder


@pytest.mark.parametrize("fmt", ["wav", "flac"])
@pytest.mark.parametrize("bit_depth", [16, 24])
def test_lossless_round_trip_is_exact(
    tmp_path: Path, fmt: Literal["wav", "flac"], bit_depth: Literal[16, 24]
) -> None:
    source = tone()
    path = tmp_path / f"out.{fmt}"
    info = encode(source, path, fmt, bit_depth=bit_depth)

    written = sf.info(str(path))
    assert (written.format, written.subtype) == (fmt.upper(), f"PCM_{bit_depth}")
    assert written.frames == FRAMES
    assert info.size_bytes == path.stat().st_size
    assert info.content_type == {"wav": "audio/wav", "flac": "audio/flac"}[fmt]
    assert (info.duration_ms, info.sample_rate, info.channels) == (1500, RATE, 2)

    decoded = decode(path)
    assert (decoded.frames, decoded.sample_rate, decoded.channels) == (FRAMES, RATE, 2)
    assert decoded.duration_ms == 1500
    assert decoded.samples.dtype == np.float32
    # Within one quantisation step, so channel order and alignment are kept too.
    assert np.max(np.abs(decoded.samples - source.samples)) <= 2.0 ** -(bit_depth - 1)
    for channel in range(2):
        correlation = np.corrcoef(decoded.samples[:, channel], source.samples[:, channel])[0, 1]
        assert correlation > 0.9999


def test_wav_defaults_to_16_bit(tmp_path: Path) -> None:
    encode(tone(), tmp_path / "out.wav", "wav")
    encode(tone(), tmp_path / "out.flac", "flac")
    assert sf.info(str(tmp_path / "out.wav")).subtype == "PCM_16"
    assert sf.info(str(tmp_path / "out.flac")).subtype == "PCM_16"


@pytest.mark.parametrize(
    ("source_rate", "channels", "requested", "mp3_rate"),
    [
        (44_100, 2, None, 44_100),
        (48_000, 1, None, 48_000),
        (44_100, 2, 48_000, 48_000),
        (16_000, 1, None, 48_000),  # not an MP3 rate: resampled, staying in the 48k family
        (22_050, 2, None, 44_100),
    ],
)
def test_mp3_round_trip_keeps_length(
    tmp_path: Path, source_rate: int, channels: int, requested: int | None, mp3_rate: int
) -> None:
    source = tone(source_rate, channels=channels)
    path = tmp_path / "out.mp3"
    info = encode(source, path, "mp3", sample_rate=requested)

    assert info.content_type == "audio/mpeg"
    assert (info.sample_rate, info.channels, info.duration_ms) == (mp3_rate, channels, 1500)
    # 192 kb/s CBR for 1.5 s is 36 000 bytes, plus the LAME tag frame.
    assert 36_000 <= info.size_bytes == path.stat().st_size <= 39_000

    decoded = decode(path)
    # LAME's delay and padding are trimmed by the decoder from the LAME tag: not one frame more.
    assert decoded.frames == round(SECONDS * mp3_rate)
    assert (decoded.sample_rate, decoded.channels, decoded.duration_ms) == (
        mp3_rate,
        channels,
        1500,
    )
    assert dominant_hz(decoded) == pytest.approx(440, abs=2)
    back = decode(path, sample_rate=source_rate)
    assert back.frames == source.frames
    assert snr_db(source, back) > 40  # measured 72-77 dB on this signal


@pytest.mark.parametrize("frames", [1, 46, 47, 1151, 1152, 1153, 44_107])
def test_mp3_length_is_exact_at_awkward_lengths(tmp_path: Path, frames: int) -> None:
    # FFmpeg's libmp3lame muxing returned up to 46 extra samples when the last 1152-sample
    # frame held 46 or fewer; the encoder the module uses must not.
    source = Audio(tone(channels=1).samples[:frames], RATE)
    encode(source, tmp_path / "out.mp3", "mp3")
    assert decode(tmp_path / "out.mp3").frames == frames


def test_mp3_downmixes_surround_to_stereo(tmp_path: Path) -> None:
    info = encode(tone(channels=6), tmp_path / "out.mp3", "mp3")
    assert info.channels == 2
    decoded = decode(tmp_path / "out.mp3")
    assert (decoded.channels, decoded.frames) == (2, FRAMES)
    assert dominant_hz(decoded) == pytest.approx(440, abs=2)


def test_encode_resamples_on_request(tmp_path: Path) -> None:
    info = encode(tone(), tmp_path / "out.wav", "wav", sample_rate=16_000, bit_depth=24)
    assert (info.sample_rate, info.duration_ms) == (16_000, 1500)
    written = sf.info(str(tmp_path / "out.wav"))
    assert (written.samplerate, written.frames, written.subtype) == (16_000, 24_000, "PCM_24")


def test_encode_clips_instead_of_wrapping(tmp_path: Path) -> None:
    loud = np.array([[1.5], [-1.5], [np.nan], [0.25]], dtype=np.float32)
    encode(Audio(loud, 8_000), tmp_path / "out.wav", "wav")
    decoded = decode(tmp_path / "out.wav")
    assert decoded.samples[:, 0] == pytest.approx([1.0, -1.0, 0.0, 0.25], abs=1e-4)


def test_encode_writes_whole_files_only(tmp_path: Path) -> None:
    encode(tone(), tmp_path / "out.flac", "flac")
    assert [p.name for p in tmp_path.iterdir()] == ["out.flac"]
    with pytest.raises(OSError, match="could not write"):
        encode(tone(), tmp_path / "missing" / "out.wav", "wav")


def test_encode_rejects_bad_arguments(tmp_path: Path) -> None:
    path = tmp_path / "out"
    encode(tone(), path, "mp3", sample_rate=48_000)  # inside: an MP3 rate
    with pytest.raises(ValueError, match="MP3 sample_rate"):
        encode(tone(), path, "mp3", sample_rate=37_800)
    with pytest.raises(ValueError, match="bit depth"):
        encode(tone(), path, "mp3", bit_depth=16)
    with pytest.raises(ValueError, match="bit_depth"):
        encode(tone(), path, "wav", bit_depth=8)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unsupported format"):
        encode(tone(), path, "ogg")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no frames"):
        encode(Audio(np.zeros((0, 2), dtype=np.float32), RATE), path, "wav")


def test_audio_shape_and_duration() -> None:
    audio = Audio(np.zeros((16_001, 2), dtype=np.float32), 16_000)
    assert (audio.frames, audio.channels, audio.duration_ms) == (16_001, 2, 1000)
    assert Audio(np.zeros((16_009, 1), dtype=np.float32), 16_000).duration_ms == 1001
    with pytest.raises(ValueError, match="float32"):
        Audio(np.zeros((10, 2)), 16_000)  # type: ignore[arg-type]  # the wrong dtype on purpose
    with pytest.raises(ValueError, match="float32"):
        Audio(np.zeros(10, dtype=np.float32), 16_000)


# Formats the module only reads


@pytest.mark.parametrize("name", list(FOREIGN))
def test_decodes_other_formats(foreign: dict[str, Path], name: str) -> None:
    _, _, codec_rate, video, _, fmt, codec = FOREIGN[name]
    path = foreign[name]

    info = probe(path)
    assert fmt in info.format_name
    assert (info.audio_codec, info.sample_rate, info.channels) == (codec, codec_rate, 2)
    assert info.has_video is (video is not None)
    assert abs(info.duration_ms - 1500) <= 30

    decoded = decode(path)
    assert (decoded.sample_rate, decoded.channels) == (codec_rate, 2)
    assert abs(decoded.duration_ms - 1500) <= 30
    assert dominant_hz(decoded) == pytest.approx(440, abs=2)
    # Back at the source's rate the decoder's delay is gone: samples line up with the source.
    back = decode(path, sample_rate=RATE)
    assert abs(back.frames - FRAMES) <= 0.03 * RATE
    # Measured: AAC 26 dB, Vorbis 44, Opus 40, FLAC 89.
    assert snr_db(tone(), back) > (60 if codec == "flac" else 20)


def test_probe_reads_duration_from_packets_when_header_has_none(tmp_path: Path) -> None:
    class Unseekable:
        """A pipe: the Matroska muxer cannot go back to write the duration, as in browsers."""

        def __init__(self) -> None:
            self.data = bytearray()

        def write(self, chunk: bytes) -> int:
            self.data += chunk
            return len(chunk)

    sink = Unseekable()
    source = tone()
    with av.open(sink, "w", format="webm") as out:
        stream: Any = out.add_stream("libopus", rate=48_000)
        stream.layout = "stereo"
        frame = av.AudioFrame.from_ndarray(source.samples.reshape(1, -1), "flt", "stereo")
        frame.sample_rate, frame.pts, frame.time_base = RATE, 0, Fraction(1, RATE)
        out.mux(stream.encode(frame))
        out.mux(stream.encode(None))
    path = tmp_path / "recorded.webm"
    path.write_bytes(bytes(sink.data))
    with av.open(str(path)) as container:
        assert container.duration is None

    assert abs(probe(path).duration_ms - 1500) <= 30


def test_cover_art_is_not_video(tmp_path: Path) -> None:
    path = tmp_path / "cover.mp3"
    with av.open(str(path), "w", format="mp3") as out:
        audio: Any = out.add_stream("libmp3lame", rate=RATE)
        art: Any = out.add_stream("mjpeg", rate=1)
        art.width, art.height, art.pix_fmt = 16, 16, "yuvj420p"
        art.disposition = av.stream.Disposition.attached_pic
        frame = av.AudioFrame.from_ndarray(tone().samples.reshape(1, -1), "flt", "stereo")
        frame.sample_rate, frame.pts, frame.time_base = RATE, 0, Fraction(1, RATE)
        out.mux(audio.encode(frame))
        out.mux(audio.encode(None))
        picture = av.VideoFrame.from_ndarray(np.zeros((16, 16, 3), dtype=np.uint8), "rgb24")
        out.mux(art.encode(picture))
        out.mux(art.encode(None))
    assert probe(path).has_video is False
    assert decode(path).channels == 2


# Resampling and channels


@pytest.mark.parametrize("source", ["wav", "mp3"])
@pytest.mark.parametrize("rate", [16_000, 48_000])
def test_resampling_keeps_duration(request: pytest.FixtureRequest, source: str, rate: int) -> None:
    path: Path = request.getfixturevalue(source)
    resampled = decode(path, sample_rate=rate)
    assert resampled.sample_rate == rate
    assert resampled.frames == round(SECONDS * rate)
    assert resampled.duration_ms == 1500
    assert dominant_hz(resampled) == pytest.approx(440, abs=2)


def test_stereo_to_mono_averages_and_mono_to_stereo_copies(wav: Path, tmp_path: Path) -> None:
    source = tone()
    mono = decode(wav, channels=1)
    assert mono.channels == 1
    assert np.max(np.abs(mono.samples[:, 0] - source.samples.mean(axis=1))) < 1e-4

    encode(Audio(source.samples[:, :1].copy(), RATE), tmp_path / "mono.wav", "wav")
    stereo = decode(tmp_path / "mono.wav", channels=2)
    assert stereo.channels == 2
    assert np.array_equal(stereo.samples[:, 0], stereo.samples[:, 1])
    assert np.max(np.abs(stereo.samples[:, 0] - source.samples[:, 0])) < 1e-4


def test_decode_target_bounds(wav: Path) -> None:
    assert decode(wav, sample_rate=MIN_SAMPLE_RATE).frames == round(SECONDS * MIN_SAMPLE_RATE)
    assert decode(wav, channels=MAX_CHANNELS).channels == MAX_CHANNELS
    with pytest.raises(ValueError, match="sample_rate"):
        decode(wav, sample_rate=MIN_SAMPLE_RATE - 1)
    with pytest.raises(ValueError, match="channels"):
        decode(wav, channels=MAX_CHANNELS + 1)
    with pytest.raises(ValueError, match="channels"):
        decode(wav, channels=0)
    with pytest.raises(ValueError, match="block_frames"):
        iter_decode(wav, block_frames=0)


# Long inputs


@pytest.mark.parametrize("rate", [None, 16_000])
def test_iter_decode_matches_decode_in_bounded_blocks(tmp_path: Path, rate: int | None) -> None:
    path = tmp_path / "minute.flac"
    encode(tone(seconds=60, channels=1), path, "flac")
    block_frames = 16_384

    blocks = list(iter_decode(path, sample_rate=rate, block_frames=block_frames))

    assert all(block.frames == block_frames for block in blocks[:-1])
    assert 0 < blocks[-1].frames <= block_frames
    assert {block.sample_rate for block in blocks} == {rate or RATE}
    joined = np.concatenate([block.samples for block in blocks])
    whole = decode(path, sample_rate=rate)
    assert joined.shape == whole.samples.shape == (60 * (rate or RATE), 1)
    assert np.array_equal(joined, whole.samples)


# Undecodable input


def cut(source: Path, keep: int) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / f"cut{source.suffix}"
        path.write_bytes(source.read_bytes()[:keep])
        return path

    return make


def text(name: str, content: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        (folder / name).write_text(content)
        return folder / name

    return make


def noise(folder: Path) -> Path:
    path = folder / "noise.bin"
    path.write_bytes(np.random.default_rng(7).bytes(20_000))
    return path


def silent_video(folder: Path) -> Path:
    return write_with_pyav(folder / "silent.mp4", "mp4", None, RATE, video_codec="libx264")


def concat_list(wav: Path) -> Callable[[Path], Path]:
    """FFmpeg's concat demuxer would read the file it names and decode it as this upload."""

    def make(folder: Path) -> Path:
        (folder / "other.wav").write_bytes(wav.read_bytes())
        return text("upload.mp3", "ffconcat version 1.0\nfile other.wav\n")(folder)

    return make


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("text", "not a supported audio or video file"),
        ("empty", "empty"),
        ("noise", "not a supported audio or video file"),
        ("wav_header_cut", "damaged or truncated"),
        ("mp3_header_cut", "damaged or truncated"),
        ("no_audio", "no audio stream"),
        ("concat_list", "not a supported audio or video file"),
    ],
)
def test_undecodable_input_is_invalid_media(
    tmp_path: Path, wav: Path, mp3: Path, kind: str, message: str
) -> None:
    makers: dict[str, Callable[[Path], Path]] = {
        "text": text("notes.mp3", "This is not audio, whatever its name says.\n" * 40),
        "empty": text("empty.wav", ""),
        "noise": noise,
        "wav_header_cut": cut(wav, 22),  # half of the 44-byte RIFF/WAVE header
        "mp3_header_cut": cut(mp3, 313),  # half of the LAME tag frame that describes the stream
        "no_audio": silent_video,
        "concat_list": concat_list(wav),
    }
    path = makers[kind](tmp_path)
    attempts: list[Callable[[], object]] = [
        lambda: probe(path),
        lambda: decode(path),
        lambda: list(iter_decode(path, sample_rate=16_000)),
    ]
    for attempt in attempts:
        with pytest.raises(InvalidMedia, match=message) as caught:
            attempt()
        error = caught.value
        assert (error.status, error.code, error.param) == (422, "invalid_media", "audio_url")
    with pytest.raises(InvalidMedia) as caught:
        decode(path, param="file")
    assert caught.value.param == "file"


def test_audio_cut_short_decodes_what_is_there(tmp_path: Path, wav: Path) -> None:
    data = wav.read_bytes()
    cut = tmp_path / "half.wav"
    start = data.index(b"data") + 8  # past the data chunk's id and size
    cut.write_bytes(data[: start + 4 * 30_000])  # 30 000 stereo 16-bit frames
    assert decode(cut).frames == 30_000


def test_missing_file_is_the_callers_bug_not_invalid_media(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        decode(tmp_path / "never-downloaded.wav")


@pytest.mark.parametrize(
    ("name", "rate"), [("wav_22050", 22_050), ("mp3_44100_128", 44_100), ("opus_48000_64", 48_000)]
)
def test_a_named_encoding_is_written_to_a_file_block_by_block(
    tmp_path: Path, name: str, rate: int
) -> None:
    """A 48 kHz input in two blocks comes out at the encoding's rate, its length kept (MP3
    within LAME's delay and padding: no LAME tag), WAV with exact header sizes."""
    source = tone(48_000, SECONDS, channels=1)
    fmt = encoding(name)
    path = tmp_path / f"out.{fmt.container}"
    with EncodingFileEncoder(path, fmt) as encoder:
        encoder.write(Audio(source.samples[:30_000], 48_000))
        encoder.write(Audio(source.samples[30_000:], 48_000))
        info = encoder.close()
    assert (info.sample_rate, info.channels, info.content_type) == (rate, 1, fmt.content_type)
    assert info.duration_ms == round(SECONDS * 1000)
    back = decode(path)
    assert back.sample_rate == rate
    assert abs(back.frames / rate - SECONDS) < 0.08
    assert abs(dominant_hz(back) - 440) < 5
    if fmt.container == "wav":
        assert sf.info(str(path)).frames == round(SECONDS * rate)


def test_a_named_encoding_given_up_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "out.mp3"

    def fail_midway() -> None:
        with EncodingFileEncoder(path, encoding("mp3_44100_128")) as encoder:
            encoder.write(tone(48_000, 0.2, channels=1))
            raise RuntimeError("the job failed")

    with pytest.raises(RuntimeError):
        fail_midway()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="no frames"):
        EncodingFileEncoder(path, encoding("wav_16000")).close()
