// Webhooks: the caller's endpoints (create with a URL and the events to receive, the signing
// secret shown once; delete), the deliveries of an endpoint or of an event with every attempt,
// redelivery, and the events (GET /api/v1/events).
import { useEffect, useRef, useState } from "preact/hooks";
import { api, listAll, type Page } from "../api";
import { CopyButton, ErrorBox, Loading, Section, formatDate, useLoad } from "../components";
import type { PageProps } from "../page";
import { StatusBadge } from "../status-badge";
import "./webhooks.css";

/** Every event type the service emits (webhooks.schemas.EventType). */
export const EVENT_TYPES = [
  "daw.completed",
  "daw.failed",
  "daw.cancelled",
  "dubbing.completed",
  "dubbing.failed",
  "dubbing.cancelled",
  "job.completed",
  "job.failed",
  "job.cancelled",
];
const ALL = "*";
const POLL_MS = 1500;

interface Endpoint {
  object: "webhook_endpoint";
  id: string;
  url: string;
  description: string | null;
  enabled_events: string[];
  status: "enabled" | "disabled";
  disabled_reason: "gone" | "failing" | null;
  created_at: string;
}

interface CreatedEndpoint extends Endpoint {
  secret: string;
}

interface Attempt {
  id: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
}

interface Delivery {
  object: "webhook_delivery";
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: "pending" | "succeeded" | "failed";
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: Attempt[];
  created_at: string;
  updated_at: string;
}

interface Event {
  object: "event";
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** Whose deliveries are shown: one endpoint's, or one event's (over every endpoint). */
type Subject = { endpoint: Endpoint } | { event: Event };

function CreateEndpoint({ onCreated }: { onCreated: (endpoint: CreatedEndpoint) => void }) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [every, setEvery] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);

  async function submit(e: SubmitEvent) {
    e.preventDefault();
    if (!every && chosen.length === 0) {
      setError(new Error("Choose at least one event, or every event."));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const created = await api<CreatedEndpoint>("POST", "/api/v1/webhooks/endpoints", {
        body: {
          url: url.trim(),
          description: description.trim() || undefined,
          enabled_events: every ? [ALL] : EVENT_TYPES.filter((t) => chosen.includes(t)),
        },
      });
      setUrl("");
      setDescription("");
      onCreated(created);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)}>
      <label for="webhook-url">Endpoint URL</label>
      <input
        id="webhook-url"
        type="url"
        required
        placeholder="https://example.com/webhooks/soundstage"
        value={url}
        onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
      />
      <label for="webhook-description">Description (optional)</label>
      <input
        id="webhook-description"
        maxLength={500}
        value={description}
        onInput={(e) => setDescription((e.target as HTMLInputElement).value)}
      />
      <fieldset class="webhook-events">
        <legend>Events to receive</legend>
        <div class="webhook-check">
          <input id="webhook-every" type="checkbox" checked={every} onChange={(e) => setEvery((e.target as HTMLInputElement).checked)} />
          <label for="webhook-every">Every event type (<code>*</code>, including types added later)</label>
        </div>
        {!every &&
          EVENT_TYPES.map((type) => (
            <div class="webhook-check" key={type}>
              <input
                id={`webhook-event-${type}`}
                type="checkbox"
                checked={chosen.includes(type)}
                onChange={(e) => {
                  const on = (e.target as HTMLInputElement).checked;
                  setChosen((was) => (on ? [...was, type] : was.filter((t) => t !== type)));
                }}
              />
              <label for={`webhook-event-${type}`}>{type}</label>
            </div>
          ))}
      </fieldset>
      <ErrorBox error={error} />
      <p>
        <button type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create endpoint"}
        </button>
      </p>
    </form>
  );
}

