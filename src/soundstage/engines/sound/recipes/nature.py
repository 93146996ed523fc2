"""Natural soundscapes and water (ESC-50): rain, sea waves, crackling fire, crickets, chirping
birds, water drops, wind, pouring water, toilet flush, thunderstorm. Filtered and modulated
noise beds with granular layers of drops, crackles, chirps and bubbles."""

from __future__ import annotations

import numpy as np

from soundstage.engines.sound import dsp
from soundstage.engines.sound.dsp import Signal
from soundstage.engines.sound.recipes.base import Take, recipe


def bubble(rng: np.random.Generator, radius_mm: float, length: float = 0.06) -> Signal:
    """A bubble (Minnaert resonance, 3.26 kHz at 1 mm) whose pitch rises as it reaches the
    surface: the sound of drips and pouring."""
    frames = dsp.seconds(length)
    freq = 3260.0 / radius_mm
    rise = freq * (1 + 1.2 * dsp.timeline(frames) / length)
    return dsp.sine(rise, frames) * dsp.decay(frames, length) * dsp.adsr(frames, 0.001, 0.005)


def rain_bed(take: Take) -> Signal:
    frames = take.frames
    hiss = dsp.bandpass(dsp.pink(take.rng, frames), 500, 9000) * 0.35
    times = dsp.poisson_times(take.rng, 450 * take.intensity, take.length)
    gains = np.minimum(take.rng.pareto(3.0, times.shape[0]), 1.5)
    kernels = [dsp.burst(take.rng, dsp.seconds(0.012), t60) for t60 in np.linspace(0.004, 0.012, 6)]
    drops = dsp.sprinkle(frames, times, gains, kernels, take.rng)
    drops = dsp.highpass(drops, 1200)
    for at in dsp.poisson_times(take.rng, 6 * take.intensity, take.length):
        dsp.place(drops, bubble(take.rng, take.uniform(1.2, 3.0), 0.04), at, 0.25)
    swell = 1 + 0.15 * dsp.smooth_random(take.rng, frames, 0.3)
    bed: Signal = (hiss * np.sqrt(take.intensity) + 0.25 * dsp.unit(drops)) * swell
    return bed


@recipe(
    "rain",
    "Rain",
    "nature",
    "rain falling",
    "a rain shower pattering on the ground",
    "heavy rainfall downpour",
    "raindrops on a window",
    "drizzle",
    wide=True,
)
def rain(take: Take) -> Signal:
    return rain_bed(take) * dsp.adsr(take.frames, 0.3, 0.3)


