"""Mixing the stems and mastering the mix: per-part EQ and compression, part levels balanced by
loudness, one shared reverb, bus compression, the closing fade, then -14 LUFS integrated
(ITU-R BS.1770, pyloudnorm) under a limiter that keeps the true peaks below -1 dBTP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt
import soxr
from pedalboard._pedalboard import Pedalboard
from pedalboard_native import Compressor, HighpassFilter, Limiter, PeakFilter, Plugin, Reverb

from soundstage.media.audio import Audio

if TYPE_CHECKING:  # pyloudnorm and scipy are imported where used: an API process never does
    import pyloudnorm

TARGET_LUFS: Final = -14.0
PEAK_CEILING_DB: Final = -1.0
# True peak: 4x oversampled, in blocks with margins wider than the interpolation filter.
_OVERSAMPLING: Final = 4
_PEAK_BLOCK: Final = 1 << 15
_PEAK_MARGIN: Final = 256
FADE_IN_S: Final = 0.01
# The limiter's threshold (its output is raised by as much: see loudness_master), the passes
# of the loudness search at most, and how close to TARGET_LUFS ends it.
_LIMITER_THRESHOLD_DB: Final = -1.5
_PASSES: Final = 6
_LOUDNESS_TOLERANCE: Final = 0.2
_BALANCE_RATE: Final = 11_025
Stereo = npt.NDArray[np.float32]

# Each part's loudness relative to the others (LUFS of the stem before the master), its
# reverb send and its channel strip.
_LEVELS: Final = {
    "drums": -19.0,
    "bass": -20.0,
    "chords": -21.0,
    "pad": -25.0,
    "lead": -20.0,
    "vocals": -17.0,
}
_SENDS: Final = {"drums": 0.08, "bass": 0.0, "chords": 0.5, "pad": 0.8, "lead": 0.6, "vocals": 0.5}


def _strip(role: str) -> Pedalboard:
    if role == "drums":
        return Pedalboard([Compressor(threshold_db=-16, ratio=3, attack_ms=8, release_ms=90)])
    if role == "bass":
        return Pedalboard(
            [
                HighpassFilter(cutoff_frequency_hz=32),
                Compressor(threshold_db=-20, ratio=4, attack_ms=10, release_ms=120),
            ]
        )
    if role == "vocals":
        return Pedalboard(
            [
                HighpassFilter(cutoff_frequency_hz=90),
                Compressor(threshold_db=-22, ratio=3, attack_ms=5, release_ms=100),
                PeakFilter(cutoff_frequency_hz=3000, gain_db=2.5, q=0.8),
            ]
        )
    cutoff = {"chords": 140, "pad": 200, "lead": 180}.get(role, 120)
    return Pedalboard([HighpassFilter(cutoff_frequency_hz=cutoff)])


@dataclass(frozen=True)
class Master:
    mix: Audio
    # Each input stem as it sits in the master (after its strip, level and the master gain).
    stems: dict[str, Audio]
    loudness_lufs: float


def master(
    stems: dict[str, tuple[str, Audio]],
    *,
    reverb: float,
    room: float,
    fade_s: float,
    keep: tuple[str, ...] = ("vocals",),
) -> Master:
    """Mix stems {name: (role, stereo audio)} of one length and rate into the master; the
    stems of the roles in `keep` are returned as they sit in it. `stems` is consumed: each
    stem leaves it as it is mixed (a long piece's stems are large), so that a caller holding
    no other reference holds one stem at a time, not the whole band twice."""
    first = next(iter(stems.values()))[1]
    rate, frames = first.sample_rate, first.frames
    del first
    mix, send, kept = _mix(stems, frames, reverb=reverb, keep=keep)
    mix = _bus(mix, send, rate, reverb=reverb, room=room)
    del send
    envelope = fades(frames, rate, fade_s)
    mix *= envelope[:, None]
    mastered, gain, loudness = loudness_master(mix, rate, _meter(rate))
    return Master(
        Audio(mastered, rate),
        {
            name: Audio(_stereo(placed * envelope[:, None] * gain), rate)
            for name, placed in kept.items()
        },
        loudness,
    )


def _meter(rate: int) -> pyloudnorm.Meter:
    """An ITU-R BS.1770 loudness meter at `rate`."""
    import pyloudnorm

    return pyloudnorm.Meter(rate)


def _mix(
    stems: dict[str, tuple[str, Audio]], frames: int, *, reverb: float, keep: tuple[str, ...]
) -> tuple[Stereo, Stereo, dict[str, Stereo]]:
    """The parts summed at their levels, the reverb's send, and the placed stems of the kept
    roles; each stem is popped from `stems` and dropped once mixed."""
    # Balancing parts needs their relative loudness, not the last tenth of a dB: measured at
    # a quarter of the rate, four times faster.
    balance_meter = _meter(_BALANCE_RATE)
    mix = np.zeros((frames, 2), dtype=np.float32)
    send = np.zeros((frames, 2), dtype=np.float32)
    kept: dict[str, Stereo] = {}
    for name in list(stems):
        role, audio = stems.pop(name)
        placed, audible = _leveled(role, audio, balance_meter)
        del audio
        if audible:
            mix += placed
            send += placed * np.float32(_SENDS.get(role, 0.3) * reverb)
        if role in keep:
            kept[name] = placed
    return mix, send, kept


def _leveled(role: str, audio: Audio, meter: pyloudnorm.Meter) -> tuple[Stereo, bool]:
    """The stem through its part's channel strip at its part's level; False for a silent
    one (nothing to level, nothing to mix)."""
    rate = audio.sample_rate
    processed = _process(_strip(role), _stereo(audio.samples), rate)
    level = _loudness(meter, soxr.resample(processed, rate, _BALANCE_RATE))
    if level is None:
        return processed, False
    processed *= np.float32(10 ** ((_LEVELS.get(role, -21.0) - level) / 20))
    return processed, True


def _bus(mix: Stereo, send: Stereo, rate: int, *, reverb: float, room: float) -> Stereo:
    """The band's shared reverb (fed by the parts' sends) and the bus compressor."""
    if reverb > 0:
        space = Reverb(room_size=room, damping=0.5, wet_level=1.0, dry_level=0.0, width=1.0)
        mix += _process(space, send, rate)
    glue = Pedalboard(
        [
            HighpassFilter(cutoff_frequency_hz=25),
            Compressor(threshold_db=-18, ratio=2, attack_ms=20, release_ms=200),
        ]
    )
    return _process(glue, mix, rate)


def fades(frames: int, rate: int, fade_s: float) -> npt.NDArray[np.float32]:
    """A 10 ms fade-in and a raised-cosine fade-out over the last fade_s seconds."""
    envelope = np.ones(frames, dtype=np.float32)
    fade_in = min(frames, round(FADE_IN_S * rate))
    envelope[:fade_in] = np.linspace(0, 1, fade_in, dtype=np.float32)
    fade_out = min(frames, round(fade_s * rate))
    if fade_out > 0:
        curve = 0.5 * (1 + np.cos(np.linspace(0, np.pi, fade_out)))
        envelope[frames - fade_out :] *= curve.astype(np.float32)
    return envelope


def loudness_master(mix: Stereo, rate: int, meter: pyloudnorm.Meter) -> tuple[Stereo, float, float]:
    """The master at TARGET_LUFS with its true peak (between the samples, as a decoder or DAC
    rebuilds them) at most at the ceiling: a gain, pedalboard's Limiter, then the limited
    audio scaled down as a whole until its true peak is at the ceiling. The gain is searched
    (secant steps on the loudness reached; 2 to 5 passes on the genres' pieces) until the
    result measures on target.
    Also the gain from the mix to the master outside the peaks (for the stems) and the
    loudness reached.

    pedalboard's Limiter (JUCE's) is no ceiling of its own: whatever its threshold, it raises
    its output by as much (its threshold comes out at 0 dBFS) and its true peaks pass that.
    Lowering its threshold until they were under the ceiling never got there (each pass raised
    the output again): 6 passes for every piece, then the same scaling down as here; 21 of the
    24 s of a 5-minute piece went on it. Scaled as a whole, nothing is clipped: clipped at the
    ceiling sample by sample, true peaks reached +0.6 dBFS, and MP3 at 192 kb/s decoded to
    1.02-1.06 on 2 seeds out of 10; under the ceiling every seed decodes under 1.0."""
    measured = _loudness(meter, mix)
    if measured is None:
        return mix, 1.0, float("-inf")
    ceiling = 10 ** (PEAK_CEILING_DB / 20)
    makeup = 10 ** (-_LIMITER_THRESHOLD_DB / 20)
    # First guess: the mix on target through the limiter, less the limiter's own raise.
    gain_db = TARGET_LUFS - measured + _LIMITER_THRESHOLD_DB
    tried: list[tuple[float, float]] = []  # (gain in dB, loudness reached)
    master, gain, reached = mix, 1.0, measured
    for _ in range(_PASSES):
        limiter = Limiter(threshold_db=_LIMITER_THRESHOLD_DB, release_ms=80)
        master = _process(limiter, mix * np.float32(10 ** (gain_db / 20)), rate)
        scale = min(1.0, ceiling / max(true_peak(master), 1e-9))
        master *= np.float32(scale)
        gain = 10 ** (gain_db / 20) * makeup * scale
        reached = _loudness(meter, master) or TARGET_LUFS
        if abs(reached - TARGET_LUFS) < _LOUDNESS_TOLERANCE:
            break
        tried.append((gain_db, reached))
        gain_db += _next_step(tried)
    return master, gain, reached


def _next_step(tried: list[tuple[float, float]]) -> float:
    """The change of gain (dB) toward TARGET_LUFS after the passes tried: the miss itself
    after one (unlimited, a dB of gain is a dB of loudness), then a secant step (the limiter
    gives less than a dB of loudness for a dB of gain). The slope is held between 0.3 and 1:
    measured between two close passes it can come out flat or even negative (the true peak
    moves too), and a step from it would overshoot by far."""
    gain_db, reached = tried[-1]
    slope = 1.0
    if len(tried) > 1:
        before_db, before = tried[-2]
        if gain_db != before_db:
            slope = min(1.0, max(0.3, (reached - before) / (gain_db - before_db)))
    return (TARGET_LUFS - reached) / slope


def true_peak(samples: Stereo) -> float:
    """The highest absolute value of the signal between its samples too (4x oversampling, as
    ITU-R BS.1770-4 measures true peak), a block at a time: the oversampled copy of a whole
    piece would take four times the memory of the mix."""
    from scipy.signal import resample_poly  # imported where used: not by an API process

    peak = 0.0
    frames = samples.shape[0]
    for start in range(0, frames, _PEAK_BLOCK):
        # Each block with a margin the interpolation filter reaches into, which is dropped.
        low, high = max(0, start - _PEAK_MARGIN), min(frames, start + _PEAK_BLOCK + _PEAK_MARGIN)
        upsampled = resample_poly(samples[low:high], _OVERSAMPLING, 1, axis=0)
        inner = upsampled[
            (start - low) * _OVERSAMPLING : (min(frames, start + _PEAK_BLOCK) - low) * _OVERSAMPLING
        ]
        peak = max(peak, float(np.max(np.abs(inner))))
    return peak


def _loudness(meter: pyloudnorm.Meter, samples: Stereo) -> float | None:
    """Integrated loudness in LUFS; None for silence (or anything too short to gate)."""
    if samples.shape[0] < meter.rate * 0.4 or not np.any(samples):
        return None
    value = float(meter.integrated_loudness(samples))
    return value if np.isfinite(value) else None


def _process(effect: Plugin, samples: Stereo, rate: int) -> Stereo:
    """Run a pedalboard effect on (frames, channels) audio (it works on channels first)."""
    return _stereo(effect(np.ascontiguousarray(samples.T), rate).T)


def _stereo(samples: npt.NDArray[np.floating]) -> Stereo:
    if samples.ndim == 1:
        samples = samples[:, None]
    if samples.shape[1] == 1:
        samples = np.repeat(samples, 2, axis=1)
    return np.ascontiguousarray(samples, dtype=np.float32)
