"""Human non-speech sounds (ESC-50): crying baby, sneezing, clapping, breathing, coughing,
footsteps, laughing, brushing teeth, snoring, drinking and sipping. Beyond ESC-50, crowds:
applause, a stadium crowd, restaurant chatter (walla: voices whose words cannot be made out)."""

from __future__ import annotations

import numpy as np

from soundstage.engines.sound import dsp
from soundstage.engines.sound.dsp import Signal
from soundstage.engines.sound.recipes.base import Take, recipe
from soundstage.engines.sound.recipes.voice import Call, vocalize

# Formants of an open "a" for an adult, and of a baby's shorter vocal tract.
_ADULT_A = [(750, 130, 1.0), (1200, 150, 0.6), (2500, 250, 0.3), (3400, 350, 0.15)]
_BABY = [(1100, 300, 1.0), (2600, 400, 0.6), (4300, 600, 0.3)]


def breath_noise(rng: np.random.Generator, length: float, low: float, high: float) -> Signal:
    frames = dsp.seconds(length)
    return dsp.bandpass(dsp.white(rng, frames), low, high) * dsp.adsr(
        frames, length * 0.4, length * 0.5
    )


@recipe(
    "crying_baby",
    "Baby crying",
    "human",
    "a baby crying",
    "an infant wailing",
    "a newborn screaming and sobbing",
    "a toddler crying",
)
def crying_baby(take: Take) -> Signal:
    out = take.silence()
    at = take.uniform(0.0, 0.3)
    while at < take.length:
        top = take.uniform(480, 620)
        cry = Call(
            take.uniform(0.8, 1.4) * take.span,
            [380, top, top * 1.03, top * 0.9, 350],
            _BABY,
            breath=0.25,
            rough=0.25,
            jitter=0.04,
            attack=0.06,
            release=0.15,
            vibrato_hz=9,
            vibrato=0.02,
            rolloff=8,
        )
        dsp.place(out, vocalize(take.rng, cry), at)
        at += cry.duration + 0.05
        # The gasp between cries.
        dsp.place(out, breath_noise(take.rng, 0.25, 1500, 6000), at, 0.3)
        at += take.uniform(0.3, 0.55)
    return out


@recipe(
    "sneezing",
    "Sneezing",
    "human",
    "a person sneezing",
    "achoo",
    "someone sneezes loudly",
    "a sneeze",
)
def sneezing(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.1, 0.4), (2.5, 4.0)):
        # "ah-ah" building up, then the explosive "choo".
        build = Call(
            0.45 * take.span,
            [220, 300, 380],
            _ADULT_A,
            breath=0.6,
            attack=0.15,
            release=0.03,
            rolloff=12,
        )
        dsp.place(out, vocalize(take.rng, build), at, 0.35)
        frames = dsp.seconds(0.35 * take.span)
        choo = dsp.bandpass(dsp.white(take.rng, frames), 1500, 9000) * dsp.decay(frames, 0.3)
        choo += 0.4 * dsp.lowpass(dsp.white(take.rng, frames), 800) * dsp.decay(frames, 0.12)
        voiced = Call(
            0.2,
            [330, 250],
            [(450, 150, 1.0), (1000, 200, 0.4)],
            breath=0.5,
            attack=0.004,
            release=0.1,
        )
        dsp.place(out, dsp.normalized(choo * dsp.adsr(frames, 0.003, 0.05)), at + 0.5 * take.span)
        dsp.place(out, vocalize(take.rng, voiced), at + 0.5 * take.span, 0.4)
    return out


def clap(rng: np.random.Generator, tone: float) -> Signal:
    """One clap: a short noise burst shaped by the air pocket between the palms."""
    frames = dsp.seconds(0.06)
    noise = dsp.burst(rng, frames, 0.025)
    return dsp.normalized(dsp.resonate(noise, tone, 2.2) + 0.3 * dsp.highpass(noise, 3000))


@recipe(
    "clapping",
    "Hands clapping",
    "human",
    "hands clapping",
    "a person clapping",
    "someone clapping along to a beat",
)
def clapping(take: Take) -> Signal:
    out = take.silence()
    clappers = max(1, round(take.uniform(1, 3) * take.intensity**2))
    for _ in range(clappers):
        tone = take.uniform(900, 1800)
        period = take.uniform(0.22, 0.34)
        for at in dsp.series(take.rng, take.length, (0.0, 0.2), (period * 0.95, period * 1.05)):
            dsp.place(
                out, clap(take.rng, tone * take.uniform(0.95, 1.05)), at, take.uniform(0.7, 1)
            )
    room = dsp.impulse_response(take.rng, 0.5)
    return out + 0.35 * dsp.convolve(out, room)