@recipe(
    "sea_waves",
    "Sea waves",
    "nature",
    "ocean waves crashing on the shore",
    "sea waves on a beach",
    "surf breaking",
    "the tide washing over pebbles",
)
def sea_waves(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    swell = np.zeros(frames)
    at = -take.uniform(0, 4)
    while at < take.length:
        period = take.uniform(5.0, 8.0) / max(take.intensity, 0.3) ** 0.3
        # Each wave builds, crashes (bright) and washes back (hiss receding).
        x = (t - at) / period
        shape = np.where((x > 0) & (x < 1), np.sin(np.pi * np.clip(x, 0, 1) ** 0.6) ** 2, 0.0)
        swell += shape * take.uniform(0.7, 1.0)
        at += period * take.uniform(0.75, 0.95)
    swell = np.clip(swell, 0, 1.3)
    noise = dsp.pink(take.rng, frames)
    roar = dsp.sweep(noise, 300 + 3500 * swell**2, 0.7, "lowpass")
    rumble = dsp.lowpass(dsp.brown(take.rng, frames), 180)
    fizz = dsp.highpass(dsp.white(take.rng, frames), 4000) * 0.15
    return (roar + 0.6 * rumble) * (0.15 + swell) + fizz * swell**3


@recipe(
    "crackling_fire",
    "Crackling fire",
    "nature",
    "a crackling fire",
    "logs burning in a fireplace",
    "a campfire popping and crackling",
    "flames roaring",
)
def crackling_fire(take: Take) -> Signal:
    frames = take.frames
    roar = dsp.lowpass(dsp.brown(take.rng, frames), 400) * (
        1 + 0.3 * dsp.smooth_random(take.rng, frames, 2.0)
    )
    hiss = dsp.bandpass(dsp.white(take.rng, frames), 2000, 8000) * 0.05
    crackle = take.silence()
    for at in dsp.poisson_times(take.rng, 14 * take.intensity, take.length):
        # Bursts of pops: wood cells bursting, a few in quick succession.
        for i in range(int(take.rng.integers(1, 5))):
            pop = dsp.burst(take.rng, dsp.seconds(0.01), take.uniform(0.001, 0.006))
            pop = dsp.highpass(pop, take.uniform(800, 2500))
            dsp.place(crackle, pop, at + i * take.uniform(0.005, 0.03), take.rng.pareto(2.0) + 0.2)
    return 0.12 * roar + hiss + 0.8 * dsp.normalized(crackle)


@recipe(
    "crickets",
    "Crickets chirping",
    "nature",
    "crickets chirping at night",
    "a summer night with crickets",
    "cicadas and crickets trilling",
    wide=True,
)
def crickets(take: Take) -> Signal:
    out = take.silence()
    for _ in range(max(1, round(take.uniform(2, 4) * take.intensity))):
        carrier = take.uniform(3800, 5200)
        pulse_rate = take.uniform(25, 35)
        pulses = int(take.rng.integers(3, 5))
        gain = take.uniform(0.4, 1.0)
        frames = dsp.seconds(0.014)
        pulse = dsp.sine(carrier, frames) * dsp.adsr(frames, 0.003, 0.006)
        for at in dsp.series(take.rng, take.length, (0.0, 0.4), (0.3, 0.5)):
            for p in range(pulses):
                dsp.place(out, pulse, at + p / pulse_rate, gain)
    return out


@recipe(
    "chirping_birds",
    "Birds chirping",
    "nature",
    "birds chirping",
    "songbirds singing in the morning",
    "birdsong in a forest",
    "sparrows tweeting",
    wide=True,
)
def chirping_birds(take: Take) -> Signal:
    out = take.silence()
    for _ in range(max(1, round(take.uniform(2, 4) * take.intensity))):
        pitch = take.uniform(2500, 5000)
        gain = take.uniform(0.3, 1.0)
        for at in dsp.series(take.rng, take.length, (0.0, 1.0), (0.6, 2.2)):
            # A phrase: a few quick frequency sweeps or a trill.
            for i in range(int(take.rng.integers(2, 7))):
                frames = dsp.seconds(take.uniform(0.03, 0.09) * take.span)
                top = pitch * take.uniform(0.8, 1.3)
                shape = [top * 0.7, top, top * 0.8] if i % 2 else [top, top * 0.6]
                chirp = dsp.sine(dsp.glide(frames, shape), frames) * dsp.adsr(frames, 0.005, 0.01)
                dsp.place(out, chirp, at + i * take.uniform(0.06, 0.12), gain)
    return out + 0.02 * dsp.bandpass(dsp.pink(take.rng, take.frames), 200, 3000)


@recipe(
    "water_drops",
    "Water dripping",
    "nature",
    "water dripping",
    "drops of water falling into a puddle",
    "a leaky tap dripping",
    "drips in a cave",
)
def water_drops(take: Take) -> Signal:
    out = take.silence()
    period = take.uniform(0.35, 0.8) / take.intensity
    for at in dsp.series(take.rng, take.length, (0.05, 0.3), (period * 0.7, period * 1.3)):
        dsp.place(
            out,
            bubble(take.rng, take.uniform(2.0, 4.0), 0.05 * take.span),
            at,
            take.uniform(0.5, 1.0),
        )
    room = dsp.impulse_response(take.rng, 0.9)
    return out + 0.5 * dsp.convolve(out, room)


@recipe(
    "wind",
    "Wind",
    "nature",
    "wind blowing",
    "a gusty wind howling",
    "a strong gale whistling through trees",
    "a breeze",
    wide=True,
)
def wind(take: Take) -> Signal:
    frames = take.frames
    gust = 0.5 + 0.5 * dsp.smooth_random(take.rng, frames, 0.35)
    noise = dsp.pink(take.rng, frames)
    body = dsp.sweep(noise, 250 + 900 * gust * take.intensity, 1.5)
    whistle = dsp.sweep(noise, 600 + 700 * gust, 12.0) * 0.6
    return (body + whistle) * (0.2 + gust) * dsp.adsr(frames, 0.4, 0.4)


@recipe(
    "pouring_water",
    "Pouring water",
    "nature",
    "water pouring into a glass",
    "pouring a drink",
    "filling a jug from a tap",
    "liquid being poured",
    "a babbling stream of running water",
)
def pouring_water(take: Take) -> Signal:
    frames = take.frames
    stream = dsp.bandpass(dsp.white(take.rng, frames), 800, 6000) * 0.2
    bubbles = take.silence()
    pour = min(take.length, take.uniform(2.5, 4.0) * take.span + take.length * 0.4)
    for at in dsp.poisson_times(take.rng, 70 * take.intensity, pour):
        # The vessel fills: smaller air pockets, higher pitch.
        radius = take.uniform(1.5, 4.5) * (1 - 0.4 * at / pour)
        dsp.place(bubbles, bubble(take.rng, radius, 0.03), at, take.uniform(0.2, 1.0))
    cavity = dsp.sweep(dsp.pink(take.rng, frames), dsp.glide(frames, [400, 1400]), 4.0) * 0.3
    envelope = dsp.fit(dsp.adsr(dsp.seconds(pour), 0.1, 0.3), frames)
    return (stream + bubbles + cavity) * envelope


@recipe(
    "toilet_flush",
    "Toilet flushing",
    "nature",
    "a toilet flushing",
    "flushing the toilet in a bathroom",
    "a loo flush and cistern refilling",
)
def toilet_flush(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    flush = dsp.lowpass(dsp.white(take.rng, frames), 2500)
    gush = np.exp(-t / (1.6 * take.span)) * dsp.adsr(frames, 0.08, 0.1)
    gurgle = take.silence()
    for at in dsp.poisson_times(take.rng, 25, min(take.length, 3.5 * take.span)):
        dsp.place(gurgle, bubble(take.rng, take.uniform(4, 9), 0.07), at, take.uniform(0.3, 1))
    refill = dsp.bandpass(dsp.white(take.rng, frames), 1500, 5000) * 0.12
    refill *= np.clip((t - 2.5 * take.span) / 1.0, 0, 1)
    return flush * gush + 0.6 * gurgle * np.exp(-t / 2.5) + refill


def thunder(take: Take, distance: float) -> Signal:
    """One thunderclap: a crack (the nearer, the louder) and a long rolling rumble of many
    overlapping echoes."""
    length = take.uniform(3.0, 5.0) * take.span
    rumble = np.zeros(dsp.seconds(length))
    for _ in range(int(take.rng.integers(6, 12))):
        part = dsp.seconds(take.uniform(0.5, 2.0))
        roll = dsp.lowpass(dsp.brown(take.rng, part), 450) * dsp.adsr(part, 0.05, 0.6)
        dsp.place(rumble, roll, take.uniform(0, length * 0.6), take.uniform(0.4, 1))
    rumble *= dsp.decay(rumble.shape[0], length * 1.2)
    out = dsp.normalized(rumble)
    crack = dsp.lowpass(dsp.burst(take.rng, dsp.seconds(0.4), 0.3), 5000)
    dsp.place(out, dsp.normalized(crack), 0.0, 0.5 * (1 - distance))
    return out


@recipe(
    "thunderstorm",
    "Thunderstorm",
    "nature",
    "a thunderstorm",
    "thunder rumbling during a storm",
    "lightning and thunder with rain",
    "a rumble of thunder",
)
def thunderstorm(take: Take) -> Signal:
    out = rain_bed(take) * 0.5
    for at in dsp.series(take.rng, take.length, (0.1, 1.0), (4.0, 8.0)):
        distance = take.uniform(0.0, 0.7)
        dsp.place(out, thunder(take, distance), at, 2.5 * (1 - 0.5 * distance))
    return out * dsp.adsr(take.frames, 0.2, 0.3)
