// ElevenLabs' JS SDK (forcedAlignment.create, over http://) aligning --text to the recording
// --audio (a file read and uploaded as the SDK's `file`): the SDK's parsed answer written to
// --out as JSON. Prints what came back: its size.
import { createReadStream, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";

import { ElevenLabsClient } from "@elevenlabs/elevenlabs-js";

import { bound, finish } from "./common.mjs";

const { values } = parseArgs({
  options: {
    "base-url": { type: "string" },
    key: { type: "string" },
    audio: { type: "string" },
    text: { type: "string" },
    out: { type: "string" },
  },
});
for (const name of ["base-url", "key", "audio", "text", "out"]) {
  if (values[name] === undefined) throw new Error(`--${name} is required`);
}
const result = { call: "forced-alignment", bytes: 0 };
bound(result);

// No retries: the test sees the first answer.
const client = new ElevenLabsClient({
  baseUrl: `${values["base-url"]}/elevenlabs`,
  apiKey: values.key,
  maxRetries: 0,
  timeoutInSeconds: 120,
});

try {
  const answer = await client.forcedAlignment.create({
    file: createReadStream(values.audio),
    text: values.text,
  });
  const text = JSON.stringify(answer);
  writeFileSync(values.out, text);
  result.bytes = text.length;
} catch (error) {
  // The SDK's ElevenLabsError carries the status and the body the server answered.
  finish(result, `${error.statusCode ?? ""} ${JSON.stringify(error.body ?? error.message)}`);
}
finish(result);
