// A status shown as a coloured badge (a job's, a webhook endpoint's or delivery's).
import "./status-badge.css";

export function StatusBadge({ status }: { status: string }) {
  return <span class={`status status-badge-${status}`}>{status}</span>;
}
