// Licenses and licensed media of the Talent pages. A license's lifecycle, as the licensing API
// exposes it to the buyer: requested -> accepted | declined (the creator) | cancelled (the
// buyer); accepted -> completed (the buyer) | cancelled; completed -> expired at its end. In
// sandbox the caller also plays the creator (POST /api/v1/sandbox/workforce/licenses/{id}/
// accept | decline). Each action is a button only in the states the API allows it.
import { useState } from "preact/hooks";
import { api, currentEnvironment, listAll, type Page } from "../api";
import { ErrorBox, Loading, formatDate, formatMoney, useLoad } from "../components";
import { GatedError } from "./talent-gate";

export type LicenseStatus = "requested" | "accepted" | "declined" | "cancelled" | "completed" | "expired";
export const LICENSE_STATUSES: LicenseStatus[] = ["requested", "accepted", "declined", "cancelled", "completed", "expired"];

export interface License {
  object: "license";
  id: string;
  creator_id: string;
  usage_type: string;
  territory: string;
  duration_months: number;
  status: LicenseStatus;
  currency: string;
  amount_cents: number;
  success_fee_cents: number;
  total_cents: number;
  pricing: { base_fee_cents: number; territory_multiplier: string; term_multiplier: string };
  decline_reason: string | null;
  created_at: string;
  accepted_at: string | null;
  declined_at: string | null;
  cancelled_at: string | null;
  completed_at: string | null;
  starts_at: string | null;
  ends_at: string | null;
}

export interface LicensedMedia {
  object: "licensed_media";
  id: string;
  creator_id: string;
  demo_id: string;
  title: string;
  genre: string;
  language: string;
  url: string;
  url_expires_at: string;
  license: {
    license_id: string;
    usage_type: string;
    territory: string;
    duration_months: number;
    starts_at: string;
    ends_at: string;
  };
  created_at: string;
}

interface Action {
  label: string;
  path: (id: string) => string;
  danger?: boolean;
  secondary?: boolean;
  sandboxOnly?: boolean;
}

/** The transitions the API offers the buyer in each state (and the sandbox creator's). */
const ACTIONS: Partial<Record<LicenseStatus, Action[]>> = {
  requested: [
    { label: "Accept (sandbox)", path: (id) => `/api/v1/sandbox/workforce/licenses/${id}/accept`, sandboxOnly: true, secondary: true },
    { label: "Decline (sandbox)", path: (id) => `/api/v1/sandbox/workforce/licenses/${id}/decline`, sandboxOnly: true, secondary: true },
    { label: "Cancel", path: (id) => `/api/v1/workforce/licenses/${id}/cancel`, danger: true },
  ],
  accepted: [
    { label: "Complete", path: (id) => `/api/v1/workforce/licenses/${id}/complete` },
    { label: "Cancel", path: (id) => `/api/v1/workforce/licenses/${id}/cancel`, danger: true },
  ],
};

export function actionsFor(status: LicenseStatus): Action[] {
  const sandbox = currentEnvironment() === "sandbox";
  return (ACTIONS[status] ?? []).filter((a) => sandbox || !a.sandboxOnly);
}

export const usageLabel = (usage: string) => usage.replace(/_/g, " ");

export function territoryLabel(territory: string): string {
  return territory === "worldwide" ? "Worldwide" : territory.split(",").join(", ");
}

/** The display names of a few creators (profiles by id), for lists that carry ids only. */
function useCreatorNames(ids: string[]) {
  const unique = [...new Set(ids)].slice(0, 25);
  return useLoad(async () => {
    const found: Record<string, string> = {};
    await Promise.all(
      unique.map((id) =>
        api<{ display_name: string }>("GET", `/api/v1/workforce/creators/${encodeURIComponent(id)}`).then(
          (c) => (found[id] = c.display_name),
          () => undefined,
        ),
      ),
    );
    return found;
  }, [unique.join(",")]);
}

