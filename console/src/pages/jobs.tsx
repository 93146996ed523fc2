// Jobs: the caller's jobs (GET /api/v1/jobs, filtered by status and kind, a cursor "Load
// more"), and one job (GET /api/v1/jobs/{id}, polled until it ends): its progress and stage,
// timestamps, credits, the error envelope of a failed job, its result's media playable, and
// cancellation (POST /api/v1/jobs/{id}/cancel) while it may still run.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, type Page } from "../api";
import { ErrorBox, Loading, Section, formatDate } from "../components";
import type { PageProps } from "../page";
import { StatusBadge } from "../status-badge";
import "./jobs.css";

export type JobStatus = "queued" | "processing" | "completed" | "failed" | "cancelled";

export interface JobError {
  type: string;
  code: string;
  message: string;
  param: string | null;
}

export interface Job {
  object: "job";
  job_id: string;
  kind: string;
  environment: "sandbox" | "production";
  status: JobStatus;
  progress: number;
  stage: string | null;
  result: Record<string, unknown> | null;
  outputs_expire_at: string | null;
  error: JobError | null;
  credits_reserved: number;
  credits_used: number | null;
  estimated_completion_ms: number | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export const STATUSES: JobStatus[] = ["queued", "processing", "completed", "failed", "cancelled"];
/** The kinds of job the service runs (the `kind` filter of GET /api/v1/jobs). */
export const KINDS = ["tts", "tts_realtime", "dialogue", "stt", "stt_realtime", "alignment", "voice_changer", "isolation", "dubbing", "sound", "music", "daw"];
const TERMINAL: JobStatus[] = ["completed", "failed", "cancelled"];
const CANCELLABLE: JobStatus[] = ["queued", "processing"];
const POLL_MS = 1000;
const PAGE_SIZE = 20;

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL.includes(status);
}

// What a job that has ended shows where a running one shows its stage: its last stage is
// only where it stopped, not something it is still doing.
const OUTCOMES: Record<string, string> = { completed: "Succeeded", failed: "Failed", cancelled: "Cancelled" };

/** The stage a running job is in, or how an ended one ended. */
export function stageOrOutcome(job: Pick<Job, "status" | "stage">): string | null {
  return isTerminal(job.status) ? OUTCOMES[job.status] : job.stage;
}

function percent(progress: number): string {
  return `${Math.round(progress * 100)}%`;
}

function credits(job: Job): string {
  if (job.credits_used !== null && isTerminal(job.status)) return String(job.credits_used);
  return `${job.credits_reserved} reserved`;
}

