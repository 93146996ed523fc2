// The playground: try each operation with the signed-in key. Text to speech (with the words
// highlighted as they are spoken), speech to text (a file or the microphone; SRT and VTT),
// sound effects and music, voice isolation. Every run is a real job, listed under Jobs.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { PageProps } from "../page";
import { api, apiBlob, listAll } from "../api";
import { ErrorBox, Loading, useLoad } from "../components";
import { useJob, type Submitted } from "./playground-jobs";
import { clock, JobLine, Player, Recorder, seconds, upload, useObjectUrl, type Recording } from "./playground-media";
import "./playground.css";

const TABS = [
  { id: "tts", title: "Text to speech" },
  { id: "stt", title: "Speech to text" },
  { id: "creative", title: "Sound effects and music" },
  { id: "isolation", title: "Voice isolation" },
] as const;
type TabId = (typeof TABS)[number]["id"];

export function Playground(_: PageProps) {
  const [tab, setTab] = useState<TabId>("tts");
  const buttons = useRef<Record<string, HTMLButtonElement | null>>({});
  const onKeyDown = (e: KeyboardEvent) => {
    const at = TABS.findIndex((t) => t.id === tab);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: TABS.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    const chosen = TABS[(next + TABS.length) % TABS.length]!.id;
    setTab(chosen);
    buttons.current[chosen]?.focus();
  };
  return (
    <div class="playground">
      <h1>Playground</h1>
      <p class="muted">
        Every run is a real job with the signed-in key, charged like any API call and listed under{" "}
        <a href="#/jobs">Jobs</a>.
      </p>
      <div class="tabs" role="tablist" aria-label="Operations" onKeyDown={onKeyDown}>
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            ref={(el) => {
              buttons.current[t.id] = el;
            }}
            onClick={() => setTab(t.id)}
          >
            {t.title}
          </button>
        ))}
      </div>
      {/* Every panel stays mounted, so a result survives a look at another tab. */}
      <Panel id="tts" tab={tab}>
        <TextToSpeech />
      </Panel>
      <Panel id="stt" tab={tab}>
        <SpeechToText />
      </Panel>
      <Panel id="creative" tab={tab}>
        <Creative />
      </Panel>
      <Panel id="isolation" tab={tab}>
        <Isolation />
      </Panel>
    </div>
  );
}

function Panel({ id, tab, children }: { id: TabId; tab: TabId; children: ComponentChildren }) {
  return (
    <section class="card" role="tabpanel" id={`panel-${id}`} aria-labelledby={`tab-${id}`} hidden={tab !== id} tabIndex={0}>
      {children}
    </section>
  );
}

