// The playground's media pieces: an audio player that says where it is (and tells its time to
// the page), a microphone recorder, uploads, and a job's status line.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import { TERMINAL, type JobView } from "./playground-jobs";

export type PlayerState = "loading" | "ready" | "playing" | "paused" | "ended" | "error";

const STATE_TEXT: Record<PlayerState, string> = {
  loading: "Loading…",
  ready: "Ready",
  playing: "Playing",
  paused: "Paused",
  ended: "Played to the end",
  error: "Cannot be played",
};

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/** 83456 -> "01:23.456" */
export function clock(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  const minutes = Math.floor(total / 60000);
  const rest = total - minutes * 60000;
  return `${String(minutes).padStart(2, "0")}:${(rest / 1000).toFixed(3).padStart(6, "0")}`;
}

/** An <audio controls> with its state shown (and in `data-state`); `onTime` gets the playing
 * position in ms on every frame while it plays, and null once it stops at the end. */
export function Player({
  src,
  label,
  id,
  onTime,
}: {
  src: string;
  label: string;
  id: string;
  onTime?: (ms: number | null) => void;
}) {
  const audio = useRef<HTMLAudioElement>(null);
  // The state belongs to one src: a new src starts "loading" in the same render (resetting it
  // in an effect could undo a loadedmetadata that came first, as a blob URL's can).
  const [status, setStatus] = useState<{ src: string; state: PlayerState; duration: number | null }>({
    src,
    state: "loading",
    duration: null,
  });
  const fresh = { src, state: "loading" as PlayerState, duration: null };
  const { state, duration } = status.src === src ? status : fresh;
  const update = (change: (s: { state: PlayerState; duration: number | null }) => Partial<typeof status>) =>
    setStatus((s) => {
      const mine = s.src === src ? s : fresh;
      return { ...mine, ...change(mine) };
    });
  const setState = (next: PlayerState | ((s: PlayerState) => PlayerState)) =>
    update((s) => ({ state: typeof next === "function" ? next(s.state) : next }));
  useEffect(() => {
    if (state !== "playing" || !onTime) return;
    let frame = 0;
    const tick = () => {
      if (audio.current) onTime(audio.current.currentTime * 1000);
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [state, onTime]);
  const time = () => audio.current && onTime?.(audio.current.currentTime * 1000);
  return (
    <figure class="player" data-state={state}>
      <figcaption>
        <span id={`${id}-label`}>{label}</span>{" "}
        <span class="muted">
          {STATE_TEXT[state]}
          {duration !== null && Number.isFinite(duration) ? ` · ${seconds(duration * 1000)}` : ""}
        </span>
      </figcaption>
      <audio
        id={id}
        ref={audio}
        controls
        preload="auto"
        src={src}
        aria-labelledby={`${id}-label`}
        onLoadedMetadata={(e) => {
          const length = (e.currentTarget as HTMLAudioElement).duration;
          update((s) => ({ duration: length, state: s.state === "loading" ? "ready" : s.state }));
        }}
        onPlay={() => setState("playing")}
        onPause={(e) => !(e.currentTarget as HTMLAudioElement).ended && setState("paused")}
        onTimeUpdate={time}
        onSeeked={(e) => {
          if (!(e.currentTarget as HTMLAudioElement).ended) setState((s) => (s === "ended" ? "paused" : s));
          time();
        }}
        onEnded={() => {
          setState("ended");
          onTime?.(null);
        }}
        onError={() => setState("error")}
      />
    </figure>
  );
}

interface Media {
  id: string;
  url: string;
  duration_ms: number | null;
}

/** POST /api/v1/uploads: the file's media URL, which any `audio_url` takes. */
export async function upload(file: Blob, filename: string): Promise<Media> {
  const form = new FormData();
  form.append("file", file, filename);
  return api<Media>("POST", "/api/v1/uploads", { body: form });
}

/** The job's id (a link to its page), status, progress and charge. */
export function JobLine({ job }: { job: JobView }) {
  return (
    <p class="job-line">
      Job{" "}
      <a href={`#/jobs/${job.jobId}`}>
        <code>{job.jobId}</code>
      </a>{" "}
      <span class="status" data-status={job.status}>
        {job.status}
      </span>
      {/* Its stage only while it runs: an ended job's status is how it ended. */}
      {job.stage && !TERMINAL.has(job.status) ? <span class="muted"> {job.stage}</span> : null}
      {job.progress !== null && !TERMINAL.has(job.status) ? (
        <span class="muted"> {Math.round(job.progress * 100)}%</span>
      ) : null}
      {job.creditsUsed !== null && job.status === "completed" ? (
        <span class="muted"> · {job.creditsUsed} credits</span>
      ) : null}
    </p>
  );
}

export interface Recording {
  blob: Blob;
  filename: string;
}

function extensionOf(type: string): string {
  if (type.includes("ogg")) return "ogg";
  if (type.includes("mp4")) return "m4a";
  if (type.includes("wav")) return "wav";
  return "webm";
}

/** Record from the microphone (MediaRecorder); `onRecorded` gets the recording on stop. */
export function Recorder({ onRecorded, id }: { onRecorded: (recording: Recording) => void; id: string }) {
  const [recorder, setRecorder] = useState<MediaRecorder | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [started, setStarted] = useState<number>(0);
  const [elapsed, setElapsed] = useState(0);
  const supported = typeof MediaRecorder !== "undefined" && !!navigator.mediaDevices?.getUserMedia;
  useEffect(() => {
    if (!recorder) return;
    const timer = setInterval(() => setElapsed(Date.now() - started), 250);
    return () => clearInterval(timer);
  }, [recorder, started]);
  // Leaving the page stops a recording (and frees the microphone).
  const current = useRef<MediaRecorder | null>(null);
  current.current = recorder;
  useEffect(
    () => () => {
      const r = current.current;
      if (r && r.state !== "inactive") {
        r.ondataavailable = null;
        r.onstop = null;
        r.stop();
        r.stream.getTracks().forEach((t) => t.stop());
      }
    },
    [],
  );
  if (!supported) return <p class="muted">This browser cannot record from a microphone here.</p>;
  const start = async () => {
    setError(null);
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const rec = new MediaRecorder(stream);
      const chunks: Blob[] = [];
      rec.ondataavailable = (e) => e.data.size && chunks.push(e.data);
      rec.onstop = () => {
        stream.getTracks().forEach((t) => t.stop());
        const type = rec.mimeType || "audio/webm";
        onRecorded({ blob: new Blob(chunks, { type }), filename: `recording.${extensionOf(type)}` });
        setRecorder(null);
      };
      rec.start(250);
      setStarted(Date.now());
      setElapsed(0);
      setRecorder(rec);
    } catch (e) {
      setError(`The microphone could not be opened: ${(e as Error).message}`);
    }
  };
  return (
    <div class="recorder">
      {recorder ? (
        <button type="button" id={id} class="danger" onClick={() => recorder.stop()}>
          Stop recording
        </button>
      ) : (
        <button type="button" id={id} class="secondary" onClick={start}>
          Record from the microphone
        </button>
      )}
      {recorder && (
        <span class="recording" role="status">
          Recording… {seconds(elapsed)}
        </span>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** An object URL for `blob`, revoked when it changes or the component unmounts. */
export function useObjectUrl(blob: Blob | null): string | null {
  const [href, setHref] = useState<string | null>(null);
  useEffect(() => {
    if (!blob) {
      setHref(null);
      return;
    }
    const made = URL.createObjectURL(blob);
    setHref(made);
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return href;
}
