// OpenAI's JS SDK (OpenAIRealtimeWS, over wss://) in a transcription session with manual
// commits: each --audio file (PCM16 at 24 kHz) appended in 100 ms chunks, then committed.
// Prints every event's type, the committed items and the completed transcripts.
import OpenAI from "openai";
import { OpenAIRealtimeWS } from "openai/realtime/ws";

import { bound, chunks, finish, options } from "./common.mjs";

const COMPLETED = "conversation.item.input_audio_transcription.completed";
const { baseUrl, key, audio, rate } = options();
const result = { url: null, types: [], updated: null, committed: [], deltas: [], completed: [] };
bound(result);

const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key, maxRetries: 0 });
const rt = new OpenAIRealtimeWS({ model: "gpt-4o-transcribe" }, client);
result.url = rt.url.toString();

rt.on("error", (error) => finish(result, `error: ${error.message}`));
rt.socket.on("close", (code, reason) => finish(result, `closed early: ${code} ${reason}`));
rt.on("event", (event) => result.types.push(event.type));
rt.on("session.updated", (event) => {
  result.updated = event.session;
});
rt.on("input_audio_buffer.committed", (event) => {
  result.committed.push({ item_id: event.item_id, previous_item_id: event.previous_item_id });
});
rt.on("conversation.item.input_audio_transcription.delta", (event) => {
  result.deltas.push({ item_id: event.item_id, delta: event.delta });
});
rt.on(COMPLETED, (event) => {
  result.completed.push({
    item_id: event.item_id,
    content_index: event.content_index,
    transcript: event.transcript,
    usage: event.usage,
  });
  if (result.completed.length === audio.length) {
    rt.socket.removeAllListeners("close");
    rt.socket.on("close", (code) => finish({ ...result, close_code: code }));
    rt.close();
  }
});
rt.on("session.created", () => {
  rt.send({
    type: "session.update",
    session: {
      type: "transcription",
      audio: {
        input: {
          format: { type: "audio/pcm", rate: 24000 },
          transcription: { model: "gpt-4o-transcribe", language: "en" },
          turn_detection: null,
        },
      },
    },
  });
  for (const path of audio) {
    for (const piece of chunks(path, rate)) {
      rt.send({ type: "input_audio_buffer.append", audio: piece });
    }
    rt.send({ type: "input_audio_buffer.commit" });
  }
});