/** A submission: its answer followed to its end, its error, whether it is under way. */
function useSubmission() {
  const [submitted, setSubmitted] = useState<Submitted | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [sending, setSending] = useState(false);
  const followed = useJob(submitted);
  const submit = async (send: () => Promise<Submitted>) => {
    setError(null);
    setSubmitted(null);
    setSending(true);
    try {
      setSubmitted(await send());
    } catch (e) {
      setError(e as Error);
    } finally {
      setSending(false);
    }
  };
  const job = followed.job;
  return {
    submit,
    job,
    busy: sending || followed.running,
    error: error ?? followed.error ?? job?.error ?? null,
    result: job?.status === "completed" ? job.result : null,
  };
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function valueOf(e: Event): string {
  return (e.currentTarget as HTMLInputElement).value;
}

// ---- Text to speech ------------------------------------------------------------------------

interface Voice {
  voice_id: string;
  name: string;
  language: string;
  gender: string;
  accent: string;
  description: string;
  preview_url: string;
  quality: VoiceQuality | null;
}

// As bench/voice_quality.py measured the voice (GET /api/v1/voices).
interface VoiceQuality {
  mos: number;
  wer: number;
  measured_on: string;
}

// The API lists voices language by language, the best-rated first: the picker keeps that
// order in one group per language and starts on the best-rated voice of all.
function byLanguage(voices: Voice[]): [string, Voice[]][] {
  const groups = new Map<string, Voice[]>();
  for (const v of voices) groups.set(v.language, [...(groups.get(v.language) ?? []), v]);
  return [...groups.entries()];
}

function bestRated(voices: Voice[]): Voice | undefined {
  return voices.reduce<Voice | undefined>(
    (best, v) => ((v.quality?.mos ?? 0) > (best?.quality?.mos ?? 0) ? v : best),
    voices[0],
  );
}

function rating(v: Voice): string {
  return v.quality ? `MOS ${v.quality.mos.toFixed(1)}` : "not rated";
}

function VoiceQualityLine({ voice }: { voice: Voice }) {
  const q = voice.quality;
  if (!q) return <p class="muted voice-quality">Not rated yet.</p>;
  return (
    <p class="muted voice-quality" aria-label="Rated naturalness">
      Naturalness {q.mos.toFixed(2)} / 5 (DistillMOS), {(q.wer * 100).toFixed(1)}% of words misheard by
      Whisper; measured {q.measured_on}.
    </p>
  );
}

interface TimedWord {
  word: string;
  start_ms: number;
  end_ms: number;
}

function TextToSpeech() {
  const voices = useLoad(() => listAll<Voice>("/api/v1/voices"), []);
  const [voiceId, setVoiceId] = useState("");
  const [words, setWords] = useState("Welcome to the Soundstage playground.");
  const [speed, setSpeed] = useState("1");
  const [pitch, setPitch] = useState("0");
  const [format, setFormat] = useState("mp3");
  const run = useSubmission();
  const list = voices.data ?? [];
  const voice = list.find((v) => v.voice_id === voiceId) ?? bestRated(list);
  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (!voice) return;
    void run.submit(() =>
      api<Submitted>("POST", "/api/v1/speech/tts", {
        body: { text: words, voice_id: voice.voice_id, format, speed: Number(speed), pitch: Number(pitch), timestamps: true },
      }),
    );
  };
  return (
    <>
      <h2>Text to speech</h2>
      <ErrorBox error={voices.error} />
      {voices.loading && !voices.data ? (
        <Loading what="Loading the voices" />
      ) : (
        <form onSubmit={onSubmit}>
          <div class="grid">
            <div>
              <label for="tts-voice">Voice</label>
              <select id="tts-voice" value={voice?.voice_id ?? ""} onChange={(e) => setVoiceId(valueOf(e))}>
                {byLanguage(list).map(([language, group]) => (
                  <optgroup key={language} label={language}>
                    {group.map((v) => (
                      <option key={v.voice_id} value={v.voice_id}>
                        {v.name} ({v.gender}, {v.accent}, {rating(v)})
                      </option>
                    ))}
                  </optgroup>
                ))}
              </select>
              {voice && (
                <>
                  <p class="muted voice-description">{voice.description}</p>
                  <VoiceQualityLine voice={voice} />
                  <Player id="tts-preview" src={voice.preview_url} label={`Preview of ${voice.name}`} />
                </>
              )}
            </div>
            <div>
              <label for="tts-text">Text</label>
              <textarea id="tts-text" maxLength={5000} required value={words} onInput={(e) => setWords(valueOf(e))} />
              <p class="muted">
                {words.length} / 5,000 characters, 1 credit each
              </p>
            </div>
          </div>
          <div class="row">
            <div>
              <label for="tts-speed">Speed</label>
              <input id="tts-speed" type="number" min={0.5} max={2} step={0.1} required value={speed} onInput={(e) => setSpeed(valueOf(e))} />
            </div>
            <div>
              <label for="tts-pitch">Pitch (semitones)</label>
              <input id="tts-pitch" type="number" min={-12} max={12} step={1} required value={pitch} onInput={(e) => setPitch(valueOf(e))} />
            </div>
            <div>
              <label for="tts-format">Output format</label>
              <select id="tts-format" value={format} onChange={(e) => setFormat(valueOf(e))}>
                <option value="mp3">MP3</option>
                <option value="wav">WAV</option>
                <option value="flac">FLAC</option>
              </select>
            </div>
            <button type="submit" disabled={run.busy || !voice}>
              {run.busy ? "Speaking…" : "Speak"}
            </button>
          </div>
        </form>
      )}
      <ErrorBox error={run.error} />
      {run.job && <JobLine job={run.job} />}
      {run.result && <SpokenText result={run.result} />}
    </>
  );
}