/** The quote's amounts exactly as the API gives them. */
export function Quote({ license }: { license: License }) {
  return (
    <dl class="talent-quote" aria-label={`Quote of ${license.id}`}>
      <dt>Subtotal (creator's fee)</dt>
      <dd data-field="amount_cents">{formatMoney(license.amount_cents, license.currency)}</dd>
      <dt>Success fee (1%)</dt>
      <dd data-field="success_fee_cents">{formatMoney(license.success_fee_cents, license.currency)}</dd>
      <dt>Total</dt>
      <dd data-field="total_cents">
        <strong>{formatMoney(license.total_cents, license.currency)}</strong>
      </dd>
      <dt>Pricing</dt>
      <dd class="muted">
        base {formatMoney(license.pricing.base_fee_cents, license.currency)} × territory{" "}
        {license.pricing.territory_multiplier} × term {license.pricing.term_multiplier}
      </dd>
    </dl>
  );
}

function when(license: License): string {
  if (license.status === "completed" || license.status === "expired")
    return `${formatDate(license.starts_at)} → ${formatDate(license.ends_at)}`;
  const at = license.cancelled_at ?? license.declined_at ?? license.accepted_at ?? license.created_at;
  return formatDate(at);
}

/** The buyer's licenses (of one creator when `creatorId` is given), with their actions. */
export function LicensesTable({
  creatorId,
  refresh = 0,
  onChanged,
  onVerified,
}: {
  creatorId?: string;
  refresh?: number;
  onChanged?: () => void;
  onVerified: () => void;
}) {
  const [status, setStatus] = useState<LicenseStatus | "">("");
  const licenses = useLoad(
    () => listAll<License>("/api/v1/workforce/licenses", { status: status || undefined, creator_id: creatorId }, 200),
    [status, creatorId, refresh],
  );
  const names = useCreatorNames(creatorId ? [] : (licenses.data ?? []).map((l) => l.creator_id));
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function run(license: License, action: Action) {
    setBusy(license.id);
    setError(null);
    setDone(null);
    try {
      const answer = await api<License>("POST", action.path(license.id));
      setDone(`${license.id}: ${license.status} → ${answer.status}`);
      licenses.reload();
      onChanged?.();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(null);
    }
  }

  const selectId = creatorId ? `lic-status-${creatorId}` : "lic-status";
  return (
    <div>
      <div class="row talent-filter-row">
        <div>
          <label for={selectId}>Status</label>
          <select id={selectId} value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value as LicenseStatus | "")}>
            <option value="">Any</option>
            {LICENSE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="secondary" onClick={licenses.reload}>
          Refresh
        </button>
      </div>
      <ErrorBox error={error} />
      {done && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
      {currentEnvironment() === "sandbox" && licenses.data?.some((l) => l.status === "requested") && (
        <p class="muted">
          Sandbox: you also play the creator. <em>Accept (sandbox)</em> and <em>Decline (sandbox)</em> answer a
          requested license as its creator would (<code>POST /api/v1/sandbox/workforce/licenses/&#123;id&#125;/accept</code>{" "}
          or <code>/decline</code>); then <em>Complete</em> concludes an accepted one at its quoted total.
        </p>
      )}
      {licenses.loading && !licenses.data && <Loading what="Loading licenses" />}
      <GatedError error={licenses.error} onVerified={onVerified} />
      {licenses.data && licenses.data.length === 0 && <p class="muted">No licenses{status ? ` ${status}` : ""} yet.</p>}
      {licenses.data && licenses.data.length > 0 && (
        <div class="table-wrap">
          <table class="talent-licenses talent-stack">
            <caption class="muted">
              {licenses.data.length} license{licenses.data.length === 1 ? "" : "s"}, newest first
            </caption>
            <thead>
              <tr>
                <th scope="col">License</th>
                {!creatorId && <th scope="col">Creator</th>}
                <th scope="col">Usage</th>
                <th scope="col">Territory</th>
                <th scope="col">Term</th>
                <th scope="col">Status</th>
                <th scope="col">Subtotal</th>
                <th scope="col">Fee (1%)</th>
                <th scope="col">Total</th>
                <th scope="col">When</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {licenses.data.map((license) => (
                <tr key={license.id} data-license={license.id}>
                  <td data-label="License">
                    <code>{license.id}</code>
                  </td>
                  {!creatorId && (
                    <td data-label="Creator">
                      <a href={`#/talent/${encodeURIComponent(license.creator_id)}`}>
                        {names.data?.[license.creator_id] ?? license.creator_id}
                      </a>
                    </td>
                  )}
                  <td data-label="Usage">{usageLabel(license.usage_type)}</td>
                  <td data-label="Territory">{territoryLabel(license.territory)}</td>
                  <td data-label="Term">{license.duration_months} mo</td>
                  <td data-label="Status">
                    <div>
                      <span class={`status talent-status-${license.status}`}>{license.status}</span>
                      {license.decline_reason && <div class="muted">{license.decline_reason}</div>}
                    </div>
                  </td>
                  <td data-label="Subtotal">{formatMoney(license.amount_cents, license.currency)}</td>
                  <td data-label="Fee (1%)">{formatMoney(license.success_fee_cents, license.currency)}</td>
                  <td data-label="Total">{formatMoney(license.total_cents, license.currency)}</td>
                  <td data-label="When">{when(license)}</td>
                  <td data-label="Actions">
                    <div class="talent-actions">
                      {actionsFor(license.status).map((action) => (
                        <button
                          key={action.label}
                          type="button"
                          class={action.danger ? "danger" : action.secondary ? "secondary" : undefined}
                          disabled={busy === license.id}
                          onClick={() => run(license, action)}
                        >
                          {action.label}
                        </button>
                      ))}
                      {actionsFor(license.status).length === 0 && <span class="muted">—</span>}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/** The media the buyer holds under completed, unexpired licenses, playable. */
export function LicensedMediaList({
  creatorId,
  refresh = 0,
  onVerified,
}: {
  creatorId?: string;
  refresh?: number;
  onVerified: () => void;
}) {
  const media = useLoad(
    () => api<Page<LicensedMedia>>("GET", "/api/v1/workforce/media", { query: { creator_id: creatorId, limit: 100 } }),
    [creatorId, refresh],
  );
  const names = useCreatorNames(creatorId ? [] : (media.data?.data ?? []).map((m) => m.creator_id));
  return (
    <div>
      {media.loading && !media.data && <Loading what="Loading licensed media" />}
      <GatedError error={media.error} onVerified={onVerified} />
      {media.data && media.data.data.length === 0 && (
        <p class="muted">No licensed media: a completed license lists its creator's recordings here until its term ends.</p>
      )}
      {media.data && media.data.data.length > 0 && (
        <ul class="talent-media">
          {media.data.data.map((item) => (
            <li key={item.id} class="card" data-media={item.id}>
              <h3>{item.title}</h3>
              <p class="muted">
                <a href={`#/talent/${encodeURIComponent(item.creator_id)}`}>{names.data?.[item.creator_id] ?? item.creator_id}</a> · {item.genre} ·{" "}
                {item.language} · license <code>{item.license.license_id}</code> ({usageLabel(item.license.usage_type)},{" "}
                {territoryLabel(item.license.territory)}) until {formatDate(item.license.ends_at)}
              </p>
              <audio controls preload="metadata" src={item.url} aria-label={`Licensed recording: ${item.title}`} />
            </li>
          ))}
        </ul>
      )}
      {media.data?.has_more && <p class="muted">Showing the newest 100.</p>}
    </div>
  );
}