@recipe(
    "breathing",
    "Breathing",
    "human",
    "a person breathing",
    "heavy breathing",
    "someone inhaling and exhaling slowly",
    "panting",
)
def breathing(take: Take) -> Signal:
    out = take.silence()
    cycle = take.uniform(2.6, 3.6) / take.intensity**0.5
    for at in dsp.series(take.rng, take.length, (0.0, 0.3), (cycle * 0.9, cycle * 1.1)):
        inhale = cycle * 0.38 * take.span
        exhale = cycle * 0.48 * take.span
        dsp.place(out, breath_noise(take.rng, inhale, 900, 4500), at, 0.6)
        shaped = dsp.formants(breath_noise(take.rng, exhale, 200, 3000), _ADULT_A)
        dsp.place(out, dsp.normalized(shaped), at + inhale + 0.1, 1.0)
    return out


@recipe(
    "coughing",
    "Coughing",
    "human",
    "a person coughing",
    "a dry cough",
    "someone coughing with a cold",
    "hacking cough",
)
def coughing(take: Take) -> Signal:
    out = take.silence()
    for start in dsp.series(take.rng, take.length, (0.05, 0.3), (1.8, 3.0)):
        at = start
        for _ in range(int(take.rng.integers(1, 4))):
            frames = dsp.seconds(take.uniform(0.2, 0.32) * take.span)
            noise = dsp.lowpass(dsp.white(take.rng, frames), 4000) * dsp.decay(frames, 0.25)
            blast = dsp.formants(noise, _ADULT_A) * dsp.adsr(frames, 0.002, 0.05)
            voice = Call(
                frames / dsp.RATE,
                [take.uniform(180, 260), 150],
                _ADULT_A,
                breath=0.8,
                rough=0.5,
                attack=0.003,
                release=0.1,
            )
            dsp.place(out, dsp.normalized(blast) + 0.5 * vocalize(take.rng, voice), at)
            at += take.uniform(0.3, 0.45)
    return out


@recipe(
    "footsteps",
    "Footsteps",
    "human",
    "footsteps walking",
    "someone walking down a corridor",
    "footsteps on a wooden floor",
    "a person running",
    "steps approaching",
)
def footsteps(take: Take) -> Signal:
    out = take.silence()
    pace = take.uniform(0.5, 0.6) / take.intensity**0.3
    floor = take.uniform(140, 220)
    for index, at in enumerate(
        dsp.series(take.rng, take.length, (0.1, 0.4), (pace * 0.92, pace * 1.08))
    ):
        # Heel then toe: a low thump and a scuff a few tens of milliseconds later.
        frames = dsp.seconds(0.12)
        heel = dsp.resonate(dsp.burst(take.rng, frames, 0.05), floor, 3) * 3
        heel += dsp.highpass(dsp.burst(take.rng, frames, 0.02), 2000) * 0.3
        toe = dsp.bandpass(dsp.burst(take.rng, frames, 0.04), 600, 5000) * 0.4
        step = dsp.normalized(heel) + dsp.fit(
            np.concatenate([np.zeros(dsp.seconds(0.04)), toe]), frames
        )
        dsp.place(out, step, at, 0.8 if index % 2 else 1.0)
    room = dsp.impulse_response(take.rng, 0.6)
    return out + 0.3 * dsp.convolve(out, room)


@recipe(
    "laughing",
    "Laughing",
    "human",
    "a person laughing",
    "laughter",
    "someone giggling",
    "a man chuckling",
    "haha",
)
def laughing(take: Take) -> Signal:
    out = take.silence()
    pitch = take.uniform(170, 320)
    for start in dsp.series(take.rng, take.length, (0.05, 0.3), (2.0, 3.2)):
        at = start
        syllables = int(take.rng.integers(4, 9))
        for i in range(syllables):
            # "ha": a breathy onset, a short voiced vowel, pitch sinking through the burst.
            top = pitch * (1.15 - 0.3 * i / syllables) * take.uniform(0.95, 1.05)
            ha = Call(
                take.uniform(0.09, 0.13),
                [top * 1.05, top * 0.9],
                _ADULT_A,
                breath=0.6,
                attack=0.02,
                release=0.04,
                rolloff=11,
            )
            dsp.place(out, vocalize(take.rng, ha), at, 1 - 0.4 * i / syllables)
            at += take.uniform(0.16, 0.22)
        dsp.place(out, breath_noise(take.rng, 0.3, 1000, 5000), at, 0.3)
    return out


