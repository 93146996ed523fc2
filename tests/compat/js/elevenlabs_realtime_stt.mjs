// ElevenLabs' JS SDK (speechToText.realtime, over wss://) in a realtime Scribe session with
// manual commits: each --audio file (PCM16 at --rate) sent in 100 ms chunks, then committed.
// Prints the session's config, the partials' count and the committed transcripts.
import {
  AudioFormat,
  CommitStrategy,
  ElevenLabsClient,
  RealtimeEvents,
} from "@elevenlabs/elevenlabs-js";

import { bound, chunks, finish, options } from "./common.mjs";

const { baseUrl, key, audio, rate } = options();
const result = { config: null, partials: 0, committed: [], timestamped: [] };
bound(result);

const client = new ElevenLabsClient({ baseUrl: `${baseUrl}/elevenlabs`, apiKey: key });
const connection = await client.speechToText.realtime.connect({
  modelId: "scribe_v2_realtime",
  audioFormat: AudioFormat[`PCM_${rate}`],
  sampleRate: rate,
  commitStrategy: CommitStrategy.MANUAL,
  includeTimestamps: true,
  languageCode: "en",
});
let closing = false;

// A server's error message ({message_type, error}) or the socket's own (an Error).
connection.on(RealtimeEvents.ERROR, (error) => {
  finish(result, `error: ${JSON.stringify(error.error ?? error.message ?? error)}`);
});
connection.on(RealtimeEvents.CLOSE, () => finish(result, closing ? null : "closed early"));
connection.on(RealtimeEvents.PARTIAL_TRANSCRIPT, () => {
  result.partials += 1;
});
connection.on(RealtimeEvents.COMMITTED_TRANSCRIPT, (message) => {
  result.committed.push(message.text);
});
connection.on(RealtimeEvents.COMMITTED_TRANSCRIPT_WITH_TIMESTAMPS, (message) => {
  const { text, language_code, words } = message;
  result.timestamped.push({ text, language_code, words });
  if (result.timestamped.length === audio.length) {
    closing = true;
    connection.close();
  }
});
connection.on(RealtimeEvents.SESSION_STARTED, (message) => {
  result.config = message.config;
  for (const path of audio) {
    for (const piece of chunks(path, rate)) connection.send({ audioBase64: piece });
    connection.commit();
  }
});
