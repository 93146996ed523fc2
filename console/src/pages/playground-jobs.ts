// The playground's jobs: what a submission answered, followed to its end. Synchronous
// operations answer the completed job (its result's fields inline); asynchronous ones
// (speech-to-text with `Prefer: respond-async`) answer `status: processing`, and the job is
// then polled at GET /api/v1/jobs/{id} until it ends, or until the component unmounts.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api";

export type JobStatus = "queued" | "processing" | "completed" | "failed" | "cancelled";

export const TERMINAL: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

/** What a POST of a speech or creative operation answers: at least the job and its status. */
export interface Submitted {
  job_id: string;
  status: string;
  [field: string]: unknown;
}

/** GET /api/v1/jobs/{id} (the fields the playground reads). */
export interface JobRecord {
  job_id: string;
  kind: string;
  status: JobStatus;
  progress: number;
  stage: string | null;
  result: Record<string, unknown> | null;
  error: { code: string; message: string; param?: string | null } | null;
  credits_used: number | null;
  estimated_completion_ms: number | null;
}

/** The job as the page shows it: its status, and its result once completed. */
export interface JobView {
  jobId: string;
  status: string;
  progress: number | null;
  stage: string | null;
  /** The operation's fields (`output_url`, `words`, `transcript`…) once completed. */
  result: Record<string, unknown> | null;
  creditsUsed: number | null;
  /** Why it failed or was cancelled, as an error the ErrorBox shows. */
  error: ApiError | null;
}

function fromSubmitted(answer: Submitted): JobView {
  const done = answer.status === "completed";
  return {
    jobId: answer.job_id,
    status: answer.status,
    progress: done ? 1 : null,
    stage: null,
    result: done ? answer : null,
    creditsUsed: typeof answer.credits_used === "number" ? answer.credits_used : null,
    error: null,
  };
}

function fromRecord(job: JobRecord): JobView {
  let error: ApiError | null = null;
  if (job.error) error = new ApiError(0, job.error.code, job.error.message, job.error.param ?? null);
  else if (job.status === "cancelled") error = new ApiError(0, "job_cancelled", `Job ${job.job_id} was cancelled.`);
  return {
    jobId: job.job_id,
    status: job.status,
    progress: job.progress,
    stage: job.stage,
    result: job.status === "completed" ? job.result : null,
    creditsUsed: job.credits_used,
    error,
  };
}

export interface FollowedJob {
  job: JobView | null;
  /** A failed poll (the job itself failing is `job.error`). */
  error: Error | null;
  /** True while the job has not ended. */
  running: boolean;
}

/** Follow `submitted` to its end: at once when it answered completed, else by polling GET
 * /api/v1/jobs/{id} every `intervalMs` until a terminal status. Polling stops when the
 * component unmounts or another job is given. */
export function useJob(submitted: Submitted | null, intervalMs = 500): FollowedJob {
  const [state, setState] = useState<FollowedJob>({ job: null, error: null, running: false });
  useEffect(() => {
    if (!submitted) {
      setState({ job: null, error: null, running: false });
      return;
    }
    const first = fromSubmitted(submitted);
    const ended = TERMINAL.has(first.status);
    setState({ job: first, error: null, running: !ended });
    if (ended) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const job = fromRecord(await api<JobRecord>("GET", `/api/v1/jobs/${encodeURIComponent(submitted.job_id)}`));
        if (!live) return;
        const done = TERMINAL.has(job.status);
        setState({ job, error: null, running: !done });
        if (!done) timer = setTimeout(poll, intervalMs);
      } catch (error) {
        if (live) setState((s) => ({ ...s, error: error as Error, running: false }));
      }
    };
    timer = setTimeout(poll, intervalMs);
    return () => {
      live = false;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [submitted, intervalMs]);
  return state;
}