@recipe(
    "brushing_teeth",
    "Brushing teeth",
    "human",
    "brushing teeth",
    "a toothbrush scrubbing",
    "someone brushing their teeth at the sink",
)
def brushing_teeth(take: Take) -> Signal:
    frames = take.frames
    t = dsp.timeline(frames)
    stroke_hz = take.uniform(3.5, 5.0)
    # Back and forth: each stroke a swell of bright, wet bristle noise.
    strokes = np.abs(np.sin(np.pi * stroke_hz * t + 0.3 * dsp.smooth_random(take.rng, frames, 1.0)))
    bristles = dsp.bandpass(dsp.white(take.rng, frames), 2500, 11000)
    bristles *= 1 + 0.5 * dsp.bandpass(dsp.white(take.rng, frames), 20, 200)
    wet = take.silence()
    for at in dsp.poisson_times(take.rng, 40, take.length):
        dsp.place(wet, dsp.burst(take.rng, dsp.seconds(0.008), 0.004), at, take.uniform(0.2, 0.6))
    scrub: Signal = dsp.unit(bristles) * strokes**2 + 4 * dsp.highpass(wet, 3000)
    return scrub * dsp.adsr(frames, 0.1, 0.1)


@recipe(
    "snoring",
    "Snoring",
    "human",
    "a person snoring",
    "loud snoring while asleep",
    "someone snoring in bed",
)
def snoring(take: Take) -> Signal:
    out = take.silence()
    cycle = take.uniform(3.2, 4.2)
    for at in dsp.series(take.rng, take.length, (0.05, 0.5), (cycle * 0.9, cycle * 1.1)):
        # Inhale: the soft palate flutters (pulses at 30-60 Hz) through a nasal tract.
        frames = dsp.seconds(take.uniform(1.2, 1.6) * take.span)
        flutter = dsp.pulses(dsp.glide(frames, [35, 55, 45]), frames, take.rng, jitter=0.25)
        flutter += 0.04 * dsp.white(take.rng, frames)
        snore = dsp.formants(flutter, [(250, 150, 1.0), (600, 250, 0.7), (1300, 300, 0.25)])
        dsp.place(out, dsp.normalized(snore * dsp.adsr(frames, 0.4, 0.3)), at)
        dsp.place(out, breath_noise(take.rng, 1.3, 300, 1500), at + frames / dsp.RATE + 0.2, 0.2)
    return out


@recipe(
    "drinking_sipping",
    "Drinking, sipping",
    "human",
    "someone drinking and sipping",
    "slurping a hot drink",
    "gulping water",
    "sipping coffee",
)
def drinking_sipping(take: Take) -> Signal:
    out = take.silence()
    for at in dsp.series(take.rng, take.length, (0.1, 0.4), (1.4, 2.2)):
        # A slurp (air and liquid drawn in), then the swallow's low gulp.
        length = take.uniform(0.25, 0.45) * take.span
        frames = dsp.seconds(length)
        slurp = dsp.sweep(dsp.white(take.rng, frames), dsp.glide(frames, [1500, 3500]), 3.0)
        slurp *= dsp.adsr(frames, 0.05, 0.08) * (1 + 0.6 * dsp.smooth_random(take.rng, frames, 30))
        dsp.place(out, dsp.normalized(slurp), at, 0.6)
        gulp_frames = dsp.seconds(0.12)
        gulp = dsp.sine(dsp.glide(gulp_frames, [180, 320]), gulp_frames) * dsp.decay(
            gulp_frames, 0.1
        )
        gulp += 0.3 * dsp.lowpass(dsp.burst(take.rng, gulp_frames, 0.05), 800)
        dsp.place(out, dsp.normalized(gulp), at + length + take.uniform(0.15, 0.3), 0.9)
    return out


@recipe(
    "applause",
    "Crowd applause",
    "human",
    "applause",
    "a round of applause from an audience",
    "a theatre audience clapping",
    "a standing ovation",
    esc50=False,
    wide=True,
)
def applause(take: Take) -> Signal:
    frames = take.frames
    # Dozens of people clapping out of step: a dense rain of claps, each clapper's own tone.
    kernels = [clap(take.rng, take.uniform(800, 2000)) for _ in range(12)]
    rate = take.uniform(80, 140) * take.intensity
    times = dsp.poisson_times(take.rng, rate, take.length)
    gains = np.asarray(take.rng.uniform(0.3, 1.0, times.shape[0]), dtype=np.float64)
    claps = dsp.sprinkle(frames, times, gains, kernels, take.rng)
    swell = 1 + 0.25 * dsp.smooth_random(take.rng, frames, 0.4)
    out = claps * swell * dsp.adsr(frames, 0.4, 0.5)
    return out + 0.4 * dsp.convolve(out, dsp.impulse_response(take.rng, 1.2))


