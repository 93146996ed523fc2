"""Every catalog voice's naturalness and intelligibility: each reads its language's three
sentences (bench/voice_quality_sentences.json, written for this bench, no digits, so that no
normalization is measured) through POST /api/v1/speech/tts (`soundstage serve` with its
embedded worker, the demo catalog loaded). The three readings, joined with 0.3 s pauses,
are scored by DistillMOS and DNSMOS (P.835 OVRL and P.808; engines/quality) and heard by
whisper-base in this process: word error rate (character error rate for Mandarin, written
without spaces), and the real-time factor of the API's answer (request to answer over the
audio's duration, one worker process).

The table is printed and written to src/soundstage/voices/quality.json (unless --no-write),
the figures the service shows with each voice; the tests assert only a wide margin on the
recommended voices (tests/voices/test_quality.py). MOS predictors and whisper's kernels
move a little with the CPU: its model is printed and stored with the figures.

    .venv/bin/python bench/voice_quality.py [--voices voice_joe voice_sally] [--no-write]
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import httpx
import jiwer
import numpy as np
import soundfile
from _service import served

from soundstage.config import Settings
from soundstage.engines.dsp import join
from soundstage.engines.quality.distillmos import DistillMos
from soundstage.engines.quality.dnsmos import DnsMos
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.media.audio import Audio
from soundstage.voices.quality import QUALITY_FILE

ROOT = Path(__file__).resolve().parents[1]

SENTENCES: dict[str, list[str]] = json.loads(
    Path(__file__).with_name("voice_quality_sentences.json").read_text()
)
# Written without spaces between words: errors are counted per character.
UNSPACED = frozenset({"cmn", "ja"})
PAUSE_MS = 300


def units(text: str, language: str) -> list[str]:
    """The words (or, unspaced, the characters) of `text`, lower case, without punctuation."""
    cleaned = re.sub(r"[^\w\s']|(?<!\w)'|'(?!\w)", " ", text.lower())
    if language in UNSPACED:
        return [char for char in cleaned if not char.isspace()]
    return cleaned.split()


def cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def measure(
    client: httpx.Client, voice: dict[str, Any], whisper: Any, distill: DistillMos, dns: DnsMos
) -> dict[str, Any]:
    language = voice["language"]
    primary = language.split("-")[0].lower()
    readings: list[Audio] = []
    errors = total = 0
    answering = 0.0
    for text in SENTENCES[primary]:
        started = time.perf_counter()
        body = {"voice_id": voice["voice_id"], "format": "wav", "text": text}
        answer = client.post("/api/v1/speech/tts", json=body)
        answer.raise_for_status()
        answering += time.perf_counter() - started
        wav = httpx.get(answer.json()["output_url"]).content
        samples, rate = soundfile.read(io.BytesIO(wav), dtype="float32", always_2d=True)
        audio = Audio(np.ascontiguousarray(samples), rate)
        readings.append(audio)
        heard = whisper.transcribe(audio, language=language, word_timestamps=False).text
        said, got = units(text, primary), units(heard, primary)
        counts = jiwer.process_words(" ".join(said), " ".join(got) or "<nothing>")
        errors += counts.substitutions + counts.deletions + counts.insertions
        total += len(said)
    joined = join(readings, [PAUSE_MS] * len(readings))
    dnsmos = dns.scores(joined)
    return {
        "engine": voice["engine"],
        "language": language,
        "mos": round(distill.predict(joined), 2),
        "dnsmos_ovrl": round(dnsmos.overall, 2),
        "dnsmos_p808": round(dnsmos.p808, 2),
        "wer": round(errors / total, 3),
        "rtf": round(answering / (joined.duration_ms / 1000), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", nargs="+", help="voice ids (default: every catalog voice)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    figures: dict[str, dict[str, Any]] = {}
    with served(demo_catalog=True, credits=1_000_000) as (client, data_dir):
        whisper = get_transcriber("whisper-base", settings=Settings(data_dir=data_dir))
        distill, dns = DistillMos.load(), DnsMos.load()
        listed = client.get("/api/v1/voices", params={"limit": 100}).json()["data"]
        voices = [v for v in listed if not args.voices or v["voice_id"] in args.voices]
        print(f"{len(voices)} voices on {cpu()}, load average {os.getloadavg()[0]:.2f}")
        print(f"{'voice':<22} {'engine':<9} {'lang':<6} DistillMOS DNSMOS P808  WER    RTF")
        for voice in sorted(voices, key=lambda v: (v["language"], v["voice_id"])):
            row = measure(client, voice, whisper, distill, dns)
            figures[voice["voice_id"]] = row
            unit = "CER" if row["language"].split("-")[0] in UNSPACED else "WER"
            print(
                f"{voice['voice_id']:<22} {row['engine']:<9} {row['language']:<6} "
                f"{row['mos']:>10.2f} {row['dnsmos_ovrl']:>6.2f} {row['dnsmos_p808']:>4.2f} "
                f"{row['wer']:>6.1%} {row['rtf']:>6.2f} {unit if unit == 'CER' else ''}",
                flush=True,
            )
    if args.no_write:
        return
    stored = json.loads(QUALITY_FILE.read_text()) if QUALITY_FILE.exists() else {"voices": {}}
    stored["voices"].update(figures)
    stored.update(
        measured_on=datetime.date.today().isoformat(),
        cpu=cpu(),
        method=(
            "bench/voice_quality.py: three sentences per language through POST "
            "/api/v1/speech/tts; DistillMOS 0.9.1 and DNSMOS (speechmos 0.0.1.1) on the "
            "readings joined; whisper-base word error rate (character error rate for cmn and ja)"
        ),
    )
    stored["voices"] = dict(sorted(stored["voices"].items()))
    QUALITY_FILE.write_text(json.dumps(stored, indent=2, ensure_ascii=False) + "\n")
    print(f"written to {QUALITY_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
