"""flite (Debian flite): the built-in voices awb (Scottish male), rms (American male) and slt
(American female), English only, 16 kHz."""

from __future__ import annotations

from typing import Final

from soundstage.engines.tts._process import (
    ascii_text,
    read_speech,
    require_binary,
    run_tool,
    scratch_dir,
    stretch,
)
from soundstage.engines.tts.base import (
    EngineUnavailable,
    EngineVoice,
    SynthesisFailed,
    check_rate,
    check_text,
    find_voice,
)
from soundstage.media.audio import Audio

ENGINE: Final = "flite"

_CATALOG: Final = (
    EngineVoice(
        engine=ENGINE,
        voice="awb",
        language="en-GB",
        gender="male",
        accent="Scottish",
        label="Alan",
    ),
    EngineVoice(
        engine=ENGINE,
        voice="rms",
        language="en-US",
        gender="male",
        accent="American",
        label="Richard",
    ),
    EngineVoice(
        engine=ENGINE,
        voice="slt",
        language="en-US",
        gender="female",
        accent="American",
        label="Sarah",
    ),
)


class FliteEngine:
    """flite per call (about 10 ms to start: the voices are compiled in)."""

    name = ENGINE
    supports_rate = True

    def __init__(self) -> None:
        self._binary = require_binary("flite", ENGINE)
        installed = self._installed_voices()
        self._voices = [voice for voice in _CATALOG if voice.voice in installed]

    def voices(self) -> list[EngineVoice]:
        return list(self._voices)

    def synthesize(
        self, text: str, voice: str, *, rate: float = 1.0, deterministic: bool = False
    ) -> Audio:
        # Deterministic anyway: `deterministic` changes nothing.
        check_rate(rate)
        check_text(text)
        find_voice(self._voices, voice, ENGINE)
        readable = ascii_text(text)
        check_text(readable)
        with scratch_dir() as workdir:
            source = workdir / "text.txt"
            source.write_text(readable, encoding="ascii")
            wav = workdir / "speech.wav"
            # The text goes in a file (-f), never on the command line, where text starting
            # with "-" could be taken for an option.
            run_tool(
                [
                    self._binary,
                    "-voice",
                    voice,
                    "--setf",
                    f"duration_stretch={stretch(rate)}",
                    "-f",
                    str(source),
                    "-o",
                    str(wav),
                ],
                engine=ENGINE,
            )
            return read_speech(wav, ENGINE)

    def _installed_voices(self) -> set[str]:
        # "Voices available: kal awb_time kal16 awb rms slt"
        try:
            listing = run_tool([self._binary, "-lv"], engine=ENGINE)
        except SynthesisFailed as exc:
            raise EngineUnavailable(f"flite cannot list its voices: {exc.message}") from exc
        return set(listing.partition(":")[2].split())