/** The index of the word spoken at `ms`: from its start to the next word's start. */
function wordAt(words: TimedWord[], ms: number | null): number {
  if (ms === null) return -1;
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i]!;
    if (word.start_ms <= ms) return i === words.length - 1 && ms >= word.end_ms ? -1 : i;
  }
  return -1;
}

function SpokenText({ result }: { result: Record<string, unknown> }) {
  const [time, setTime] = useState<number | null>(null);
  const onTime = useCallback((ms: number | null) => setTime(ms), []);
  const words = (result.words as TimedWord[] | undefined) ?? [];
  const current = wordAt(words, time);
  return (
    <div class="result">
      <Player id="tts-result" src={text(result.output_url)} label="Speech" onTime={onTime} />
      <h3 id="tts-words-title">Word timestamps</h3>
      <ol class="words" aria-labelledby="tts-words-title">
        {words.map((w, i) => (
          <li key={i} class={i === current ? "word current" : "word"} aria-current={i === current ? "true" : undefined}>
            <span class="word-text">{w.word}</span>
            <span class="word-time">{seconds(w.start_ms)}</span>
          </li>
        ))}
      </ol>
      {typeof result.duration_ms === "number" && <p class="muted">Duration {seconds(result.duration_ms)}</p>}
    </div>
  );
}

// ---- Speech to text ------------------------------------------------------------------------

interface SttWord extends TimedWord {
  speaker?: string | null;
}

interface Segment {
  text: string;
  start_ms: number;
  end_ms: number;
  speaker?: string | null;
}

interface Speaker {
  speaker: string;
  segments: { start_ms: number; end_ms: number }[];
}

const LANGUAGES: [string, string][] = [
  ["en", "English"],
  ["auto", "Detect the language"],
  ["es", "Spanish"],
  ["fr", "French"],
  ["de", "German"],
  ["it", "Italian"],
  ["pt", "Portuguese"],
  ["nl", "Dutch"],
  ["ja", "Japanese"],
  ["zh", "Chinese"],
];

