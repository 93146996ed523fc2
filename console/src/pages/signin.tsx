// Page 1: sign in with an API key. The key is checked with one API call (GET /api/v1/credits)
// before it is kept in sessionStorage; its prefix tells its environment.
import { useState } from "preact/hooks";
import { api, ApiError, environmentOf, storeKey, type Environment } from "../api";
import { ErrorBox } from "../components";

export function SignIn({ onSignedIn }: { onSignedIn: (env: Environment) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    const trimmed = key.trim();
    if (!environmentOf(trimmed)) {
      setError(new ApiError(0, "malformed_api_key", "API keys start with sk_sandbox_ or sk_live_.", "api_key"));
      return;
    }
    setBusy(true);
    try {
      await api("GET", "/api/v1/credits", { key: trimmed });
      onSignedIn(storeKey(trimmed));
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <main class="signin" id="main">
      <h1>Soundstage console</h1>
      <form onSubmit={submit} class="card">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api_key"
          type="password"
          autocomplete="off"
          placeholder="sk_sandbox_…"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          required
        />
        <p class="muted">
          The key stays in this tab's session storage and is sent only to this server. A sandbox key
          (<code>sk_sandbox_</code>) and a production key (<code>sk_live_</code>) can both be added; switch
          between them at the top.
        </p>
        <ErrorBox error={error} />
        <button type="submit" disabled={busy}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
