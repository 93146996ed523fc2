"""Drives pipecat's ElevenLabs WebSocket TTS or an OpenAI STT service (segmented or realtime)
against a Soundstage server, with no transport or media server: run by pipecat's own
virtualenv's python (see conftest.py), a Pipeline of an error watch, the one service and a
collector, fed frames as a transport would, the service given nothing but its base URL and key.
Prints what it got as one JSON line.

    python drive.py CASE --base-url URL --key KEY [--text TEXT --out WAV] [--audio WAV]

A TTS case writes the audio it received to --out (16-bit mono WAV at the pipeline's output
rate); an STT case reads --audio (16-bit mono WAV) and prints the transcripts."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import wave
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from loguru import logger
from pipecat.frames.frames import (
    EndFrame,
    ErrorFrame,
    Frame,
    InputAudioRawFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
    TTSStoppedFrame,
    TTSTextFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineParams, PipelineTask
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.elevenlabs.tts import ElevenLabsTTSService
from pipecat.services.openai.stt import OpenAIRealtimeSTTService, OpenAISTTService

# How long the service may take to answer (the worker's first model load included).
ANSWER_TIMEOUT_S = 240.0
# The frames of speech a transport delivers: 20 ms.
FRAME_MS = 20
OUT_RATE = 24000
# ElevenLabs' George (premade), the voice the compat tests speak with.
GEORGE = "JBFqnCBsd6RMkjVDRZzb"


class Collector(FrameProcessor):  # type: ignore[misc]  # pipecat is not in this venv
    """The pipeline's last processor: keeps the audio, transcripts and errors that reach it."""

    def __init__(self) -> None:
        super().__init__()
        self.audio = bytearray()
        self.rates: set[int] = set()
        self.transcripts: list[str] = []
        # The words pipecat times from the alignment the service sends with its audio.
        self.words: list[str] = []
        self.errors: list[str] = []
        self.stopped = asyncio.Event()
        self.transcribed = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            self.audio += frame.audio
            self.rates.add(frame.sample_rate)
        elif isinstance(frame, TTSStoppedFrame) and self.audio:
            self.stopped.set()
        elif isinstance(frame, TTSTextFrame):
            self.words.append(frame.text)
        elif isinstance(frame, TranscriptionFrame):
            self.transcripts.append(frame.text)
            self.transcribed.set()
        elif isinstance(frame, ErrorFrame):
            self.errors.append(frame.error)
            self.stopped.set()
            self.transcribed.set()
        await self.push_frame(frame, direction)


class ErrorWatch(FrameProcessor):  # type: ignore[misc]  # pipecat is not in this venv
    """The pipeline's first processor: the errors a service pushes upstream end the wait at
    once, kept on the collector."""

    def __init__(self, collector: Collector) -> None:
        super().__init__()
        self.collector = collector

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, ErrorFrame):
            self.collector.errors.append(frame.error)
            self.collector.stopped.set()
            self.collector.transcribed.set()
        await self.push_frame(frame, direction)


async def run(service: FrameProcessor, feed: list[Frame], done: str) -> Collector:
    """Run [error watch, service, collector], queue `feed`, wait for the collector's `done`
    event, end."""
    collector = Collector()
    task = PipelineTask(
        Pipeline([ErrorWatch(collector), service, collector]),
        params=PipelineParams(audio_in_sample_rate=16000, audio_out_sample_rate=OUT_RATE),
    )
    runner = PipelineRunner(handle_sigint=False)
    running = asyncio.create_task(runner.run(task))
    await task.queue_frames(feed)
    try:
        await asyncio.wait_for(getattr(collector, done).wait(), ANSWER_TIMEOUT_S)
    finally:
        await task.queue_frame(EndFrame())
        await asyncio.wait_for(running, ANSWER_TIMEOUT_S)
    return collector


async def tts(args: argparse.Namespace) -> dict[str, Any]:
    service = ElevenLabsTTSService(
        api_key=args.key,
        url=args.base_url.replace("http", "ws", 1) + "/elevenlabs",
        settings=ElevenLabsTTSService.Settings(voice=GEORGE),
    )
    collector = await run(service, [TTSSpeakFrame(args.text)], "stopped")
    with wave.open(str(args.out), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(OUT_RATE)
        out.writeframes(bytes(collector.audio))
    return {
        "rates": sorted(collector.rates),
        "seconds": len(collector.audio) / 2 / OUT_RATE,
        "words": collector.words,
        "errors": collector.errors,
    }


async def stt(args: argparse.Namespace, *, realtime: bool) -> dict[str, Any]:
    """The transcript of the recording, pushed in 20 ms frames between a VAD start and stop
    (as a transport's VAD would frame an utterance): the segmented service posts the segment to
    /v1/audio/transcriptions, the realtime one appends it and commits it on the stop."""
    with wave.open(str(args.audio), "rb") as wav:
        assert wav.getnchannels() == 1
        assert wav.getsampwidth() == 2
        rate = wav.getframerate()
        data = wav.readframes(wav.getnframes())
    step = rate * FRAME_MS // 1000 * 2
    frames: list[Frame] = [VADUserStartedSpeakingFrame()]
    frames += [
        InputAudioRawFrame(audio=data[i : i + step], sample_rate=rate, num_channels=1)
        for i in range(0, len(data), step)
    ]
    frames.append(VADUserStoppedSpeakingFrame())
    service: FrameProcessor
    if realtime:
        ws_url = args.base_url.replace("http", "ws", 1)
        service = OpenAIRealtimeSTTService(api_key=args.key, base_url=f"{ws_url}/v1/realtime")
    else:
        service = OpenAISTTService(api_key=args.key, base_url=f"{args.base_url}/v1")
    collector = await run(service, frames, "transcribed")
    return {"transcripts": collector.transcripts, "errors": collector.errors}


CASES: dict[str, Callable[[argparse.Namespace], Awaitable[dict[str, Any]]]] = {
    "elevenlabs-tts": tts,
    "openai-stt": lambda a: stt(a, realtime=False),
    "openai-realtime-stt": lambda a: stt(a, realtime=True),
}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--text", default="")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--audio", type=Path)
    args = parser.parse_args()
    # What pipecat warns of (a refusal, a message not understood), kept to be checked.
    warnings: list[str] = []
    logger.remove()
    logger.add(sys.stderr, level="DEBUG", filter=lambda r: "append" not in r["message"])
    logger.add(lambda m: warnings.append(str(m).strip()), level="WARNING")
    result = await CASES[args.case](args)
    result["warnings"] = warnings
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main())