export function Jobs(_: PageProps) {
  const [status, setStatus] = useState("");
  const [kind, setKind] = useState("");
  const [jobs, setJobs] = useState<Job[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<Error | null>(null);
  const [tick, setTick] = useState(0);
  // The filters a page was asked for: an answer to older filters is dropped.
  const asked = useRef(0);

  async function load(after: string | null) {
    const ask = after ? asked.current : ++asked.current;
    setLoading(true);
    setError(null);
    try {
      const page = await api<Page<Job>>("GET", "/api/v1/jobs", {
        query: { status, kind, limit: PAGE_SIZE, starting_after: after },
      });
      if (ask !== asked.current) return;
      setJobs((shown) => (after ? [...shown, ...page.data] : page.data));
      setHasMore(page.has_more);
    } catch (err) {
      if (ask === asked.current) setError(err as Error);
    } finally {
      if (ask === asked.current) setLoading(false);
    }
  }

  useEffect(() => {
    void load(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [status, kind, tick]);

  return (
    <>
      <h1>Jobs</h1>
      <section class="card" aria-labelledby="jobs-filters">
        <h2 id="jobs-filters">Filters</h2>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            setTick((t) => t + 1);
          }}
        >
          <div>
            <label for="jobs-status">Status</label>
            <select id="jobs-status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
              <option value="">Any status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="jobs-kind">Kind</label>
            <select id="jobs-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
              <option value="">Any kind</option>
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="secondary">
            Refresh
          </button>
        </form>
      </section>
      <Section title="Jobs, newest first">
        <ErrorBox error={error} />
        {!loading && !error && jobs.length === 0 && <p class="muted">No jobs match these filters.</p>}
        {jobs.length > 0 && (
          <div class="table-wrap">
            <table aria-label="Jobs">
              <thead>
                <tr>
                  <th scope="col">Job</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Status</th>
                  <th scope="col">Progress</th>
                  <th scope="col">Credits</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {jobs.map((job) => (
                  <tr key={job.job_id}>
                    <td>
                      <a href={`#/jobs/${encodeURIComponent(job.job_id)}`}>
                        <code>{job.job_id}</code>
                      </a>
                    </td>
                    <td>{job.kind}</td>
                    <td>
                      <StatusBadge status={job.status} />
                    </td>
                    <td>
                      {percent(job.progress)}
                      {stageOrOutcome(job) && <span class="muted"> · {stageOrOutcome(job)}</span>}
                    </td>
                    <td>{credits(job)}</td>
                    <td>{formatDate(job.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {loading && <Loading what="Loading jobs" />}
        {hasMore && !loading && (
          <p>
            <button type="button" class="secondary" onClick={() => void load(jobs[jobs.length - 1]?.job_id ?? null)}>
              Load more
            </button>
          </p>
        )}
      </Section>
    </>
  );
}

/** Every stage the job was seen in while this page watched it, in order, with the current one. */
function useStages(job: Job | null): string[] {
  const [seen, setSeen] = useState<string[]>([]);
  const id = job?.job_id;
  useEffect(() => setSeen([]), [id]);
  useEffect(() => {
    const stage = job?.stage;
    if (stage) setSeen((stages) => (stages[stages.length - 1] === stage ? stages : [...stages, stage]));
  }, [job?.stage, id]);
  return seen;
}

const AUDIO = /\.(mp3|wav|flac|ogg|opus|m4a|aac|webm)$/i;

function isMediaUrl(value: unknown): value is string {
  return typeof value === "string" && /^https?:\/\//.test(value);
}

function fieldName(key: string): string {
  return key.replace(/_url$/, "").replace(/_/g, " ");
}

function ResultMedia({ result }: { result: Record<string, unknown> }) {
  const media = Object.entries(result).filter(([, value]) => isMediaUrl(value)) as [string, string][];
  if (!media.length) return null;
  return (
    <ul class="job-media">
      {media.map(([key, href]) => {
        const path = new URL(href, location.href).pathname;
        const name = fieldName(key);
        return (
          <li key={key}>
            {AUDIO.test(path) ? (
              <figure>
                <figcaption>{name}</figcaption>
                <audio controls preload="metadata" src={href} aria-label={`Result: ${name}`} />
                <a href={href} download>
                  Download {name}
                </a>
              </figure>
            ) : (
              <a href={href} download>
                Download {name} ({path.split("/").pop()})
              </a>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function ResultFields({ result }: { result: Record<string, unknown> }) {
  const scalars = Object.entries(result).filter(
    ([, value]) => !isMediaUrl(value) && (value === null || typeof value !== "object"),
  );
  const nested = Object.entries(result).filter(([, value]) => value !== null && typeof value === "object");
  return (
    <>
      {scalars.length > 0 && (
        <dl class="job-fields">
          {scalars.map(([key, value]) => (
            <div key={key}>
              <dt>{key}</dt>
              <dd>{String(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      {nested.map(([key, value]) => (
        <details key={key}>
          <summary>{key}</summary>
          <pre class="job-json">{JSON.stringify(value, null, 2)}</pre>
        </details>
      ))}
    </>
  );
}

export function JobDetail({ params }: PageProps) {
  const id = params.id;
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<Error | null>(null);
  const stages = useStages(job);

  // Read the job, then again every POLL_MS while it has not ended.
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setJob(null);
    setError(null);
    const poll = async () => {
      try {
        const read = await api<Job>("GET", `/api/v1/jobs/${encodeURIComponent(id)}`);
        if (!live) return;
        setJob(read);
        setError(null);
        if (!isTerminal(read.status)) timer = setTimeout(poll, POLL_MS);
      } catch (err) {
        if (!live) return;
        setError(err as Error);
        // A passing failure (network) is retried; an answer such as 404 is final.
        if (!(err instanceof ApiError) || err.status >= 500) timer = setTimeout(poll, POLL_MS * 3);
      }
    };
    void poll();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [id]);

  async function cancel() {
    setCancelling(true);
    setCancelError(null);
    try {
      setJob(await api<Job>("POST", `/api/v1/jobs/${encodeURIComponent(id)}/cancel`));
    } catch (err) {
      setCancelError(err as Error);
    } finally {
      setCancelling(false);
    }
  }

  if (!job) {
    return (
      <>
        <p>
          <a href="#/jobs">← Jobs</a>
        </p>
        <h1>
          Job <code>{id}</code>
        </h1>
        {error ? <ErrorBox error={error} /> : <Loading what="Loading the job" />}
      </>
    );
  }

  const ended = isTerminal(job.status);
  return (
    <>
      <p>
        <a href="#/jobs">← Jobs</a>
      </p>
      <h1>
        Job <code>{job.job_id}</code>
      </h1>
      <ErrorBox error={error} />
      <div class="grid">
        <section class="card" aria-labelledby="job-status">
          <h2 id="job-status">Status</h2>
          <p>
            <StatusBadge status={job.status} /> <span class="muted">{job.kind}</span>
            {!ended && <span class="muted"> · updating every second</span>}
          </p>
          <label for="job-progress">Progress</label>
          <div class="job-progress">
            <progress id="job-progress" max={1} value={job.progress} aria-valuetext={percent(job.progress)} />
            <span>{percent(job.progress)}</span>
          </div>
          {ended ? (
            <p>
              Outcome: <strong data-testid="job-outcome">{stageOrOutcome(job)}</strong>
              {job.status !== "completed" && job.stage && <span class="muted"> (stopped while {job.stage})</span>}
            </p>
          ) : (
            <p>
              Stage: <strong data-testid="job-stage">{job.stage ?? "—"}</strong>
            </p>
          )}
          {stages.length > 1 && (
            <>
              <h3 class="job-subhead">Stages seen</h3>
              <ol class="job-stages" aria-label="Stages seen">
                {stages.map((stage, i) => (
                  <li key={stage + i} aria-current={i === stages.length - 1 && !ended ? "step" : undefined}>
                    {stage}
                  </li>
                ))}
              </ol>
            </>
          )}
          {CANCELLABLE.includes(job.status) && (
            <p>
              <button type="button" class="danger" disabled={cancelling} onClick={() => void cancel()}>
                {cancelling ? "Cancelling…" : "Cancel job"}
              </button>
            </p>
          )}
          <ErrorBox error={cancelError} />
        </section>
        <section class="card" aria-labelledby="job-facts">
          <h2 id="job-facts">Details</h2>
          <dl class="job-fields">
            <div>
              <dt>Environment</dt>
              <dd>{job.environment}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatDate(job.created_at)}</dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>{formatDate(job.started_at)}</dd>
            </div>
            <div>
              <dt>Ended</dt>
              <dd>{formatDate(job.completed_at)}</dd>
            </div>
            {!ended && job.estimated_completion_ms !== null && (
              <div>
                <dt>Estimated time</dt>
                <dd>{(job.estimated_completion_ms / 1000).toFixed(1)} s</dd>
              </div>
            )}
            <div>
              <dt>Attempts</dt>
              <dd>{job.attempts}</dd>
            </div>
            <div>
              <dt>Credits reserved</dt>
              <dd>{job.credits_reserved}</dd>
            </div>
            <div>
              <dt>Credits used</dt>
              <dd>{job.credits_used ?? "—"}</dd>
            </div>
            {job.outputs_expire_at && (
              <div>
                <dt>Outputs expire</dt>
                <dd>{formatDate(job.outputs_expire_at)}</dd>
              </div>
            )}
          </dl>
        </section>
      </div>
      {job.error && (
        <Section title="Error">
          <ErrorBox error={new ApiError(0, job.error.code, job.error.message, job.error.param)} />
          <p class="muted">
            Type <code>{job.error.type}</code>. A failed job is not charged.
          </p>
        </Section>
      )}
      {job.result && (
        <Section title="Result">
          <ResultMedia result={job.result} />
          <ResultFields result={job.result} />
        </Section>
      )}
    </>
  );
}
