// What the SDK scripts share: their options, the speech files cut into base64 chunks, a bound
// on the whole run, and the one JSON line each prints for the Python test that runs it.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

// Longer than any session here takes on a loaded CI machine; the test's own bound is longer.
const DEADLINE_MS = 150_000;

// --base-url (the live server, https://), --key (an API key), --audio (raw 16-bit mono PCM,
// once per utterance), --rate (its sample rate). The test authority comes in
// NODE_EXTRA_CA_CERTS, which Node reads as it starts.
export function options() {
  const { values } = parseArgs({
    options: {
      "base-url": { type: "string" },
      key: { type: "string" },
      audio: { type: "string", multiple: true },
      rate: { type: "string" },
    },
  });
  for (const name of ["base-url", "key", "audio", "rate"]) {
    if (values[name] === undefined) throw new Error(`--${name} is required`);
  }
  return {
    baseUrl: values["base-url"],
    key: values.key,
    audio: values.audio,
    rate: Number(values.rate),
  };
}

// A raw PCM file as base64 chunks of `ms` each, as a microphone would send it.
export function chunks(path, rate, ms = 100) {
  const pcm = readFileSync(path);
  const step = ((rate * ms) / 1000) * 2;
  const out = [];
  for (let at = 0; at < pcm.length; at += step) {
    out.push(pcm.subarray(at, at + step).toString("base64"));
  }
  return out;
}

// Prints the result once and ends the process: exit code 1 when `failure` is set.
export function finish(result, failure) {
  process.stdout.write(`${JSON.stringify({ ...result, failure: failure ?? null })}\n`);
  process.exit(failure ? 1 : 0);
}

// Ends the run with what it has so far once the deadline passes.
export function bound(result) {
  setTimeout(() => finish(result, `no result within ${DEADLINE_MS} ms`), DEADLINE_MS).unref();
}
