"""Drives a LiveKit Agents plugin (ElevenLabs or OpenAI, TTS or STT) against a Soundstage
server, with no LiveKit server: run by the plugins' own virtualenv's python (see conftest.py),
it changes nothing but the plugin's base URL and key, and prints what it got as one JSON line.

    python drive.py CASE --base-url URL --key KEY [--text TEXT --out WAV] [--audio WAV]

A TTS case writes the audio it received to --out (16-bit mono WAV at the plugin's rate); an
STT case reads --audio (16-bit mono WAV) and prints the transcripts."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import wave
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from livekit import rtc
from livekit.agents import stt, tts, utils
from livekit.plugins import elevenlabs, openai

# The frames pushed into a streaming STT: 20 ms, as a room track delivers them.
FRAME_MS = 20
# How long a stream may take to answer what it was sent.
ANSWER_TIMEOUT_S = 240.0
# ElevenLabs' George (premade), the voice the compat tests speak with.
GEORGE = "JBFqnCBsd6RMkjVDRZzb"


def write_wav(path: Path, frames: list[rtc.AudioFrame]) -> dict[str, Any]:
    audio = rtc.combine_audio_frames(frames)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(audio.num_channels)
        out.setsampwidth(2)
        out.setframerate(audio.sample_rate)
        out.writeframes(audio.data.tobytes())
    return {
        "sample_rate": audio.sample_rate,
        "channels": audio.num_channels,
        "seconds": audio.duration,
        "frames": len(frames),
    }


def read_wav(path: Path) -> rtc.AudioFrame:
    with wave.open(str(path), "rb") as wav:
        assert wav.getnchannels() == 1
        assert wav.getsampwidth() == 2
        rate = wav.getframerate()
        data = wav.readframes(wav.getnframes())
    return rtc.AudioFrame(data, rate, 1, len(data) // 2)


def split(audio: rtc.AudioFrame, ms: int = FRAME_MS) -> list[rtc.AudioFrame]:
    step = audio.sample_rate * ms // 1000
    data = audio.data.tobytes()
    return [
        rtc.AudioFrame(
            data[i : i + step * 2], audio.sample_rate, 1, len(data[i : i + step * 2]) // 2
        )
        for i in range(0, len(data), step * 2)
    ]


async def synthesized(
    args: argparse.Namespace, engine: tts.TTS, *, streamed: bool
) -> dict[str, Any]:
    """The audio of `args.text`, said in one request (`synthesize`) or streamed word by word
    (`stream`: `push_text`, then `end_input`)."""
    events: list[tts.SynthesizedAudio] = []
    if streamed:
        async with engine.stream() as stream:
            for word in args.text.split(" "):
                stream.push_text(word + " ")
            stream.end_input()
            async for event in stream:
                events.append(event)
    else:
        async with engine.synthesize(args.text) as stream:
            async for event in stream:
                events.append(event)
    await engine.aclose()
    result = write_wav(args.out, [e.frame for e in events])
    result["finals"] = sum(1 for e in events if e.is_final)
    return result


async def recognized(args: argparse.Namespace, engine: stt.STT) -> dict[str, Any]:
    """The transcript of the whole recording, sent as one buffer."""
    event = await engine.recognize(read_wav(args.audio), language="en")
    await engine.aclose()
    return {"type": event.type.value, "finals": [event.alternatives[0].text]}


async def streamed(args: argparse.Namespace, engine: stt.STT, *, utterances: int) -> dict[str, Any]:
    """The final transcripts of the recording pushed in 20 ms frames (a flush, then the end of
    the input), read until `utterances` finals came."""
    finals: list[str] = []
    kinds: list[str] = []
    stream = engine.stream(language="en")
    for frame in split(read_wav(args.audio)):
        stream.push_frame(frame)
    stream.flush()
    stream.end_input()

    async def read() -> None:
        async for event in stream:
            kinds.append(event.type.value)
            if event.type == stt.SpeechEventType.FINAL_TRANSCRIPT:
                finals.append(event.alternatives[0].text)
                if len(finals) >= utterances:
                    return

    try:
        await asyncio.wait_for(read(), ANSWER_TIMEOUT_S)
    finally:
        await stream.aclose()
        await engine.aclose()
    return {"finals": finals, "events": kinds}


def elevenlabs_tts(args: argparse.Namespace) -> tts.TTS:
    return elevenlabs.TTS(base_url=f"{args.base_url}/elevenlabs/v1", api_key=args.key)


def openai_tts(args: argparse.Namespace) -> tts.TTS:
    return openai.TTS(base_url=f"{args.base_url}/v1", api_key=args.key)


def elevenlabs_stt(args: argparse.Namespace, **options: Any) -> stt.STT:
    return elevenlabs.STT(base_url=f"{args.base_url}/elevenlabs/v1", api_key=args.key, **options)


def openai_stt(args: argparse.Namespace, *, use_realtime: bool) -> stt.STT:
    return openai.STT(base_url=f"{args.base_url}/v1", api_key=args.key, use_realtime=use_realtime)


CASES: dict[str, Callable[[argparse.Namespace], Awaitable[dict[str, Any]]]] = {
    "elevenlabs-tts-stream": lambda a: synthesized(a, elevenlabs_tts(a), streamed=True),
    "elevenlabs-tts-synthesize": lambda a: synthesized(a, elevenlabs_tts(a), streamed=False),
    "openai-tts-synthesize": lambda a: synthesized(a, openai_tts(a), streamed=False),
    "openai-tts-stream": lambda a: synthesized(
        a, tts.StreamAdapter(tts=openai_tts(a)), streamed=True
    ),
    "elevenlabs-stt-recognize": lambda a: recognized(a, elevenlabs_stt(a)),
    "elevenlabs-stt-stream": lambda a: streamed(
        a, elevenlabs_stt(a, model="scribe_v2_realtime"), utterances=1
    ),
    "openai-stt-recognize": lambda a: recognized(a, openai_stt(a, use_realtime=False)),
    "openai-stt-stream": lambda a: streamed(
        a, openai_stt(a, use_realtime=True), utterances=a.utterances
    ),
}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--text", default="")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--audio", type=Path)
    parser.add_argument("--utterances", type=int, default=1)
    args = parser.parse_args()
    # What the plugins and the framework warn of (a refusal retried, a message not understood).
    warned = Warned()
    logging.getLogger("livekit").addHandler(warned)
    # The plugins' shared aiohttp session, as a job's context gives it them.
    async with utils.http_context.open():
        result = await CASES[args.case](args)
    result["warnings"] = warned.messages
    print(json.dumps(result))


class Warned(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


if __name__ == "__main__":
    asyncio.run(main())
