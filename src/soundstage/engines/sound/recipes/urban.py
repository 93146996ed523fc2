"""Exterior and urban noises (ESC-50): helicopter, chainsaw, siren, car horn, engine, train,
church bells, airplane, fireworks, hand saw. Engines are firing-pulse trains through exhaust
resonances; bells are inharmonic modal partials; flybys are Doppler-shifted and comb-filtered.
Beyond ESC-50: gunshots (General MIDI), and vehicles: a car revving, a motorcycle, a truck, a
propeller plane, a jet engine."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from soundstage.engines.sound import dsp, gm
from soundstage.engines.sound.dsp import Signal
from soundstage.engines.sound.recipes.base import Take, recipe


def firing(
    take: Take, rpm_hz: Signal | float, exhaust: Sequence[tuple[float, float, float]]
) -> Signal:
    """An engine: one pulse per firing, rough from cycle to cycle, through the exhaust."""
    frames = take.frames
    pulses = dsp.pulses(rpm_hz, frames, take.rng, jitter=0.04)
    pulses = dsp.lowpass(pulses * (0.7 + 0.6 * take.rng.random(frames)), 4000)
    return dsp.unit(dsp.formants(pulses, exhaust)) + 0.15 * dsp.unit(
        dsp.lowpass(dsp.pink(take.rng, frames), 2000)
    )


@recipe(
    "helicopter",
    "Helicopter",
    "urban",
    "a helicopter flying overhead",
    "chopper rotor blades thumping",
    "a helicopter hovering",
)
def helicopter(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    blade_rate = take.uniform(12, 19)  # main-rotor blade passes a second
    # Blade slap: each pass a short low-mid thump.
    slap = np.zeros(frames)
    chop = dsp.seconds(0.03)
    for at in np.arange(0, take.length, 1 / blade_rate):
        thump = dsp.bandpass(dsp.burst(take.rng, chop, 0.02), 80, 900)
        dsp.place(slap, thump, float(at), take.uniform(0.8, 1.0))
    turbine = dsp.sine(take.uniform(3500, 5000) * (1 + 0.01 * np.sin(t)), frames) * 0.03
    # The tail rotor: a buzz several times faster than the main rotor.
    tail = dsp.harmonics(blade_rate * take.uniform(5.0, 6.5), frames, 9.0, 12) * 0.06
    wash = dsp.lowpass(dsp.pink(take.rng, frames), 1500) * 0.2
    nearness = 0.6 + 0.4 * np.sin(np.pi * np.clip(t / take.length, 0, 1))
    return (dsp.normalized(slap) + turbine + tail + wash) * nearness * dsp.adsr(frames, 0.5, 0.5)


@recipe(
    "chainsaw",
    "Chainsaw",
    "urban",
    "a chainsaw cutting wood",
    "a chainsaw revving",
    "a lumberjack sawing a tree with a power saw",
)
def chainsaw(take: Take) -> Signal:
    frames = take.frames
    # Idle, then revs under load, with throttle blips.
    throttle = np.clip(0.5 + 0.7 * dsp.smooth_random(take.rng, frames, 0.8), 0, 1)
    rpm = 60 + 170 * throttle
    engine = firing(take, rpm, [(500, 400, 1.0), (1400, 600, 0.6), (3200, 900, 0.4)])
    engine = dsp.saturate(engine, 2.5)
    chain = dsp.bandpass(dsp.white(take.rng, frames), 2000, 9000) * throttle**2 * 0.5
    return (engine + chain) * dsp.adsr(frames, 0.1, 0.2)


@recipe(
    "siren",
    "Siren",
    "urban",
    "a police siren wailing",
    "an ambulance siren",
    "a fire engine siren passing by",
    "an emergency vehicle siren",
)
def siren(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    period = take.uniform(3.5, 5.0) * take.span
    low, high = take.uniform(550, 700), take.uniform(1300, 1500)
    # Wail: a slow rise and fall between the two pitches.
    sweep = (1 - np.cos(2 * np.pi * t / period)) / 2
    pitch = low + (high - low) * sweep
    tone = dsp.harmonics(pitch, frames, 9.0, 12)
    horn = dsp.formants(tone, [(1200, 900, 1.0), (2500, 1200, 0.5)])
    return dsp.unit(horn) * dsp.adsr(frames, 0.3, 0.3)


@recipe(
    "car_horn",
    "Car horn",
    "urban",
    "a car horn honking",
    "a driver beeping the horn in traffic",
    "a truck horn blaring",
)
def car_horn(take: Take) -> Signal:
    out = take.silence()
    pair = take.uniform(400, 440)
    for start in dsp.series(take.rng, take.length, (0.1, 0.4), (1.2, 2.5)):
        for i in range(int(take.rng.integers(1, 3))):
            frames = dsp.seconds(take.uniform(0.25, 0.9) * take.span)
            # Two dissonant horns (about a major third apart), square-ish and nasal.
            tone = dsp.odd_harmonics(pair, frames) + dsp.odd_harmonics(pair * 1.25, frames)
            tone = dsp.saturate(dsp.formants(tone, [(900, 500, 1.0), (2400, 800, 0.6)]), 2.0)
            dsp.place(out, dsp.normalized(tone * dsp.adsr(frames, 0.01, 0.03)), start + i * 0.35)
    return out


@recipe(
    "engine",
    "Engine idling",
    "urban",
    "a car engine idling",
    "a motor running",
    "city traffic, cars driving past",
    "a farm tractor chugging",
)
def engine(take: Take) -> Signal:
    frames = take.frames
    idle = take.uniform(24, 34)  # firings a second at idle
    revs = 1 + 0.8 * np.clip(dsp.smooth_random(take.rng, frames, 0.4), 0, 1) ** 2
    exhaust = [(180, 150, 1.0), (420, 250, 0.6), (900, 400, 0.3)]
    return firing(take, idle * revs, exhaust) * dsp.adsr(frames, 0.2, 0.2)


@recipe(
    "train",
    "Train",
    "urban",
    "a train passing",
    "a locomotive on the railway tracks",
    "train wheels clattering",
    "a steam train chugging",
    "a subway train",
)
def train(take: Take) -> Signal:
    frames = take.frames
    rumble = dsp.lowpass(dsp.brown(take.rng, frames), 250) + 0.3 * dsp.bandpass(
        dsp.pink(take.rng, frames), 300, 3000
    )
    clack = np.zeros(frames)
    gap = take.uniform(0.9, 1.3) / take.intensity**0.5
    for at in np.arange(take.uniform(0, gap), take.length, gap):
        # Each rail joint: the two axles of a bogie, clack-clack.
        for axle in (0.0, take.uniform(0.12, 0.16)):
            hit = dsp.bandpass(dsp.burst(take.rng, dsp.seconds(0.08), 0.05), 150, 2500)
            dsp.place(clack, hit, float(at) + axle, take.uniform(0.8, 1.0))
    squeal = (
        dsp.sine(take.uniform(2500, 3500), frames)
        * 0.02
        * (1 + dsp.smooth_random(take.rng, frames, 0.5))
    )
    return (0.4 * dsp.unit(rumble) + dsp.normalized(clack) + squeal) * dsp.adsr(frames, 0.8, 0.8)


def bell(rng: np.random.Generator, strike: float, ring: float) -> Signal:
    """A church bell: hum, prime, minor-third tierce, quint and nominal partials (the
    inharmonic series of real bells), the higher ones dying sooner."""
    frames = dsp.seconds(ring)
    ratios = [
        (0.5, 1.0, 0.6),
        (1.0, 0.8, 0.8),
        (1.2, 0.6, 0.7),
        (1.5, 0.5, 0.4),
        (2.0, 0.45, 0.7),
        (2.5, 0.3, 0.3),
        (3.0, 0.25, 0.3),
        (4.2, 0.15, 0.2),
    ]
    partials = [(strike * r, ring * life, amp) for r, life, amp in ratios]
    return dsp.normalized(dsp.modes(frames, partials, rng) + 0.2 * dsp.burst(rng, frames, 0.01))


@recipe(
    "church_bells",
    "Church bells",
    "urban",
    "church bells ringing",
    "a bell tower chiming",
    "cathedral bells tolling",
    "a peal of bells",
)
def church_bells(take: Take) -> Signal:
    out = take.silence()
    base = take.uniform(280, 420)
    # A peal of four bells rung down the scale, round after round.
    bells = [bell(take.rng, base * step, 4.0 * take.span) for step in (1, 0.89, 0.75, 0.67)]
    gap = take.uniform(0.6, 0.9)
    for index, at in enumerate(np.arange(take.uniform(0, 0.2), take.length, gap)):
        dsp.place(out, bells[index % len(bells)], float(at), take.uniform(0.7, 1.0))
    return out + 0.3 * dsp.convolve(out, dsp.impulse_response(take.rng, 2.0, 0.05))


@recipe(
    "airplane",
    "Airplane flying over",
    "urban",
    "an airplane flying overhead",
    "a jet plane passing",
    "an airliner flying high above",
)
def airplane(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    closest = take.length * take.uniform(0.45, 0.6)
    nearness = 1 / (1 + ((t - closest) / (take.length * 0.3)) ** 2)
    roar = dsp.sweep(dsp.pink(take.rng, frames), 300 + 3000 * nearness, 0.7, "lowpass")
    # Doppler: the turbine whine falls as the plane passes.
    doppler = 1 + 0.08 * np.tanh(-(t - closest) / (take.length * 0.15))
    whine = dsp.harmonics(take.uniform(1800, 2600) * doppler, frames, 12.0, 3) * 0.08
    # Ground reflection: a comb filter sweeping as the path difference shrinks.
    direct = dsp.unit(roar) + whine
    delay = (0.2 + 4.0 * (1 - nearness)) / 1000
    reflected = np.interp(t - delay, t, direct)
    return (direct + 0.7 * reflected) * (0.15 + nearness)


@recipe(
    "fireworks",
    "Fireworks",
    "urban",
    "fireworks exploding",
    "firecrackers popping",
    "a fireworks display with bangs and crackles",
)
def fireworks(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.0, 0.3), (0.8, 2.0)):
        # Launch whistle, then the bang, then the crackle of stars.
        rise = take.uniform(0.5, 0.9)
        frames = dsp.seconds(rise)
        whistle = dsp.sine(
            dsp.glide(frames, [take.uniform(800, 1200), take.uniform(2500, 3500)]), frames
        )
        dsp.place(out, whistle * dsp.adsr(frames, 0.1, 0.1) * 0.15, at)
        bang_frames = dsp.seconds(1.2)
        bang = dsp.lowpass(dsp.burst(take.rng, bang_frames, 0.6), 2500)
        bang += 2 * dsp.lowpass(dsp.burst(take.rng, bang_frames, 0.9), 150)
        dsp.place(out, dsp.normalized(bang), at + rise, take.uniform(0.7, 1.0))
        for pop in dsp.poisson_times(take.rng, 80, 0.8):
            dsp.place(
                out,
                dsp.highpass(dsp.burst(take.rng, 300, 0.002), 2000),
                at + rise + 0.2 + pop,
                take.uniform(0.05, 0.2),
            )
    return out + 0.3 * dsp.convolve(out, dsp.impulse_response(take.rng, 1.5, 0.08))


@recipe(
    "hand_saw",
    "Hand saw",
    "urban",
    "sawing wood with a hand saw",
    "a saw cutting through a plank",
    "carpenter sawing timber",
    "a handsaw",
)
def hand_saw(take: Take) -> Signal:
    out = take.silence()
    stroke = take.uniform(0.45, 0.6) * take.span
    for index, at in enumerate(np.arange(take.uniform(0, 0.2), take.length, stroke)):
        frames = dsp.seconds(stroke * 0.92)
        # Teeth biting: a rasp, noise amplitude-modulated at the tooth rate.
        teeth = 1 + 0.9 * np.sin(2 * np.pi * take.uniform(90, 160) * dsp.timeline(frames))
        rasp = dsp.bandpass(dsp.white(take.rng, frames), 1500, 7000) * teeth
        rasp = rasp + 0.6 * dsp.resonate(rasp, take.uniform(2500, 3500), 4)
        push = index % 2 == 0
        envelope = np.sin(np.pi * np.linspace(0, 1, frames)) ** (1.0 if push else 2.0)
        dsp.place(out, dsp.normalized(rasp * envelope), float(at), 1.0 if push else 0.6)
    return out


@recipe(
    "gunshot",
    "Gunshots",
    "urban",
    "a gunshot",
    "gunfire, shots fired",
    "a pistol shooting",
    "a rifle firing",
    esc50=False,
)
def gunshot(take: Take) -> Signal:
    # General MIDI program 127 (Gunshot), each shot a little different in pitch and force,
    # with the report's low thump added.
    notes = [
        gm.Note(at, int(take.rng.integers(56, 66)), int(take.rng.integers(96, 128)), 0.8)
        for at in dsp.series(take.rng, take.length, (0.05, 0.3), (0.5, 1.6))
    ]
    shots = gm.play(127, notes, take.length)
    thump = dsp.lowpass(dsp.burst(take.rng, dsp.seconds(0.3), 0.2), 200)
    for note in notes:
        dsp.place(shots, dsp.normalized(thump), note.at, 0.3 * dsp.peak(shots))
    return shots


def pass_by(take: Take, closest: float, width: float) -> tuple[Signal, Signal]:
    """A vehicle passing: (nearness 0-1, Doppler pitch factor) over the take, closest at
    `closest` seconds, `width` seconds wide."""
    t = dsp.timeline(take.frames)
    nearness = 1 / (1 + ((t - closest) / width) ** 2)
    doppler = 1 + 0.06 * np.tanh(-(t - closest) / (width * 0.5))
    return nearness, doppler


@recipe(
    "car_revving",
    "Car engine revving",
    "urban",
    "a car engine revving",
    "a sports car accelerating hard",
    "revving a muscle car in neutral",
    "a race car engine roaring",
    "a race car speeding around the track",
    esc50=False,
)
def car_revving(take: Take) -> Signal:
    frames = take.frames
    # Idle, then blips of the throttle: the revs shoot up and fall back.
    throttle = np.zeros(frames)
    for at in dsp.series(take.rng, take.length, (0.2, 0.6), (1.2 / take.intensity, 2.2)):
        length = take.uniform(0.6, 1.2) * take.span
        blip_frames = dsp.seconds(length)
        blip = dsp.glide(blip_frames, [0, 1, 0.7, 0]) ** 1.5
        dsp.place(throttle, blip, at)
    throttle = np.clip(throttle, 0, 1)
    rpm = take.uniform(25, 32) * (1 + 3.5 * throttle)
    exhaust = [(220, 180, 1.0), (520, 300, 0.7), (1100, 500, 0.4)]
    roar = dsp.saturate(firing(take, rpm, exhaust) * (0.5 + throttle), 2.0)
    intake = dsp.bandpass(dsp.white(take.rng, frames), 1500, 5000) * throttle * 0.15
    return (roar + intake) * dsp.adsr(frames, 0.1, 0.2)


@recipe(
    "motorcycle",
    "Motorcycle",
    "urban",
    "a motorcycle revving",
    "a motorbike speeding past",
    "a dirt bike buzzing",
    "a big V-twin motorcycle rumbling",
    esc50=False,
)
def motorcycle(take: Take) -> Signal:
    frames = take.frames
    nearness, doppler = pass_by(take, take.length * take.uniform(0.4, 0.6), take.length * 0.15)
    throttle = np.clip(0.6 + 0.4 * dsp.smooth_random(take.rng, frames, 0.7), 0, 1)
    rpm = take.uniform(45, 60) * (1 + 1.5 * throttle) * doppler
    # A V-twin fires twice close together, then pauses: potato-potato.
    pairs = dsp.pulses(rpm / 2, frames, take.rng, jitter=0.03)
    second = np.roll(pairs, dsp.seconds(0.012))
    pulses = dsp.lowpass((pairs + 0.8 * second) * (0.7 + 0.6 * take.rng.random(frames)), 5000)
    exhaust = dsp.formants(pulses, [(300, 220, 1.0), (750, 400, 0.7), (1800, 700, 0.4)])
    engine = dsp.saturate(dsp.unit(exhaust), 2.2)
    wind = dsp.lowpass(dsp.pink(take.rng, frames), 1200) * 0.15
    return (engine + wind) * (0.15 + nearness) * dsp.adsr(frames, 0.1, 0.2)


@recipe(
    "truck",
    "Diesel truck",
    "urban",
    "a diesel truck idling",
    "a lorry's air brakes hissing",
    "a big rig truck rumbling by",
    "a garbage truck at the curb",
    esc50=False,
)
def truck(take: Take) -> Signal:
    frames = take.frames
    # A big slow diesel: low firings, a clattering injector tick on each.
    rpm = take.uniform(14, 20) * (1 + 0.3 * np.clip(dsp.smooth_random(take.rng, frames, 0.3), 0, 1))
    exhaust = [(90, 80, 1.0), (240, 160, 0.7), (600, 300, 0.3)]
    engine = firing(take, rpm, exhaust)
    clatter = dsp.highpass(dsp.pulses(rpm, frames, take.rng, jitter=0.05), 2500)
    clatter = dsp.resonate(clatter, take.uniform(3000, 4000), 6.0)
    out = dsp.unit(engine) + 0.25 * dsp.normalized(clatter)
    # Air brakes: now and then a sharp hiss, dying away.
    for at in dsp.series(take.rng, take.length, (0.8, 2.0), (3.0, 6.0)):
        hiss_frames = dsp.seconds(take.uniform(0.4, 0.8) * take.span)
        hiss = dsp.highpass(dsp.white(take.rng, hiss_frames), 3000)
        hiss *= dsp.decay(hiss_frames, hiss_frames / dsp.RATE) * dsp.adsr(hiss_frames, 0.005, 0.05)
        dsp.place(out, hiss, at, 1.2)
    return out * dsp.adsr(frames, 0.2, 0.2)


@recipe(
    "propeller_plane",
    "Propeller plane",
    "urban",
    "a propeller plane flyby",
    "a small prop aircraft droning overhead",
    "a vintage biplane buzzing",
    "a crop duster flying low",
    "a light aircraft buzzing overhead",
    esc50=False,
)
def propeller_plane(take: Take) -> Signal:
    frames = take.frames
    nearness, doppler = pass_by(take, take.length * take.uniform(0.45, 0.6), take.length * 0.25)
    # The blades pass at about 80-110 Hz: a buzzing harmonic saw, over the engine's firings.
    blade = take.uniform(80, 110) * doppler
    buzz = dsp.harmonics(blade, frames, 7.0, 60)
    buzz = dsp.formants(buzz, [(400, 300, 1.0), (1100, 500, 0.6), (2500, 900, 0.3)])
    engine = firing(take, blade * 0.5, [(200, 160, 1.0), (500, 300, 0.5)])
    wash = dsp.lowpass(dsp.pink(take.rng, frames), 2500) * 0.2
    mix = dsp.unit(buzz) + 0.6 * engine + wash
    return mix * (0.1 + nearness) * dsp.adsr(frames, 0.1, 0.2)


@recipe(
    "jet_engine",
    "Jet engine",
    "urban",
    "a jet engine roaring",
    "a jet turbine spooling up",
    "a fighter jet taking off",
    "an aircraft taking off",
    esc50=False,
)
def jet_engine(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    # The turbine spools up over the first seconds: its whine climbs, its roar grows.
    spool = 1 - np.exp(-t / max(take.length * 0.3 * take.span, 0.2))
    whine = np.zeros(frames)
    for base, amp in ((take.uniform(3000, 4200), 1.0), (take.uniform(5500, 7000), 0.5)):
        whine += dsp.sine(base * (0.6 + 0.4 * spool), frames) * amp
    roar = dsp.sweep(dsp.pink(take.rng, frames), 400 + 4000 * spool, 0.7, "lowpass")
    rumble = dsp.lowpass(dsp.brown(take.rng, frames), 150)
    crackle = dsp.highpass(dsp.white(take.rng, frames), 4000) * (
        0.5 + 0.5 * dsp.smooth_random(take.rng, frames, 30)
    )
    mix = dsp.unit(roar) * (0.3 + spool) + 0.5 * dsp.unit(rumble) * spool
    mix += 0.06 * whine + 0.1 * crackle * spool
    out: Signal = mix * dsp.adsr(frames, 0.2, 0.2)
    return out
