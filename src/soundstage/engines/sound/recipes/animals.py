"""Animals (ESC-50): dog, rooster, pig, cow, frog, cat, hen, insects, sheep, crow. Calls are
source-filter voices with each species' pitch contour, formants, roughness and rhythm."""

from __future__ import annotations

from soundstage.engines.sound import dsp
from soundstage.engines.sound.dsp import Signal
from soundstage.engines.sound.recipes.base import Take, recipe
from soundstage.engines.sound.recipes.voice import Call, vocalize


@recipe(
    "dog",
    "Dog barking",
    "animals",
    "a dog barking",
    "dog bark, woof woof",
    "a puppy yapping",
    "a big hound barking loudly",
    "canine barks and growls",
)
def dog(take: Take) -> Signal:
    out = take.silence()
    # Bigger dogs bark lower: "a big dog" (heavy) lower, "a small dog" (light) higher.
    size = take.uniform(0.85, 1.15) * take.intensity**0.25
    for group in dsp.series(take.rng, take.length, (0.05, 0.4), (0.9, 1.9)):
        barks = int(take.rng.integers(1, 4 if take.intensity <= 1 else 5))
        at = group
        for _ in range(barks):
            bark = Call(
                duration=take.uniform(0.12, 0.2) * take.span,
                f0=[380, take.uniform(560, 680), 520, 300],
                bands=[(620, 320, 1.0), (1400, 400, 0.8), (2700, 600, 0.45), (3900, 900, 0.2)],
                breath=0.55,
                rough=0.6,
                jitter=0.04,
                attack=0.004,
                release=0.07,
                rolloff=9,
            )
            dsp.place(out, vocalize(take.rng, bark, 1 / size), at, take.uniform(0.7, 1.0))
            at += take.uniform(0.22, 0.36)
    return out


@recipe(
    "rooster",
    "Rooster crowing",
    "animals",
    "a rooster crowing",
    "cock-a-doodle-doo",
    "a cockerel crowing at dawn on the farm",
)
def rooster(take: Take) -> Signal:
    out = take.silence()
    bands = [(950, 400, 1.0), (1900, 500, 0.8), (3100, 700, 0.45)]
    for start in dsp.series(take.rng, take.length, (0.1, 0.5), (4.0, 6.5)):
        at = start
        syllables = [(0.12, [430, 600]), (0.1, [520, 650]), (0.22, [650, 820, 720])]
        syllables.append((take.uniform(0.8, 1.1) * take.span, [780, 860, 840, 760, 560]))
        for duration, contour in syllables:
            call = Call(
                duration,
                contour,
                bands,
                breath=0.35,
                rough=0.35,
                jitter=0.03,
                attack=0.015,
                release=0.06,
                rolloff=8,
            )
            dsp.place(out, vocalize(take.rng, call), at)
            at += duration + 0.035
    return out


@recipe(
    "pig",
    "Pig grunting",
    "animals",
    "a pig grunting and oinking",
    "pigs snorting in a pen",
    "a hog squealing",
    "oink oink",
)
def pig(take: Take) -> Signal:
    out = take.silence()
    for start in dsp.series(take.rng, take.length, (0.05, 0.3), (0.9, 1.8)):
        at = start
        for _ in range(int(take.rng.integers(2, 5))):
            frames = dsp.seconds(take.uniform(0.16, 0.3) * take.span)
            f0 = dsp.glide(frames, [take.uniform(90, 120), 150, 100])
            source = dsp.pulses(f0, frames, take.rng, jitter=0.2)
            source = source + 0.08 * dsp.lowpass(dsp.white(take.rng, frames), 1500)
            grunt = dsp.formants(source, [(350, 200, 1.0), (950, 300, 0.7), (2300, 500, 0.25)])
            grunt *= dsp.adsr(frames, 0.02, 0.08)
            dsp.place(out, dsp.normalized(grunt), at, take.uniform(0.6, 1.0))
            at += take.uniform(0.28, 0.4)
        if take.rng.random() < 0.35:
            squeal = Call(
                0.45 * take.span,
                [900, 1300, 1200, 1000],
                [(1200, 500, 1.0), (2600, 700, 0.6)],
                breath=0.3,
                rough=0.5,
                jitter=0.05,
                rolloff=8,
            )
            dsp.place(out, vocalize(take.rng, squeal), at + 0.1, 0.8)
    return out


