"""Each catalog voice's word error rate on the normalization round trip's sentences
(tests/support/normalization_sentences.json: 20 English, 10 each in Spanish, French, German
and Italian), the figure the tests do not gate on. Every sentence is sent as written to
POST /api/v1/speech/tts (served by `soundstage serve` with its embedded worker, the demo
catalog loaded), one request a sentence, the WAV downloaded and heard by whisper-base in this
process; both sides are normalized as tests/support/listening.py does.

The figures move with the CPU that runs whisper-base (its int8 kernels: AVX2, AVX-512, AMX;
docs/calibration.md, "Whisper's kernels and the measured WER"): the CPU's flags are printed
with them. Report them in notes and docs; the tests assert only a margin (English under 10%,
other languages under 25%).

    .venv/bin/python bench/voice_wer.py [--languages en it] [--voices voice_alan] [--limit N]
        [--show-misheard]
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import httpx
import jiwer
import numpy as np
import soundfile
from _service import served

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.listening import SENTENCES, comparable

from soundstage.config import Settings
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.media.audio import Audio

LANGUAGES = ("en", "es", "fr", "de", "it")


def cpu_flags() -> str:
    """The CPU's model and which of whisper's kernel families it has."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown CPU"
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in info.splitlines()
            if line.startswith("model name")
        ),
        "unknown CPU",
    )
    flags = next(
        (line.split(":", 1)[1].split() for line in info.splitlines() if line.startswith("flags")),
        [],
    )
    kinds = [name for name in ("avx2", "avx512f", "avx512_vnni", "amx_int8") if name in flags]
    return f"{model} ({', '.join(kinds) or 'no AVX2'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", nargs="+", choices=LANGUAGES, default=list(LANGUAGES))
    parser.add_argument("--voices", nargs="+", help="voice ids (default: every catalog voice)")
    parser.add_argument("--limit", type=int, help="the first N sentences of each language")
    parser.add_argument("--show-misheard", action="store_true", help="print what was misheard")
    args = parser.parse_args()
    with served(demo_catalog=True, credits=1_000_000) as (client, data_dir):
        whisper = get_transcriber("whisper-base", settings=Settings(data_dir=data_dir))
        print(f"whisper-base on {cpu_flags()}")
        for language in args.languages:
            listed = client.get(f"/api/v1/voices?language={language}&limit=100").json()
            voices = [v for v in listed["data"] if not args.voices or v["voice_id"] in args.voices]
            texts = SENTENCES[language][: args.limit]
            for voice in voices:
                tag = voice["language"]
                errors = words = 0
                for text in texts:
                    reference = comparable(text, tag)
                    answer = client.post(
                        "/api/v1/speech/tts",
                        json={"voice_id": voice["voice_id"], "format": "wav", "text": text},
                    )
                    answer.raise_for_status()
                    wav = httpx.get(answer.json()["output_url"]).content
                    samples, rate = soundfile.read(io.BytesIO(wav), dtype="float32", always_2d=True)
                    heard = whisper.transcribe(
                        Audio(np.ascontiguousarray(samples), rate),
                        language=tag,
                        word_timestamps=False,
                    ).text
                    hypothesis = comparable(heard, tag)
                    counts = jiwer.process_words(reference, hypothesis)
                    errors += counts.substitutions + counts.deletions + counts.insertions
                    words += len(reference.split())
                    if args.show_misheard and hypothesis != reference:
                        print(f"    said:  {reference}\n    heard: {hypothesis}")
                print(
                    f"{voice['voice_id']:<20} {voice['engine']:<9} {tag:<6} "
                    f"WER {errors / words:6.1%}  ({errors} of {words} words, "
                    f"{len(texts)} sentences)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
