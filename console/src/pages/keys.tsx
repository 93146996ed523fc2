// Page 3, API keys of the signed-in environment: list (GET /api/v1/keys), create (POST
// /api/v1/keys: the secret is shown once, in this page's state only, gone when the page is
// left), revoke after a confirmation (POST /api/v1/keys/{id}/revoke).
import { useEffect, useRef, useState } from "preact/hooks";
import { api, listAll } from "../api";
import { CopyButton, ErrorBox, formatDate, Loading, Section, useLoad } from "../components";
import type { PageProps } from "../page";
import "./keys.css";

interface ApiKey {
  id: string;
  environment: "sandbox" | "production";
  name: string | null;
  preview: string;
  status: "active" | "revoked";
  created_at: string;
  revoked_at: string | null;
  current: boolean;
}

interface ApiKeyCreated extends ApiKey {
  secret: string;
}

export function Keys(_: PageProps) {
  const keys = useLoad(() => listAll<ApiKey>("/api/v1/keys"));
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  return (
    <div class="keys-page">
      <h1>API keys</h1>
      <CreateKey
        onCreated={(key) => {
          setCreated(key);
          keys.reload();
        }}
      />
      {created && <NewSecret created={created} onDone={() => setCreated(null)} />}
      <Section title="Keys">
        <KeyList keys={keys.data} loading={keys.loading} error={keys.error} onChanged={keys.reload} />
      </Section>
    </div>
  );
}

function CreateKey({ onCreated }: { onCreated: (key: ApiKeyCreated) => void }) {
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const trimmed = name.trim();
      const key = await api<ApiKeyCreated>("POST", "/api/v1/keys", { body: trimmed ? { name: trimmed } : {} });
      setName("");
      onCreated(key);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Section title="Create a key">
      <form onSubmit={submit}>
        <div class="row">
          <div>
            <label for="key-name">Name</label>
            <input
              id="key-name"
              name="name"
              maxLength={100}
              placeholder="e.g. CI"
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
              aria-describedby="key-name-help"
            />
          </div>
          <button type="submit" disabled={busy}>
            {busy ? "Creating…" : "Create key"}
          </button>
        </div>
        <p id="key-name-help" class="muted">
          Optional: a label to tell the key apart. The key belongs to this account in the environment you are signed in
          to.
        </p>
        <ErrorBox error={error} />
      </form>
    </Section>
  );
}

/** The new key's secret: shown here once, never stored by the console. */
function NewSecret({ created, onDone }: { created: ApiKeyCreated; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [created.id]);
  return (
    <section class="card new-secret" aria-labelledby="new-secret-title">
      <h2 id="new-secret-title" tabIndex={-1} ref={heading}>
        Key created: {created.name ?? created.preview}
      </h2>
      <p class="notice" role="status">
        <strong>Store it now.</strong> This is the only time the secret is shown: it cannot be seen again, here or
        through the API. If it is lost, create another key and revoke this one.
      </p>
      <label for="new-secret">Secret of the new key</label>
      <div class="row">
        <input id="new-secret" class="secret" readOnly value={created.secret} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <CopyButton text={created.secret} label="Copy secret" />
        <button type="button" class="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

function KeyList({
  keys,
  loading,
  error,
  onChanged,
}: {
  keys: ApiKey[] | null;
  loading: boolean;
  error: Error | null;
  onChanged: () => void;
}) {
  const [confirming, setConfirming] = useState<ApiKey | null>(null);
  const [revokeError, setRevokeError] = useState<Error | null>(null);
  const [revoked, setRevoked] = useState<ApiKey | null>(null);
  return (
    <>
      <ErrorBox error={error} />
      {revoked && (
        <p class="notice" role="status">
          Revoked {revoked.name ?? revoked.preview}: requests made with it now get 401 <code>api_key_revoked</code>.
          {revoked.current && " It was the key this console is signed in with: sign out and sign in with another key."}
        </p>
      )}
      {confirming && (
        <ConfirmRevoke
          apiKey={confirming}
          onCancel={() => setConfirming(null)}
          onRevoked={(key) => {
            setConfirming(null);
            setRevoked(key);
            onChanged();
          }}
          onError={(e) => {
            setConfirming(null);
            setRevokeError(e);
          }}
        />
      )}
      <ErrorBox error={revokeError} />
      {loading && !keys && <Loading />}
      {keys && keys.length === 0 && <p class="muted">No keys.</p>}
      {keys && keys.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="muted">Keys of this account in this environment, newest first. Secrets are never shown.</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Environment</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <th scope="row">
                    {key.name ?? <span class="muted">(no name)</span>}
                    {key.current && (
                      <>
                        {" "}
                        <span class="status current">current</span>
                      </>
                    )}
                  </th>
                  <td>
                    <code>{key.preview}</code>
                  </td>
                  <td>{key.environment}</td>
                  <td>
                    <span class={`status key-${key.status}`}>{key.status}</span>
                    {key.revoked_at && <div class="muted">{formatDate(key.revoked_at)}</div>}
                  </td>
                  <td>{formatDate(key.created_at)}</td>
                  <td>
                    {key.status === "active" && (
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Revoke ${key.name ?? key.preview}`}
                        onClick={() => {
                          setRevokeError(null);
                          setRevoked(null);
                          setConfirming(key);
                        }}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function ConfirmRevoke({
  apiKey,
  onCancel,
  onRevoked,
  onError,
}: {
  apiKey: ApiKey;
  onCancel: () => void;
  onRevoked: (key: ApiKey) => void;
  onError: (error: Error) => void;
}) {
  const [busy, setBusy] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), [apiKey.id]);
  const label = apiKey.name ?? apiKey.preview;
  async function revoke() {
    setBusy(true);
    // Either way this confirmation closes (the parent unmounts it): no state to reset here.
    try {
      onRevoked(await api<ApiKey>("POST", `/api/v1/keys/${encodeURIComponent(apiKey.id)}/revoke`));
    } catch (e) {
      onError(e as Error);
    }
  }
  return (
    <div class="confirm" role="group" aria-labelledby="confirm-revoke-text">
      <p id="confirm-revoke-text">
        Revoke <strong>{label}</strong> (<code>{apiKey.preview}</code>)? Every request made with it will be refused
        from now on; this cannot be undone.
        {apiKey.current && <strong> It is the key this console is signed in with.</strong>}
      </p>
      <div class="row">
        <button type="button" class="danger" disabled={busy} onClick={revoke}>
          {busy ? "Revoking…" : "Yes, revoke it"}
        </button>
        <button type="button" class="secondary" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
