"""Science-fiction sounds (beyond ESC-50): laser, spaceship engine hum, reactor drone, force
field. Detuned harmonic drones beating against each other, throbbing mains-like hums,
shimmering frequency-modulated tones and crackling discharges."""

from __future__ import annotations

import numpy as np

from soundstage.engines.sound import dsp
from soundstage.engines.sound.dsp import Signal
from soundstage.engines.sound.recipes.base import Take, recipe


@recipe(
    "laser",
    "Laser",
    "scifi",
    "a laser gun firing",
    "a sci-fi blaster shot",
    "pew pew lasers",
    "a ray gun zap",
    esc50=False,
)
def laser(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.2), (0.35, 0.9)):
        frames = dsp.seconds(take.uniform(0.15, 0.25) * take.span)
        fall = dsp.glide(frames, [take.uniform(2500, 4000), 900, 250])
        zap = dsp.odd_harmonics(fall * (1 + 0.05 * dsp.sine(60, frames)), frames, 8)
        dsp.place(out, dsp.normalized(zap * dsp.decay(frames, frames / dsp.RATE * 1.5)), at)
    return out


@recipe(
    "spaceship_hum",
    "Spaceship engine hum",
    "scifi",
    "a spaceship engine humming",
    "the deep hum of a starship drive",
    "a spacecraft interior drone",
    "the engine room of a starship",
    "a UFO hovering",
    esc50=False,
)
def spaceship_hum(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    base = take.uniform(38, 55)
    # Three detuned sawtooth stacks beat slowly against each other: the drive's hum.
    drone = sum(
        dsp.harmonics(
            base * detune * (1 + 0.003 * dsp.smooth_random(take.rng, frames, 0.3)), frames, 9.0, 30
        )
        for detune in (1.0, 1.004, 2.003)
    )
    # A resonance wandering through the low mids, as the hull's panels answer it.
    centre = 250 + 200 * (1 + dsp.smooth_random(take.rng, frames, 0.15))
    hum = dsp.sweep(np.asarray(drone), centre, 1.5, "lowpass")
    rumble = dsp.lowpass(dsp.brown(take.rng, frames), 90)
    air = dsp.bandpass(dsp.pink(take.rng, frames), 800, 4000) * 0.04
    whine = dsp.sine(take.uniform(2200, 3400) * (1 + 0.002 * np.sin(2 * np.pi * 0.2 * t)), frames)
    throb = 1 + 0.15 * take.intensity * np.sin(2 * np.pi * take.uniform(0.3, 0.7) * t)
    mix = dsp.unit(hum) * throb + 0.5 * dsp.unit(rumble) + air + 0.015 * whine
    return dsp.saturate(mix * 0.4, 1.0 + 0.5 * take.intensity) * dsp.adsr(frames, 0.4, 0.4)


@recipe(
    "reactor_drone",
    "Reactor drone",
    "scifi",
    "a nuclear reactor droning",
    "a throbbing power core",
    "a power plant generator humming",
    "an electrical transformer buzzing",
    esc50=False,
)
def reactor_drone(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    mains = take.rng.choice([50.0, 60.0])
    # Magnetostriction hums at twice the mains and its harmonics, buzzy and steady.
    buzz = dsp.harmonics(2 * mains, frames, 8.0, 40)
    buzz = dsp.formants(buzz, [(2 * mains, 30, 1.0), (6 * mains, 80, 0.5), (10 * mains, 150, 0.3)])
    # The core throbs: a slow pulse swelling a low resonance.
    pulse_hz = take.uniform(0.6, 1.2) / take.span
    pulse = (0.5 + 0.5 * np.sin(2 * np.pi * pulse_hz * t)) ** 3
    core = dsp.resonate(dsp.brown(take.rng, frames), take.uniform(55, 75), 4.0)
    # Arcing: rare sharp crackles.
    crackle = take.silence()
    for at in dsp.poisson_times(take.rng, 1.5 * take.intensity, take.length):
        frames_arc = dsp.seconds(take.uniform(0.02, 0.08))
        arc = dsp.highpass(dsp.burst(take.rng, frames_arc, 0.03), 2000)
        dsp.place(crackle, arc, float(at), take.uniform(0.2, 0.5))
    return (dsp.unit(buzz) * 0.5 + dsp.unit(core) * (0.4 + 0.8 * pulse) + crackle) * dsp.adsr(
        frames, 0.3, 0.3
    )


@recipe(
    "force_field",
    "Force field",
    "scifi",
    "a force field humming",
    "an energy shield shimmering",
    "a sci-fi barrier crackling with energy",
    "a protective energy dome",
    esc50=False,
)
def force_field(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    # A cluster of detuned tones, frequency-modulated fast: the shimmer.
    shimmer = np.zeros(frames)
    for _ in range(5):
        carrier = take.uniform(300, 900)
        wobble = take.uniform(5, 12)
        depth = take.uniform(0.01, 0.04)
        shimmer += dsp.sine(carrier * (1 + depth * np.sin(2 * np.pi * wobble * t)), frames)
    # An electric fizz gated at a low audio rate.
    gate = 0.5 + 0.5 * np.sin(2 * np.pi * take.uniform(20, 35) * t)
    fizz = dsp.bandpass(dsp.white(take.rng, frames), 1500, 6000) * gate
    hum = dsp.harmonics(take.uniform(70, 90), frames, 10.0, 12)
    zaps = take.silence()
    for at in dsp.poisson_times(take.rng, 0.8 * take.intensity, take.length):
        zap_frames = dsp.seconds(0.12)
        fall = dsp.glide(zap_frames, [take.uniform(3000, 5000), 600])
        zap = dsp.sine(fall, zap_frames) * dsp.decay(zap_frames, 0.1)
        dsp.place(zaps, zap, float(at), 0.5)
    swell = 1 + 0.2 * dsp.smooth_random(take.rng, frames, 0.5)
    mix = dsp.unit(shimmer) * swell + 0.3 * dsp.unit(fizz) + 0.4 * dsp.unit(hum) + zaps
    return mix * dsp.adsr(frames, 0.3, 0.3)
