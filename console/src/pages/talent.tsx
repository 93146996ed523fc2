// Page 8, Talent: discover and search voice talent (GET /api/v1/workforce/discover, /search), a
// creator's profile with playable demos and rate card (GET /api/v1/workforce/creators/{id}),
// license requests with their quote (POST /api/v1/workforce/licensing), the buyer's licenses and
// their lifecycle, and licensed media (GET /api/v1/workforce/media). All of it is gated by buyer
// verification (403 `buyer_not_verified`): talent-gate.tsx shows the way through.
import { useState } from "preact/hooks";
import { api, type Page } from "../api";
import { ErrorBox, Loading, Section, formatMoney, useLoad } from "../components";
import { currentPath } from "../router";
import type { PageProps } from "../page";
import { GatedError } from "./talent-gate";
import { LicensedMediaList, LicensesTable, Quote, usageLabel, type License } from "./talent-licenses";
import "./talent.css";

const ROLES = ["voice_actor", "narrator", "host", "announcer"];
const GENRES = ["animation", "commercial", "audiobook", "gaming", "corporate", "promo"];
const GENDERS = ["female", "male", "non_binary"];
const AGE_RANGES = ["child", "teen", "young_adult", "middle_aged", "senior"];
const TERMS = [1, 3, 6, 12, 24, 36, 60, 120];
const PAGE_SIZE = 20;

interface Rate {
  usage_type: string;
  base_fee_cents: number;
}

interface Demo {
  demo_id: string;
  title: string;
  genre: string;
  language: string;
  voice_id: string;
  url: string;
  url_expires_at: string;
}

export interface Creator {
  object: "creator";
  creator_id: string;
  display_name: string;
  bio: string;
  roles: string[];
  genres: string[];
  languages: string[];
  accents: string[];
  vocal_styles: string[];
  gender: string | null;
  age_range: string | null;
  verified: boolean;
  rating: number | null;
  ratings_count: number;
  currency: string;
  rate_card: Rate[];
  voice_ids: string[];
  demos: Demo[];
  relevance?: number | null;
}

interface Filters {
  q: string;
  role: string;
  genre: string;
  language: string;
  gender: string;
  accent: string;
  age_range: string;
  verified: boolean;
}

const NO_FILTERS: Filters = { q: "", role: "", genre: "", language: "", gender: "", accent: "", age_range: "", verified: false };

/** Discover takes genre, language, role and verified; anything else needs search. */
function endpointFor(f: Filters): "discover" | "search" {
  return f.q || f.gender || f.accent || f.age_range ? "search" : "discover";
}

function queryFor(f: Filters): Record<string, string> {
  const query: Record<string, string> = {};
  const keys: (keyof Filters)[] =
    endpointFor(f) === "search"
      ? ["q", "role", "genre", "language", "gender", "accent", "age_range"]
      : ["role", "genre", "language"];
  for (const key of keys) {
    const value = String(f[key]).trim();
    if (value) query[key] = value;
  }
  if (f.verified) query.verified = "true";
  return query;
}

const label = (value: string) => value.replace(/_/g, " ");

function tabOf(): "discover" | "licenses" | "media" {
  const tab = new URLSearchParams(currentPath().split("?")[1] ?? "").get("tab");
  return tab === "licenses" || tab === "media" ? tab : "discover";
}

