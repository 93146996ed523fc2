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
    """Gain to TARGET_LUFS and a limiter at the ceiling, repeated until the limited result
    measures on target (the limiter takes a little loudness off the loudest passages) and its
    true peak (between the samples, as a decoder or DAC rebuilds them) is under the ceiling.
    Also the gain applied before the limiter and the loudness reached.

    Peaks are held by the limiter, never clipped: clipping the limiter's overshoot at the
    ceiling sample by sample left true peaks up to +0.6 dBFS, and MP3 at 192 kb/s decoded to
    1.02-1.06 on 2 seeds out of 10; limited to -1 dBTP every seed decodes under 1.0."""
    ceiling_db = PEAK_CEILING_DB
    gain = 1.0
    measured = _loudness(meter, mix)
    if measured is None:
        return mix, 1.0, float("-inf")
    limited = mix
    threshold_db = ceiling_db - 0.5
    for _ in range(6):
        gain *= 10 ** ((TARGET_LUFS - measured) / 20)
        limiter = Limiter(threshold_db=threshold_db, release_ms=80)
        limited = _process(limiter, mix * np.float32(gain), rate)
        measured = _loudness(meter, limited) or TARGET_LUFS
        over_db = 20 * np.log10(max(true_peak(limited), 1e-9)) - ceiling_db
        if over_db > 0:
            threshold_db -= over_db + 0.1
        elif abs(measured - TARGET_LUFS) < 0.2:
            break
    # Whatever overshoot is left comes off the whole master, not off the peaks alone.
    over = true_peak(limited) / 10 ** (ceiling_db / 20)
    if over > 1.0:
        limited = (limited / np.float32(over)).astype(np.float32)
        measured = _loudness(meter, limited) or measured
    return limited, gain, measured


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