def babble(take: Take, voices: int, pitch: tuple[float, float], loudness: Signal) -> Signal:
    """Voices talking at once, none intelligible: glottal sources whose pitch wanders like
    speech, each talking and pausing in syllables of its own, in two groups whose vowel
    formants move at the rate of syllables (a group's voices share a mouth: far cheaper, and
    under a crowd's murmur no one hears it)."""
    frames = take.frames
    out = np.zeros(frames)
    for group in range(2):
        sources = np.zeros(frames)
        for _ in range(group, voices, 2):
            base = take.uniform(*pitch)
            contour = base * (1 + 0.15 * dsp.slow_random(take.rng, frames, 3.0)) * loudness**0.3
            source = dsp.unit(dsp.harmonics(contour, frames, 12.0, 14))
            source = source + 0.1 * dsp.white(take.rng, frames)
            syllables = (0.5 + 0.5 * dsp.slow_random(take.rng, frames, 8.0)) ** 2
            talking = np.clip(3 * dsp.slow_random(take.rng, frames, 0.3) + 1.5, 0, 1)
            sources += source * syllables * talking * take.uniform(0.3, 1.0)
        first = 550 + 250 * dsp.slow_random(take.rng, frames, 4.0)
        second = 1500 + 600 * dsp.slow_random(take.rng, frames, 4.0)
        out += dsp.sweep(sources, first, 4.0) + 0.6 * dsp.sweep(sources, second, 6.0)
    return out


@recipe(
    "stadium_crowd",
    "Stadium crowd",
    "human",
    "a stadium crowd cheering",
    "a roaring crowd at a football match",
    "sports fans yelling in an arena",
    "a concert crowd screaming",
    esc50=False,
    wide=True,
)
def stadium_crowd(take: Take) -> Signal:
    frames = take.frames
    # Thousands of voices merge into a roar that swells with the game.
    swell = np.clip(
        0.6 + 0.4 * dsp.smooth_random(take.rng, frames, 0.25) * take.intensity, 0.2, 1.4
    )
    roar = dsp.bandpass(dsp.pink(take.rng, frames), 250, 3000)
    roar = dsp.unit(dsp.sweep(roar, 700 + 300 * swell, 0.8)) * swell
    voices = babble(take, 4, (150, 320), swell) * 0.08
    whistles = take.silence()
    for at in dsp.poisson_times(take.rng, 0.4 * take.intensity, take.length):
        length = take.uniform(0.3, 0.8)
        whistle_frames = dsp.seconds(length)
        pitch = dsp.glide(whistle_frames, [take.uniform(2200, 2800), take.uniform(2600, 3400)])
        whistle = dsp.sine(pitch, whistle_frames) * dsp.adsr(whistle_frames, 0.03, 0.1)
        dsp.place(whistles, whistle, float(at), take.uniform(0.05, 0.15))
    out = roar + voices + whistles
    # The open bowl of a stadium: a long, distant echo.
    return out + 0.5 * dsp.convolve(out, dsp.impulse_response(take.rng, 2.2, 0.08))


@recipe(
    "restaurant_chatter",
    "Restaurant chatter",
    "human",
    "restaurant chatter",
    "people talking in a busy cafe",
    "a murmur of conversation in a bar",
    "background crowd walla",
    "a noisy pub full of people",
    "a cafeteria with clinking cutlery",
    esc50=False,
    wide=True,
)
def restaurant_chatter(take: Take) -> Signal:
    frames = take.frames
    voices = babble(take, max(3, round(5 * take.intensity)), (100, 260), np.ones(frames))
    voices = dsp.lowpass(voices, 4000)
    # Cutlery and glasses: short high rings now and then.
    clinks = take.silence()
    for at in dsp.poisson_times(take.rng, 1.2 * take.intensity, take.length):
        base = take.uniform(2500, 5000)
        partials = [
            (base * r, take.uniform(0.05, 0.2), 1 / (1 + i)) for i, r in enumerate((1, 2.3, 3.9))
        ]
        dsp.place(
            clinks,
            dsp.modes(dsp.seconds(0.25), partials, take.rng),
            float(at),
            take.uniform(0.1, 0.3),
        )
    out = dsp.unit(voices) + clinks
    return out + 0.4 * dsp.convolve(out, dsp.impulse_response(take.rng, 0.8))