@recipe(
    "cow",
    "Cow mooing",
    "animals",
    "a cow mooing",
    "cattle lowing in a field",
    "moo",
    "a bull bellowing on the farm",
)
def cow(take: Take) -> Signal:
    out = take.silence()
    for start in dsp.series(take.rng, take.length, (0.05, 0.4), (2.8, 4.5)):
        frames = dsp.seconds(take.uniform(1.4, 2.2) * take.span)
        f0 = dsp.glide(frames, [115, take.uniform(140, 160), 150, 120])
        f0 *= 1 + 0.01 * dsp.smooth_random(take.rng, frames, 20.0)
        source = dsp.unit(dsp.harmonics(f0, frames, 9.0, 70)) + 0.08 * dsp.white(take.rng, frames)
        # The mouth opens from the hummed "m" to "oo" and closes again.
        opening = dsp.glide(frames, [350, 1600, 1900, 900, 500])
        voiced = dsp.sweep(source, opening, 0.8, "lowpass")
        voiced = dsp.formants(voiced, [(320, 150, 1.0), (750, 250, 0.7), (2300, 400, 0.2)])
        dsp.place(out, dsp.normalized(voiced * dsp.adsr(frames, 0.25, 0.4)), start)
    return out


@recipe(
    "frog",
    "Frogs croaking",
    "animals",
    "frogs croaking",
    "a frog ribbit by the pond",
    "toads calling at night in a marsh",
    "a bullfrog croaking",
)
def frog(take: Take) -> Signal:
    out = take.silence()
    voices = max(1, round(take.uniform(1.5, 3.5) * take.intensity))
    for _ in range(voices):
        carrier = take.uniform(500, 1100)
        pulse_rate = take.uniform(60, 95)
        gain = take.uniform(0.5, 1.0)
        for at in dsp.series(take.rng, take.length, (0.0, 0.8), (0.7, 1.3)):
            for syllable in range(2):
                frames = dsp.seconds(take.uniform(0.09, 0.14) * take.span)
                train = dsp.pulses(pulse_rate, frames, take.rng, jitter=0.05)
                croak = dsp.resonate(train, carrier, 9) + 0.5 * dsp.resonate(
                    train, 2.1 * carrier, 9
                )
                croak *= dsp.adsr(frames, 0.01, 0.03)
                dsp.place(out, dsp.normalized(croak), at + syllable * 0.16, gain)
    return out


@recipe(
    "cat",
    "Cat meowing",
    "animals",
    "a cat meowing",
    "a kitten mewing",
    "meow",
    "a hungry cat crying for food",
)
def cat(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.4), (1.8, 3.2)):
        frames = dsp.seconds(take.uniform(0.65, 1.0) * take.span)
        top = take.uniform(650, 800)
        f0 = dsp.glide(frames, [520, top, top * 1.05, 600, 430])
        f0 *= 1 + 0.015 * dsp.smooth_random(take.rng, frames, 30.0)
        source = dsp.unit(dsp.harmonics(f0, frames, 10.0, 14)) + 0.1 * dsp.white(take.rng, frames)
        # m-e-ow: the formants glide from "ee" through "a" to "oo".
        first = dsp.sweep(source, dsp.glide(frames, [400, 950, 850, 500]), 5.0)
        second = dsp.sweep(source, dsp.glide(frames, [2200, 1700, 1300, 900]), 6.0)
        meow = first + 0.7 * second + 0.2 * dsp.resonate(source, 3300, 6.0)
        dsp.place(out, dsp.normalized(meow * dsp.adsr(frames, 0.06, 0.18)), at)
    return out


