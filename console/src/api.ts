// The console's only way to the service: the public API, with the signed-in key as a Bearer
// token. Keys live in sessionStorage (gone when the tab closes); no cookie, so no CSRF surface.

export type Environment = "sandbox" | "production";

const KEYS = "soundstage.keys";
const CURRENT = "soundstage.environment";

export function environmentOf(key: string): Environment | null {
  if (key.startsWith("sk_sandbox_")) return "sandbox";
  if (key.startsWith("sk_live_")) return "production";
  return null;
}

export function storedKeys(): Partial<Record<Environment, string>> {
  try {
    return JSON.parse(sessionStorage.getItem(KEYS) ?? "{}") as Partial<Record<Environment, string>>;
  } catch {
    return {};
  }
}

export function currentEnvironment(): Environment | null {
  const keys = storedKeys();
  const chosen = sessionStorage.getItem(CURRENT) as Environment | null;
  if (chosen && keys[chosen]) return chosen;
  return keys.sandbox ? "sandbox" : keys.production ? "production" : null;
}

export function currentKey(): string | null {
  const env = currentEnvironment();
  return env ? (storedKeys()[env] ?? null) : null;
}

export function storeKey(key: string): Environment {
  const env = environmentOf(key);
  if (!env) throw new ApiError(0, "malformed_api_key", "API keys start with sk_sandbox_ or sk_live_.", "api_key");
  sessionStorage.setItem(KEYS, JSON.stringify({ ...storedKeys(), [env]: key }));
  sessionStorage.setItem(CURRENT, env);
  return env;
}

export function switchEnvironment(env: Environment): void {
  sessionStorage.setItem(CURRENT, env);
}

export function signOut(): void {
  sessionStorage.removeItem(KEYS);
  sessionStorage.removeItem(CURRENT);
}

/** The API's error envelope `{"error": {type, code, message, param, request_id}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly requestId: string | null = null,
  ) {
    super(message);
  }
}

export interface Page<T> {
  object: "list";
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
}

export interface RequestOptions {
  /** A JSON body, or FormData for uploads. */
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Sent as Idempotency-Key on POSTs, so a double click never does the work twice. */
  idempotencyKey?: string;
  /** Another key than the signed-in one (the sign-in page checks a key before keeping it). */
  key?: string;
  /** Extra request headers (`Prefer: respond-async` for an asynchronous job). */
  headers?: Record<string, string>;
}

export function url(path: string, query?: RequestOptions["query"]): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function send(method: string, path: string, options: RequestOptions): Promise<Response> {
  const key = options.key ?? currentKey();
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  if (key) headers.Authorization = `Bearer ${key}`;
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) {
    body = options.body;
  } else if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  if (method === "POST") headers["Idempotency-Key"] = options.idempotencyKey ?? crypto.randomUUID();
  const response = await fetch(url(path, options.query), { method, headers, body });
  if (!response.ok) {
    let envelope: { error?: { code?: string; message?: string; param?: string | null; request_id?: string } } = {};
    try {
      envelope = await response.json();
    } catch {
      // Not JSON: keep the status.
    }
    const error = envelope.error ?? {};
    throw new ApiError(
      response.status,
      error.code ?? "http_error",
      error.message ?? `HTTP ${response.status}`,
      error.param ?? null,
      error.request_id ?? null,
    );
  }
  return response;
}

export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(method, path, options);
  return (await response.json()) as T;
}

/** A binary answer (audio, a subtitle file) as a Blob, for an object URL or a download. */
export async function apiBlob(method: string, path: string, options: RequestOptions = {}): Promise<Blob> {
  return (await send(method, path, options)).blob();
}

/** Every page of a cursor-paginated list, up to `limit` items. */
export async function listAll<T>(path: string, query: RequestOptions["query"] = {}, limit = 500): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null | undefined;
  do {
    const page: Page<T> = await api<Page<T>>("GET", path, { query: { ...query, limit: 100, starting_after: cursor } });
    items.push(...page.data);
    cursor = page.has_more && page.data.length ? (page.data[page.data.length - 1] as { id?: string }).id : null;
  } while (cursor && items.length < limit);
  return items;
}