function NewSecret({ endpoint, onDone }: { endpoint: CreatedEndpoint; onDone: () => void }) {
  return (
    <div class="notice" role="status">
      <p>
        Endpoint <code>{endpoint.id}</code> created for <code>{endpoint.url}</code>. Its signing secret is shown only
        now: keep it where your receiver verifies signatures (Standard Webhooks).
      </p>
      <label for="webhook-secret">Signing secret</label>
      <div class="row">
        <input id="webhook-secret" readOnly value={endpoint.secret} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <CopyButton text={endpoint.secret} label="Copy secret" />
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

function EndpointRow({
  endpoint,
  selected,
  onShow,
  onDeleted,
}: {
  endpoint: Endpoint;
  selected: boolean;
  onShow: () => void;
  onDeleted: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);

  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await api("DELETE", `/api/v1/webhooks/endpoints/${encodeURIComponent(endpoint.id)}`);
      onDeleted();
    } catch (err) {
      setError(err as Error);
      setBusy(false);
    }
  }

  return (
    <tr class={selected ? "webhook-selected" : undefined}>
      <td>
        <code class="webhook-url">{endpoint.url}</code>
        {endpoint.description && <div class="muted">{endpoint.description}</div>}
        <div class="muted">
          <code>{endpoint.id}</code>
        </div>
      </td>
      <td>{endpoint.enabled_events.includes(ALL) ? "every event" : endpoint.enabled_events.join(", ")}</td>
      <td>
        <StatusBadge status={endpoint.status} />
        {endpoint.disabled_reason && <div class="muted">{endpoint.disabled_reason}</div>}
      </td>
      <td>{formatDate(endpoint.created_at)}</td>
      <td>
        <div class="webhook-actions">
          <button type="button" class="secondary" aria-label={`Deliveries to ${endpoint.url}`} onClick={onShow}>
            Deliveries
          </button>
          {confirming ? (
            <>
              <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
                Delete for good
              </button>
              <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </>
          ) : (
            <button type="button" class="danger" aria-label={`Delete ${endpoint.url}`} onClick={() => setConfirming(true)}>
              Delete
            </button>
          )}
        </div>
        <ErrorBox error={error} />
      </td>
    </tr>
  );
}

async function deliveriesOf(subject: Subject, endpoints: Endpoint[], status: string): Promise<Delivery[]> {
  const query = { status };
  if ("endpoint" in subject) {
    return listAll<Delivery>(`/api/v1/webhooks/endpoints/${encodeURIComponent(subject.endpoint.id)}/deliveries`, query);
  }
  // No listing by event: each endpoint's deliveries, kept when they carry this event.
  const lists = await Promise.all(
    endpoints.map((e) => listAll<Delivery>(`/api/v1/webhooks/endpoints/${encodeURIComponent(e.id)}/deliveries`, query)),
  );
  return lists.flat().filter((d) => d.event_id === subject.event.id);
}