function Tabs({ current }: { current: string }) {
  const tabs: [string, string, string][] = [
    ["discover", "Discover", "#/talent"],
    ["licenses", "Licenses", "#/talent?tab=licenses"],
    ["media", "Licensed media", "#/talent?tab=media"],
  ];
  return (
    <nav aria-label="Talent sections" class="talent-tabs">
      <ul>
        {tabs.map(([id, title, href]) => (
          <li key={id}>
            <a href={href} aria-current={current === id ? "page" : undefined}>
              {title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function Talent(_: PageProps) {
  const tab = tabOf();
  const [verifiedTick, setVerifiedTick] = useState(0);
  const onVerified = () => setVerifiedTick((t) => t + 1);
  return (
    <>
      <h1>Talent</h1>
      <Tabs current={tab} />
      {tab === "discover" && <Discover refresh={verifiedTick} onVerified={onVerified} />}
      {tab === "licenses" && (
        <Section title="Your licenses">
          <LicensesTable refresh={verifiedTick} onVerified={onVerified} />
        </Section>
      )}
      {tab === "media" && (
        <Section title="Licensed media">
          <LicensedMediaList refresh={verifiedTick} onVerified={onVerified} />
        </Section>
      )}
    </>
  );
}

function Discover({ refresh, onVerified }: { refresh: number; onVerified: () => void }) {
  const [form, setForm] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const [more, setMore] = useState<{ items: Creator[]; hasMore: boolean } | null>(null);
  const [moreError, setMoreError] = useState<Error | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const endpoint = endpointFor(applied);
  const query = queryFor(applied);
  const first = useLoad(() => {
    setMore(null);
    setMoreError(null);
    return api<Page<Creator>>("GET", `/api/v1/workforce/${endpoint}`, { query: { ...query, limit: PAGE_SIZE } });
  }, [JSON.stringify(applied), refresh]);

  const items = more ? more.items : (first.data?.data ?? []);
  const hasMore = more ? more.hasMore : (first.data?.has_more ?? false);

  async function loadMore() {
    const last = items[items.length - 1];
    if (!last) return;
    setLoadingMore(true);
    setMoreError(null);
    try {
      const next = await api<Page<Creator>>("GET", `/api/v1/workforce/${endpoint}`, {
        query: { ...query, limit: PAGE_SIZE, starting_after: last.creator_id },
      });
      setMore({ items: [...items, ...next.data], hasMore: next.has_more });
    } catch (e) {
      setMoreError(e as Error);
    } finally {
      setLoadingMore(false);
    }
  }

  const set = (key: keyof Filters) => (e: Event) => {
    const target = e.target as HTMLInputElement;
    setForm({ ...form, [key]: target.type === "checkbox" ? target.checked : target.value });
  };
  const select = (key: keyof Filters, title: string, options: string[]) => (
    <div>
      <label for={`talent-${key}`}>{title}</label>
      <select id={`talent-${key}`} value={String(form[key])} onChange={set(key)}>
        <option value="">Any</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {label(o)}
          </option>
        ))}
      </select>
    </div>
  );

  const shown = new URLSearchParams(query).toString();
  return (
    <>
      <Section title="Find talent">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setApplied({ ...form });
          }}
        >
          <div class="row">
            <div class="talent-q">
              <label for="talent-q">Search text</label>
              <input
                id="talent-q"
                type="search"
                value={form.q}
                maxLength={200}
                placeholder="e.g. warm narrator"
                onInput={set("q")}
              />
            </div>
            {select("role", "Role", ROLES)}
            {select("genre", "Genre", GENRES)}
            <div>
              <label for="talent-language">Language (BCP-47)</label>
              <input id="talent-language" value={form.language} maxLength={35} placeholder="en, en-GB…" onInput={set("language")} />
            </div>
          </div>
          <div class="row">
            {select("gender", "Gender", GENDERS)}
            <div>
              <label for="talent-accent">Accent</label>
              <input id="talent-accent" value={form.accent} maxLength={100} placeholder="Scottish" onInput={set("accent")} />
            </div>
            {select("age_range", "Age range", AGE_RANGES)}
            <div class="talent-check">
              <input id="talent-verified" type="checkbox" checked={form.verified} onChange={set("verified")} />
              <label for="talent-verified">Verified creators only</label>
            </div>
          </div>
          <div class="row talent-buttons">
            <button type="submit">Search</button>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setForm(NO_FILTERS);
                setApplied(NO_FILTERS);
              }}
            >
              Clear filters
            </button>
          </div>
        </form>
        <p class="muted talent-endpoint">
          <code>
            GET /api/v1/workforce/{endpoint}
            {shown ? `?${shown}` : ""}
          </code>{" "}
          {endpoint === "discover" ? "(newest first)" : "(best matches first)"}
        </p>
      </Section>
      {first.loading && !first.data && <Loading what="Finding talent" />}
      <GatedError error={first.error} onVerified={onVerified} />
      {first.data && (
        <Section title="Results">
          {items.length === 0 ? (
            <p class="muted">No creator matches these filters.</p>
          ) : (
            <div class="table-wrap">
              <table class="talent-results talent-stack">
                <thead>
                  <tr>
                    <th scope="col">Creator</th>
                    <th scope="col">Roles</th>
                    <th scope="col">Genres</th>
                    <th scope="col">Languages</th>
                    <th scope="col">Accents</th>
                    <th scope="col">Rating</th>
                    <th scope="col">Rates from</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((c) => (
                    <tr key={c.creator_id} data-creator={c.creator_id}>
                      <td data-label="Creator">
                        <span>
                          <a href={`#/talent/${encodeURIComponent(c.creator_id)}`}>{c.display_name}</a>
                          {c.verified && <span class="status talent-verified">verified</span>}
                        </span>
                      </td>
                      <td data-label="Roles">{c.roles.map(label).join(", ")}</td>
                      <td data-label="Genres">{c.genres.map(label).join(", ")}</td>
                      <td data-label="Languages">{c.languages.join(", ")}</td>
                      <td data-label="Accents">{c.accents.join(", ") || "—"}</td>
                      <td data-label="Rating">{rating(c)}</td>
                      <td data-label="Rates from">{lowestRate(c)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <ErrorBox error={moreError} />
          {hasMore && (
            <p>
              <button type="button" class="secondary" disabled={loadingMore} onClick={loadMore}>
                {loadingMore ? "Loading…" : "Load more"}
              </button>
            </p>
          )}
        </Section>
      )}
    </>
  );
}

function rating(c: Creator): string {
  return c.rating === null ? "—" : `${c.rating.toFixed(1)} (${c.ratings_count})`;
}

function lowestRate(c: Creator): string {
  if (!c.rate_card.length) return "—";
  return formatMoney(Math.min(...c.rate_card.map((r) => r.base_fee_cents)), c.currency);
}

/** A demo's signed URL in an <audio>. The first request renders the demo; if that took too
 * long (503), the player offers to try again. */
function DemoPlayer({ demo }: { demo: Demo }) {
  const [attempt, setAttempt] = useState(0);
  const [failed, setFailed] = useState(false);
  return (
    <div>
      <audio
        key={attempt}
        controls
        preload="metadata"
        src={demo.url}
        aria-label={`Demo: ${demo.title}`}
        onError={() => setFailed(true)}
        onLoadedMetadata={() => setFailed(false)}
      />
      {failed && (
        <p class="muted">
          The demo could not be loaded (it may still be rendering).{" "}
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setFailed(false);
              setAttempt((a) => a + 1);
            }}
          >
            Try again
          </button>
        </p>
      )}
    </div>
  );
}

export function CreatorDetail({ params }: PageProps) {
  const id = params.id;
  const [verifiedTick, setVerifiedTick] = useState(0);
  const onVerified = () => setVerifiedTick((t) => t + 1);
  const creator = useLoad(() => api<Creator>("GET", `/api/v1/workforce/creators/${encodeURIComponent(id)}`), [id, verifiedTick]);
  const [licensesTick, setLicensesTick] = useState(0);
  const c = creator.data;
  return (
    <>
      <p>
        <a href="#/talent">← Talent</a>
      </p>
      {creator.loading && !c && <Loading what="Loading the creator" />}
      {!c && <h1>Creator {id}</h1>}
      <GatedError error={creator.error} onVerified={onVerified} />
      {c && (
        <>
          <h1>
            {c.display_name} {c.verified && <span class="status talent-verified">verified</span>}
          </h1>
          <div class="grid">
            <Section title="Profile">
              <p>{c.bio}</p>
              <dl class="talent-profile">
                <dt>Creator id</dt>
                <dd>
                  <code>{c.creator_id}</code>
                </dd>
                <dt>Roles</dt>
                <dd>{c.roles.map(label).join(", ") || "—"}</dd>
                <dt>Genres</dt>
                <dd>{c.genres.map(label).join(", ") || "—"}</dd>
                <dt>Languages</dt>
                <dd>{c.languages.join(", ") || "—"}</dd>
                <dt>Accents</dt>
                <dd>{c.accents.join(", ") || "—"}</dd>
                <dt>Vocal styles</dt>
                <dd>{c.vocal_styles.join(", ") || "—"}</dd>
                <dt>Gender, age</dt>
                <dd>
                  {c.gender ? label(c.gender) : "—"}, {c.age_range ? label(c.age_range) : "—"}
                </dd>
                <dt>Rating</dt>
                <dd>{rating(c)}</dd>
                <dt>Catalog voices</dt>
                <dd>
                  {c.voice_ids.length
                    ? c.voice_ids.map((v) => (
                        <code key={v} class="talent-voice">
                          {v}
                        </code>
                      ))
                    : "—"}
                </dd>
              </dl>
            </Section>
            <Section title="Rate card">
              {c.rate_card.length === 0 ? (
                <p class="muted">This creator offers no usage yet.</p>
              ) : (
                <div class="table-wrap">
                  <table>
                    <caption class="muted">Base fee: 12 months, one country</caption>
                    <thead>
                      <tr>
                        <th scope="col">Usage</th>
                        <th scope="col">Base fee</th>
                      </tr>
                    </thead>
                    <tbody>
                      {c.rate_card.map((r) => (
                        <tr key={r.usage_type}>
                          <td>{usageLabel(r.usage_type)}</td>
                          <td>{formatMoney(r.base_fee_cents, c.currency)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </Section>
          </div>
          <Section title="Demos">
            {c.demos.length === 0 && <p class="muted">No demos.</p>}
            <ul class="talent-demos">
              {c.demos.map((d) => (
                <li key={d.demo_id}>
                  <h3>{d.title}</h3>
                  <p class="muted">
                    {label(d.genre)} · {d.language} · read by <code>{d.voice_id}</code>
                  </p>
                  <DemoPlayer demo={d} />
                </li>
              ))}
            </ul>
          </Section>
          <RequestLicense creator={c} onRequested={() => setLicensesTick((t) => t + 1)} />
          <Section title={`Your licenses of ${c.display_name}`}>
            <LicensesTable
              creatorId={c.creator_id}
              refresh={licensesTick}
              onChanged={() => setLicensesTick((t) => t + 1)}
              onVerified={onVerified}
            />
          </Section>
          <Section title="Licensed media">
            <LicensedMediaList creatorId={c.creator_id} refresh={licensesTick} onVerified={onVerified} />
          </Section>
        </>
      )}
    </>
  );
}

function RequestLicense({ creator, onRequested }: { creator: Creator; onRequested: () => void }) {
  const [usage, setUsage] = useState(creator.rate_card[0]?.usage_type ?? "");
  const [territory, setTerritory] = useState("US");
  const [months, setMonths] = useState(12);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [license, setLicense] = useState<License | null>(null);

  if (!creator.rate_card.length) return null;
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await api<License>("POST", "/api/v1/workforce/licensing", {
        body: { creator_id: creator.creator_id, usage_type: usage, territory: territory.trim(), duration_months: months },
      });
      setLicense(answer);
      onRequested();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Section title="Request a license">
      <form onSubmit={submit}>
        <div class="row">
          <div>
            <label for="lic-usage">Usage</label>
            <select id="lic-usage" value={usage} onChange={(e) => setUsage((e.target as HTMLSelectElement).value)}>
              {creator.rate_card.map((r) => (
                <option key={r.usage_type} value={r.usage_type}>
                  {usageLabel(r.usage_type)} ({formatMoney(r.base_fee_cents, creator.currency)} base)
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="lic-territory">Territory</label>
            <input
              id="lic-territory"
              value={territory}
              required
              maxLength={400}
              aria-describedby="lic-territory-help"
              onInput={(e) => setTerritory((e.target as HTMLInputElement).value)}
            />
          </div>
          <div>
            <label for="lic-months">Term (months)</label>
            <select id="lic-months" value={String(months)} onChange={(e) => setMonths(Number((e.target as HTMLSelectElement).value))}>
              {TERMS.map((t) => (
                <option key={t} value={String(t)}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={busy}>
            {busy ? "Requesting…" : "Request license"}
          </button>
        </div>
        <p id="lic-territory-help" class="muted">
          Territory: <code>worldwide</code> or country codes separated by commas (<code>US,CA,GB</code>). The quote
          is the rate card's fee × territory × term, plus the 1% success fee; the creator then accepts or declines.
        </p>
      </form>
      <ErrorBox error={error} />
      {license && (
        <div class="notice" role="status">
          <p>
            Requested <code>{license.id}</code>: <span class="status">{license.status}</span>
          </p>
          <Quote license={license} />
        </div>
      )}
    </Section>
  );
}
