// Page 2, the overview: the credit balance (GET /api/v1/credits), the credits charged per UTC
// day and operation (GET /api/v1/credits/usage, summed by the server so no ledger paging), and
// the latest jobs (GET /api/v1/jobs).
import { useState } from "preact/hooks";
import { api, type Page } from "../api";
import { ErrorBox, formatDate, Loading, Section, useLoad } from "../components";
import type { PageProps } from "../page";
import { UsageChart, type UsageDay } from "./overview-chart";
import "./overview.css";

interface CreditBalance {
  environment: "sandbox" | "production";
  balance: number;
  reserved: number;
  updated_at: string;
}

interface CreditUsage {
  environment: "sandbox" | "production";
  start_date: string;
  end_date: string;
  credits: number;
  days: UsageDay[];
}

interface Job {
  job_id: string;
  kind: string;
  status: string;
  credits_reserved: number;
  credits_used: number | null;
  created_at: string;
}

const WINDOWS = [7, 30, 90];
const RECENT_JOBS = 10;
// A job's credits are held while it runs; afterwards `credits_used` is what it was charged.
const ACTIVE = ["queued", "processing"];

export function Overview(_: PageProps) {
  return (
    <div class="overview-page">
      <h1>Overview</h1>
      <Balance />
      <Usage />
      <RecentJobs />
    </div>
  );
}

/** A number as the page shows it, with its exact value in `<data value>` for machines. */
function Credits({ value }: { value: number }) {
  return <data value={String(value)}>{value.toLocaleString()}</data>;
}

function Balance() {
  const balance = useLoad(() => api<CreditBalance>("GET", "/api/v1/credits"));
  return (
    <Section title="Credits">
      <ErrorBox error={balance.error} />
      {balance.loading && !balance.data && <Loading />}
      {balance.data && (
        <>
          <dl class="stats">
            <div>
              <dt>Balance</dt>
              <dd id="credit-balance">
                <Credits value={balance.data.balance} />
              </dd>
            </div>
            <div>
              <dt>Reserved</dt>
              <dd id="credit-reserved">
                <Credits value={balance.data.reserved} />
              </dd>
            </div>
          </dl>
          <p class="muted">
            Credits available to spend in {balance.data.environment}; reserved credits are held by running jobs
            and are charged or returned when they end. Updated {formatDate(balance.data.updated_at)}.{" "}
            <button type="button" class="secondary" onClick={balance.reload}>
              Refresh
            </button>
          </p>
        </>
      )}
    </Section>
  );
}

function Usage() {
  const [days, setDays] = useState(30);
  const usage = useLoad(() => api<CreditUsage>("GET", "/api/v1/credits/usage", { query: { days } }), [days]);
  return (
    <Section title="Usage">
      <div class="row usage-controls">
        <div>
          <label for="usage-days">Period</label>
          <select id="usage-days" value={days} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
            {WINDOWS.map((n) => (
              <option key={n} value={n}>
                Last {n} days
              </option>
            ))}
          </select>
        </div>
        {usage.data && (
          <p class="usage-total">
            <Credits value={usage.data.credits} /> credits charged from {usage.data.start_date} to{" "}
            {usage.data.end_date} (UTC days)
          </p>
        )}
      </div>
      <ErrorBox error={usage.error} />
      {usage.loading && !usage.data && <Loading />}
      {usage.data &&
        (usage.data.credits > 0 ? (
          <UsageChart days={usage.data.days} />
        ) : (
          <p class="muted">No credits were charged in these {usage.data.days.length} days.</p>
        ))}
    </Section>
  );
}

function RecentJobs() {
  const jobs = useLoad(() => api<Page<Job>>("GET", "/api/v1/jobs", { query: { limit: RECENT_JOBS } }));
  return (
    <Section title="Recent jobs">
      <ErrorBox error={jobs.error} />
      {jobs.loading && !jobs.data && <Loading />}
      {jobs.data && jobs.data.data.length === 0 && <p class="muted">No jobs yet: try the Playground.</p>}
      {jobs.data && jobs.data.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col" class="number">
                  Credits
                </th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.data.map((job) => (
                <tr key={job.job_id}>
                  <td>
                    <a href={`#/jobs/${encodeURIComponent(job.job_id)}`}>
                      <code>{job.job_id}</code>
                    </a>
                  </td>
                  <td>{job.kind}</td>
                  <td>
                    <span class={`status status-${job.status}`}>{job.status}</span>
                  </td>
                  <td class="number">
                    {ACTIVE.includes(job.status)
                      ? `${job.credits_reserved.toLocaleString()} reserved`
                      : (job.credits_used ?? 0).toLocaleString()}
                  </td>
                  <td>{formatDate(job.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p>
        <a href="#/jobs">All jobs</a>
      </p>
    </Section>
  );
}