@recipe(
    "hen",
    "Hen clucking",
    "animals",
    "a hen clucking",
    "chickens clucking in a coop",
    "a chicken bawk bawk",
)
def hen(take: Take) -> Signal:
    out = take.silence()
    bands = [(850, 400, 1.0), (2000, 600, 0.6), (3300, 800, 0.2)]
    for start in dsp.series(take.rng, take.length, (0.05, 0.3), (1.4, 2.4)):
        at = start
        for _ in range(int(take.rng.integers(3, 8))):
            cluck = Call(
                take.uniform(0.05, 0.09) * take.span,
                [take.uniform(340, 420), 320],
                bands,
                breath=0.4,
                rough=0.2,
                attack=0.004,
                release=0.03,
            )
            dsp.place(out, vocalize(take.rng, cluck), at, take.uniform(0.5, 0.9))
            at += take.uniform(0.12, 0.3)
        if take.rng.random() < 0.5:
            bawk = Call(
                0.3 * take.span,
                [520, 720, 640],
                bands,
                breath=0.3,
                rough=0.3,
                attack=0.01,
                release=0.08,
            )
            dsp.place(out, vocalize(take.rng, bawk), at + 0.05)
    return out


@recipe(
    "insects",
    "Insects buzzing",
    "animals",
    "insects buzzing",
    "a fly buzzing around",
    "a bee buzzing",
    "a mosquito whining",
    "a swarm of flying insects",
)
def insects(take: Take) -> Signal:
    out = take.silence()
    frames = take.frames
    base = take.uniform(190, 260) if take.rng.random() < 0.75 else take.uniform(450, 600)
    for _ in range(max(1, round(take.uniform(1, 2.5) * take.intensity))):
        wing = base * take.uniform(0.9, 1.1) * (1 + 0.12 * dsp.smooth_random(take.rng, frames, 1.5))
        buzz = dsp.harmonics(wing, frames, 7.0, 40)
        buzz = dsp.bandpass(buzz, 150, 6000) * (1 + 0.3 * dsp.white(take.rng, frames))
        # The insect comes and goes.
        nearness = 0.55 + 0.45 * dsp.smooth_random(take.rng, frames, 0.6)
        out += dsp.unit(buzz) * nearness**2
    return out * dsp.adsr(frames, 0.2, 0.2)


@recipe(
    "sheep",
    "Sheep bleating",
    "animals",
    "sheep bleating",
    "a lamb baaing",
    "baa baa",
    "a flock of sheep in a meadow",
)
def sheep(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.05, 0.4), (1.6, 3.0)):
        bleat = Call(
            take.uniform(0.55, 0.85) * take.span,
            [300, take.uniform(350, 390), 350, 300],
            [(780, 260, 1.0), (1500, 350, 0.7), (2600, 500, 0.3)],
            breath=0.2,
            rolloff=9,
            attack=0.03,
            release=0.12,
            vibrato_hz=24,
            vibrato=0.03,
            tremolo_hz=24,
            tremolo=0.7,
        )
        dsp.place(out, vocalize(take.rng, bleat, take.uniform(0.9, 1.15)), at)
    return out


@recipe(
    "crow",
    "Crow cawing",
    "animals",
    "a crow cawing",
    "ravens croaking caw caw",
    "a rook calling harshly from a tree",
)
def crow(take: Take) -> Signal:
    out = take.silence()
    for start in dsp.series(take.rng, take.length, (0.05, 0.4), (2.2, 3.6)):
        at = start
        for _ in range(int(take.rng.integers(2, 5))):
            caw = Call(
                take.uniform(0.28, 0.42) * take.span,
                [540, 620, 560, 480],
                [(1050, 500, 1.0), (1750, 600, 0.9), (3200, 800, 0.4)],
                breath=0.7,
                rough=0.9,
                jitter=0.06,
                attack=0.01,
                release=0.06,
                rolloff=7,
            )
            dsp.place(out, vocalize(take.rng, caw), at, take.uniform(0.75, 1.0))
            at += take.uniform(0.45, 0.65)
    return out