function Attempts({ attempts }: { attempts: Attempt[] }) {
  if (!attempts.length) return <p class="muted">No attempt yet.</p>;
  return (
    <div class="table-wrap">
      <table class="webhook-attempts">
        <caption class="muted">Attempts, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">At</th>
            <th scope="col">Answer</th>
            <th scope="col">Took</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((a, i) => (
            <tr key={a.id}>
              <td>{i + 1}</td>
              <td>{formatDate(a.attempted_at)}</td>
              <td>{a.status_code !== null ? `HTTP ${a.status_code}` : (a.error ?? "no answer")}</td>
              <td>{a.duration_ms} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeliveryCard({
  delivery,
  endpointUrl,
  onChanged,
}: {
  delivery: Delivery;
  endpointUrl: string | undefined;
  onChanged: (delivery: Delivery) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);

  async function redeliver() {
    setBusy(true);
    setError(null);
    try {
      onChanged(
        await api<Delivery>(
          "POST",
          `/api/v1/webhooks/endpoints/${encodeURIComponent(delivery.endpoint_id)}/deliveries/${encodeURIComponent(delivery.id)}/retry`,
        ),
      );
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <li class="webhook-delivery" aria-label={`Delivery ${delivery.id}`}>
      <div class="webhook-delivery-head">
        <strong>{delivery.event_type}</strong> <StatusBadge status={delivery.status} />{" "}
        <span class="muted">
          {delivery.attempt_count} attempt{delivery.attempt_count === 1 ? "" : "s"}
        </span>
      </div>
      <dl class="webhook-fields">
        <div>
          <dt>Delivery</dt>
          <dd>
            <code>{delivery.id}</code>
          </dd>
        </div>
        <div>
          <dt>Event (webhook-id)</dt>
          <dd>
            <code>{delivery.event_id}</code>
          </dd>
        </div>
        {endpointUrl && (
          <div>
            <dt>Endpoint</dt>
            <dd>
              <code>{endpointUrl}</code>
            </dd>
          </div>
        )}
        <div>
          <dt>Created</dt>
          <dd>{formatDate(delivery.created_at)}</dd>
        </div>
        {delivery.next_attempt_at && (
          <div>
            <dt>Next attempt</dt>
            <dd>{formatDate(delivery.next_attempt_at)}</dd>
          </div>
        )}
      </dl>
      <Attempts attempts={delivery.attempts} />
      <p>
        <button type="button" class="secondary" disabled={busy} onClick={() => void redeliver()}>
          {busy ? "Redelivering…" : "Redeliver"}
        </button>
      </p>
      <ErrorBox error={error} />
    </li>
  );
}

function Deliveries({ subject, endpoints, onClose }: { subject: Subject; endpoints: Endpoint[]; onClose: () => void }) {
  const [status, setStatus] = useState("");
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [tick, setTick] = useState(0);
  const key = "endpoint" in subject ? subject.endpoint.id : subject.event.id;
  const title =
    "endpoint" in subject ? `Deliveries to ${subject.endpoint.url}` : `Deliveries of event ${subject.event.id}`;
  const urls = new Map(endpoints.map((e) => [e.id, e.url]));

  // Load, then again every POLL_MS while a delivery is pending (an attempt is due).
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const found = await deliveriesOf(subject, endpoints, status);
        if (!live) return;
        setDeliveries(found);
        setError(null);
        if (found.some((d) => d.status === "pending")) timer = setTimeout(load, POLL_MS);
      } catch (err) {
        if (live) setError(err as Error);
      }
    };
    void load();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, status, tick]);

  return (
    <section class="card" aria-label={title}>
      <div class="webhook-panel-head">
        <h2>{title}</h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          setTick((t) => t + 1);
        }}
      >
        <div>
          <label for="delivery-status">Delivery status</label>
          <select id="delivery-status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="">Any status</option>
            <option value="pending">pending</option>
            <option value="succeeded">succeeded</option>
            <option value="failed">failed</option>
          </select>
        </div>
        <button type="submit" class="secondary">
          Refresh
        </button>
      </form>
      <ErrorBox error={error} />
      {deliveries === null && !error && <Loading what="Loading deliveries" />}
      {deliveries !== null && deliveries.length === 0 && <p class="muted">No deliveries.</p>}
      {deliveries !== null && deliveries.length > 0 && (
        <ul class="webhook-deliveries" aria-label="Deliveries">
          {deliveries.map((d) => (
            <DeliveryCard
              key={d.id}
              delivery={d}
              endpointUrl={"event" in subject ? urls.get(d.endpoint_id) : undefined}
              onChanged={(changed) => {
                setDeliveries((all) => (all ?? []).map((x) => (x.id === changed.id ? changed : x)));
                // Follow the redelivery until its attempt is made.
                setTick((t) => t + 1);
              }}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function Events({ onShow }: { onShow: (event: Event) => void }) {
  const [type, setType] = useState("");
  const [events, setEvents] = useState<Event[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<Error | null>(null);
  const [tick, setTick] = useState(0);
  const asked = useRef(0);

  async function load(after: string | null) {
    const ask = after ? asked.current : ++asked.current;
    setLoading(true);
    setError(null);
    try {
      const page = await api<Page<Event>>("GET", "/api/v1/events", { query: { type, starting_after: after } });
      if (ask !== asked.current) return;
      setEvents((shown) => (after ? [...shown, ...page.data] : page.data));
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
  }, [type, tick]);

  return (
    <Section title="Events">
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          setTick((t) => t + 1);
        }}
      >
        <div>
          <label for="event-type">Event type</label>
          <select id="event-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            <option value="">Any type</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary">
          Refresh events
        </button>
      </form>
      <ErrorBox error={error} />
      {!loading && !error && events.length === 0 && <p class="muted">No events yet.</p>}
      {events.length > 0 && (
        <div class="table-wrap webhook-table">
          <table aria-label="Events">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Type</th>
                <th scope="col">Created</th>
                <th scope="col">Data</th>
                <th scope="col">
                  <span class="webhook-sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <tr key={event.id}>
                  <td>
                    <code>{event.id}</code>
                  </td>
                  <td>{event.type}</td>
                  <td>{formatDate(event.created_at)}</td>
                  <td>
                    <details>
                      <summary>Payload data</summary>
                      <pre class="job-json">{JSON.stringify(event.data, null, 2)}</pre>
                    </details>
                  </td>
                  <td>
                    <button type="button" class="secondary" aria-label={`Deliveries of ${event.id}`} onClick={() => onShow(event)}>
                      Deliveries
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {loading && <Loading what="Loading events" />}
      {hasMore && !loading && (
        <p>
          <button type="button" class="secondary" onClick={() => void load(events[events.length - 1]?.id ?? null)}>
            Load more events
          </button>
        </p>
      )}
    </Section>
  );
}

export function Webhooks(_: PageProps) {
  const endpoints = useLoad(() => listAll<Endpoint>("/api/v1/webhooks/endpoints"), []);
  const [created, setCreated] = useState<CreatedEndpoint | null>(null);
  const [subject, setSubject] = useState<Subject | null>(null);
  const list = endpoints.data ?? [];
  const shownEndpoint = subject && "endpoint" in subject ? subject.endpoint.id : null;

  return (
    <>
      <h1>Webhooks</h1>
      <p class="muted">
        Asynchronous jobs (dubbing, DAW export, speech-to-text with <code>Prefer: respond-async</code>) announce their
        end to your endpoints, signed per Standard Webhooks.
      </p>
      <div class="webhook-top">
        <Section title="Add an endpoint">
          {created ? (
            <NewSecret endpoint={created} onDone={() => setCreated(null)} />
          ) : (
            <CreateEndpoint
              onCreated={(endpoint) => {
                setCreated(endpoint);
                endpoints.reload();
              }}
            />
          )}
        </Section>
        <Section title="Endpoints">
          <ErrorBox error={endpoints.error} />
          {endpoints.loading && !endpoints.data && <Loading what="Loading endpoints" />}
          {endpoints.data && list.length === 0 && <p class="muted">No endpoints yet.</p>}
          {list.length > 0 && (
            <div class="table-wrap webhook-table">
              <table aria-label="Endpoints">
                <thead>
                  <tr>
                    <th scope="col">URL</th>
                    <th scope="col">Events</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col">
                      <span class="webhook-sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((endpoint) => (
                    <EndpointRow
                      key={endpoint.id}
                      endpoint={endpoint}
                      selected={shownEndpoint === endpoint.id}
                      onShow={() => setSubject({ endpoint })}
                      onDeleted={() => {
                        if (shownEndpoint === endpoint.id) setSubject(null);
                        endpoints.reload();
                      }}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Section>
      </div>
      {subject && <Deliveries subject={subject} endpoints={list} onClose={() => setSubject(null)} />}
      <Events onShow={(event) => setSubject({ event })} />
    </>
  );
}