function SpeechToText() {
  const [source, setSource] = useState<Recording | null>(null);
  const [language, setLanguage] = useState("en");
  const [diarize, setDiarize] = useState(false);
  const run = useSubmission();
  const recorded = source && !(source.blob instanceof File) ? source.blob : null;
  const recordingUrl = useObjectUrl(recorded);
  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (!source) return;
    void run.submit(async () => {
      const media = await upload(source.blob, source.filename);
      // Asynchronous: answered at once, then followed at GET /api/v1/jobs/{id}.
      return api<Submitted>("POST", "/api/v1/speech/stt", {
        body: { audio_url: media.url, language, diarize, timestamps: true },
        headers: { Prefer: "respond-async" },
      });
    });
  };
  return (
    <>
      <h2>Speech to text</h2>
      <form onSubmit={onSubmit}>
        <div class="grid">
          <div>
            <label for="stt-file">Audio file</label>
            <input
              id="stt-file"
              type="file"
              accept="audio/*,video/*"
              onChange={(e) => {
                const file = (e.currentTarget as HTMLInputElement).files?.[0];
                if (file) setSource({ blob: file, filename: file.name });
              }}
            />
            <p class="muted">MP3, WAV, FLAC, M4A, or any recording FFmpeg reads.</p>
          </div>
          <div>
            <p class="field-title">Or record</p>
            <Recorder id="stt-record" onRecorded={setSource} />
            {recordingUrl && <Player id="stt-recording" src={recordingUrl} label="Your recording" />}
          </div>
        </div>
        <div class="row">
          <div>
            <label for="stt-language">Language</label>
            <select id="stt-language" value={language} onChange={(e) => setLanguage(valueOf(e))}>
              {LANGUAGES.map(([code, name]) => (
                <option key={code} value={code}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <div class="check">
            <input id="stt-diarize" type="checkbox" checked={diarize} onChange={(e) => setDiarize((e.currentTarget as HTMLInputElement).checked)} />
            <label for="stt-diarize">Tell the speakers apart</label>
          </div>
          <button type="submit" disabled={run.busy || !source}>
            {run.busy ? "Transcribing…" : "Transcribe"}
          </button>
        </div>
        {source && <p class="muted">To transcribe: {source.filename}</p>}
      </form>
      <ErrorBox error={run.error} />
      {run.job && <JobLine job={run.job} />}
      {run.busy && run.job && <Loading what="Transcribing" />}
      {run.result && run.job && <Transcript jobId={run.job.jobId} result={run.result} />}
    </>
  );
}

function Transcript({ jobId, result }: { jobId: string; result: Record<string, unknown> }) {
  const segments = (result.segments as Segment[] | undefined) ?? [];
  const words = (result.words as SttWord[] | undefined) ?? [];
  const speakers = (result.speakers as Speaker[] | undefined) ?? [];
  const diarized = segments.some((s) => s.speaker);
  return (
    <div class="result">
      <h3>Transcript</h3>
      <blockquote class="transcript">{text(result.transcript) || <span class="muted">Nothing was said.</span>}</blockquote>
      <p class="muted">
        Language {text(result.language)}
        {typeof result.duration_ms === "number" ? ` · ${seconds(result.duration_ms)} of audio` : ""}
      </p>
      <Subtitles jobId={jobId} />
      {speakers.length > 0 && (
        <>
          <h3>Speakers</h3>
          <ul>
            {speakers.map((s) => (
              <li key={s.speaker}>
                {s.speaker}: {s.segments.length} turn{s.segments.length === 1 ? "" : "s"},{" "}
                {seconds(s.segments.reduce((sum, seg) => sum + seg.end_ms - seg.start_ms, 0))}
              </li>
            ))}
          </ul>
        </>
      )}
      <div class="table-wrap">
        <table>
          <caption class="muted">Segments with their timestamps</caption>
          <thead>
            <tr>
              <th scope="col">Start</th>
              <th scope="col">End</th>
              {diarized && <th scope="col">Speaker</th>}
              <th scope="col">Text</th>
            </tr>
          </thead>
          <tbody>
            {segments.map((s, i) => (
              <tr key={i}>
                <td>{clock(s.start_ms)}</td>
                <td>{clock(s.end_ms)}</td>
                {diarized && <td>{s.speaker ?? ""}</td>}
                <td>{s.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {words.length > 0 && (
        <details>
          <summary>Words ({words.length})</summary>
          <ol class="words">
            {words.map((w, i) => (
              <li key={i} class="word">
                <span class="word-text">{w.word}</span>
                <span class="word-time">
                  {seconds(w.start_ms)}
                  {w.speaker ? ` · ${w.speaker}` : ""}
                </span>
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}

/** SRT and VTT of a finished transcript: fetched with the key, offered as object URLs. */
function Subtitles({ jobId }: { jobId: string }) {
  const files = useLoad(async () => {
    const path = `/api/v1/jobs/${encodeURIComponent(jobId)}/transcript`;
    const [srt, vtt] = await Promise.all([apiBlob("GET", `${path}.srt`), apiBlob("GET", `${path}.vtt`)]);
    return { srt, vtt };
  }, [jobId]);
  const srt = useObjectUrl(files.data?.srt ?? null);
  const vtt = useObjectUrl(files.data?.vtt ?? null);
  if (files.error) return <ErrorBox error={files.error} />;
  if (!srt || !vtt) return <Loading what="Preparing the subtitles" />;
  return (
    <p class="downloads">
      <a href={srt} download={`${jobId}.srt`}>
        Download SRT
      </a>
      <a href={vtt} download={`${jobId}.vtt`}>
        Download VTT
      </a>
    </p>
  );
}

// ---- Sound effects and music ---------------------------------------------------------------

interface SoundRecipe {
  label: string;
  weight: number;
}

function Creative() {
  const [kind, setKind] = useState<"sound" | "music">("sound");
  const [prompt, setPrompt] = useState("rain on a tin roof with distant thunder");
  const [duration, setDuration] = useState("5");
  const [format, setFormat] = useState("wav");
  const [instrumental, setInstrumental] = useState(true);
  const run = useSubmission();
  const [min, max] = kind === "sound" ? [1, 30] : [10, 300];
  useEffect(() => {
    setDuration((d) => String(Math.min(max, Math.max(min, Number(d) || min))));
  }, [kind, min, max]);
  const onSubmit = (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = { prompt, duration_seconds: Number(duration), format };
    if (kind === "music") body.instrumental = instrumental;
    void run.submit(() => api<Submitted>("POST", `/api/v1/creative/${kind}`, { body }));
  };
  const recipes = (run.result?.recipes as SoundRecipe[] | undefined) ?? [];
  return (
    <>
      <h2>Sound effects and music</h2>
      <form onSubmit={onSubmit}>
        <fieldset class="choice">
          <legend>Make</legend>
          <label>
            <input type="radio" name="creative-kind" value="sound" checked={kind === "sound"} onChange={() => setKind("sound")} /> A sound
            effect (1 to 30 s, 150 credits)
          </label>
          <label>
            <input type="radio" name="creative-kind" value="music" checked={kind === "music"} onChange={() => setKind("music")} /> Music (10
            to 300 s, 750 credits a minute)
          </label>
        </fieldset>
        <label for="creative-prompt">Prompt</label>
        <textarea id="creative-prompt" maxLength={500} required value={prompt} onInput={(e) => setPrompt(valueOf(e))} />
        <div class="row">
          <div>
            <label for="creative-duration">Duration (seconds)</label>
            <input id="creative-duration" type="number" min={min} max={max} step={1} required value={duration} onInput={(e) => setDuration(valueOf(e))} />
          </div>
          <div>
            <label for="creative-format">Output format</label>
            <select id="creative-format" value={format} onChange={(e) => setFormat(valueOf(e))}>
              <option value="wav">WAV</option>
              <option value="mp3">MP3</option>
              <option value="flac">FLAC</option>
            </select>
          </div>
          {kind === "music" && (
            <div class="check">
              <input
                id="creative-instrumental"
                type="checkbox"
                checked={instrumental}
                onChange={(e) => setInstrumental((e.currentTarget as HTMLInputElement).checked)}
              />
              <label for="creative-instrumental">Instrumental (no singing)</label>
            </div>
          )}
          <button type="submit" disabled={run.busy}>
            {run.busy ? "Generating…" : "Generate"}
          </button>
        </div>
      </form>
      <ErrorBox error={run.error} />
      {run.job && <JobLine job={run.job} />}
      {run.result && (
        <div class="result">
          <Player id="creative-result" src={text(run.result.output_url)} label={kind === "sound" ? "Sound effect" : "Music"} />
          {recipes.length > 0 && (
            <p class="muted">
              Made of:{" "}
              {recipes.map((r) => `${r.label} (${Math.round(r.weight * 100)}%)`).join(", ")}
              {typeof run.result.confidence === "number" ? ` · confidence ${Math.round(run.result.confidence * 100)}%` : ""}
            </p>
          )}
          {typeof run.result.seed === "number" && <p class="muted">Seed {run.result.seed}: send it again for the same result.</p>}
        </div>
      )}
    </>
  );
}

// ---- Voice isolation -----------------------------------------------------------------------

function Isolation() {
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState("wav");
  const run = useSubmission();
  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    void run.submit(async () => {
      const media = await upload(file, file.name);
      return api<Submitted>("POST", "/api/v1/speech/isolator", {
        body: { audio_url: media.url, format, return_background: true },
      });
    });
  };
  return (
    <>
      <h2>Voice isolation</h2>
      <form onSubmit={onSubmit}>
        <div class="row">
          <div>
            <label for="isolation-file">Mixed audio file</label>
            <input id="isolation-file" type="file" accept="audio/*,video/*" onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null)} />
          </div>
          <div>
            <label for="isolation-format">Output format</label>
            <select id="isolation-format" value={format} onChange={(e) => setFormat(valueOf(e))}>
              <option value="wav">WAV</option>
              <option value="mp3">MP3</option>
              <option value="flac">FLAC</option>
            </select>
          </div>
          <button type="submit" disabled={run.busy || !file}>
            {run.busy ? "Isolating…" : "Isolate the voice"}
          </button>
        </div>
        <p class="muted">750 credits a minute of audio.</p>
      </form>
      <ErrorBox error={run.error} />
      {run.job && <JobLine job={run.job} />}
      {run.result && (
        <div class="result grid">
          <Player id="isolation-vocals" src={text(run.result.vocals_url)} label="Vocals" />
          {text(run.result.background_url) && <Player id="isolation-background" src={text(run.result.background_url)} label="Background" />}
        </div>
      )}
    </>
  );
}
