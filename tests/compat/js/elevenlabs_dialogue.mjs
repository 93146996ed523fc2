// ElevenLabs' JS SDK (textToDialogue, over http://) reading one dialogue: --inputs, a JSON list
// of {text, voiceId} turns, sent by --call `convert` (the audio in --format, written to --out)
// or `with-timestamps` (convertWithTimestamps: the SDK's parsed answer written to --out as
// JSON). Prints what came back: its size, content type and the header naming the job.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";

import { ElevenLabsClient } from "@elevenlabs/elevenlabs-js";

import { bound, finish } from "./common.mjs";

const { values } = parseArgs({
  options: {
    "base-url": { type: "string" },
    key: { type: "string" },
    call: { type: "string" },
    inputs: { type: "string" },
    format: { type: "string" },
    out: { type: "string" },
  },
});
for (const name of ["base-url", "key", "call", "inputs", "format", "out"]) {
  if (values[name] === undefined) throw new Error(`--${name} is required`);
}
const result = { call: values.call, bytes: 0, chunks: 0, contentType: null, jobId: null };
bound(result);

// No retries: the test sees the first answer.
const client = new ElevenLabsClient({
  baseUrl: `${values["base-url"]}/elevenlabs`,
  apiKey: values.key,
  maxRetries: 0,
  timeoutInSeconds: 120,
});
const request = {
  inputs: JSON.parse(values.inputs),
  modelId: "eleven_v3",
  outputFormat: values.format,
};

function answered(rawResponse) {
  result.contentType = rawResponse.headers.get("content-type");
  result.jobId = rawResponse.headers.get("soundstage-job-id");
}

try {
  if (values.call === "convert") {
    const { data, rawResponse } = await client.textToDialogue.convert(request).withRawResponse();
    answered(rawResponse);
    const pieces = [];
    for await (const chunk of data) pieces.push(Buffer.from(chunk));
    const audio = Buffer.concat(pieces);
    writeFileSync(values.out, audio);
    Object.assign(result, { bytes: audio.length, chunks: pieces.length });
  } else if (values.call === "with-timestamps") {
    const { data, rawResponse } = await client.textToDialogue
      .convertWithTimestamps(request)
      .withRawResponse();
    answered(rawResponse);
    const text = JSON.stringify(data);
    writeFileSync(values.out, text);
    result.bytes = text.length;
  } else {
    throw new Error(`no such --call: ${values.call}`);
  }
} catch (error) {
  // The SDK's ElevenLabsError carries the status and the body the server answered.
  finish(result, `${error.statusCode ?? ""} ${JSON.stringify(error.body ?? error.message)}`);
}
finish(result);
