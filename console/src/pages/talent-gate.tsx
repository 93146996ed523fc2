// The buyer-verification gate of the Talent pages: workforce discovery and licensing answer
// 403 `buyer_not_verified` until the account is a verified buyer in the key's environment.
// This shows the API's refusal and the way through: submit business details
// (POST /api/v1/buyers/verification), then, in sandbox, approve them yourself
// (POST /api/v1/sandbox/buyers/verification/approve); in production a reviewer decides.
import { useState } from "preact/hooks";
import { ApiError, api, currentEnvironment } from "../api";
import { ErrorBox, Loading, Section, formatDate, useLoad } from "../components";

export interface BuyerVerification {
  object: "buyer_verification";
  environment: "sandbox" | "production";
  status: "unverified" | "pending" | "verified" | "rejected";
  legal_name: string | null;
  country: string | null;
  contact_email: string | null;
  tax_id: string | null;
  submitted_at: string | null;
  verified_at: string | null;
  rejected_at: string | null;
}

export const GATE_CODE = "buyer_not_verified";

export function isGate(error: Error | null | undefined): boolean {
  return error instanceof ApiError && error.code === GATE_CODE;
}

/** An error of a gated call: the verification gate when the API says so, else the error. */
/** `onVerified` asks the gated endpoint again, after any change of the verification. */
export function GatedError({ error, onVerified }: { error: Error | null; onVerified: () => void }) {
  if (!error) return null;
  return isGate(error) ? <VerificationGate error={error} onVerified={onVerified} /> : <ErrorBox error={error} />;
}

export function VerificationGate({ error, onVerified }: { error: Error; onVerified: () => void }) {
  const status = useLoad(() => api<BuyerVerification>("GET", "/api/v1/buyers/verification"));
  const sandbox = currentEnvironment() === "sandbox";
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<Error | null>(null);

  async function act(run: () => Promise<BuyerVerification>) {
    setBusy(true);
    setActionError(null);
    try {
      await run();
      // Ask the gated endpoint again (its refusal names the new status, or it answers now).
      status.reload();
      onVerified();
    } catch (e) {
      setActionError(e as Error);
    } finally {
      setBusy(false);
    }
  }

  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? "").trim();
    void act(() =>
      api<BuyerVerification>("POST", "/api/v1/buyers/verification", {
        body: {
          legal_name: value("legal_name"),
          country: value("country"),
          contact_email: value("contact_email"),
          tax_id: value("tax_id") || null,
        },
      }),
    );
  };

  const v = status.data;
  return (
    <Section title="Buyer verification required">
      <ErrorBox error={error} />
      <p>
        Talent discovery and licensing are open to verified buyers only. Verification is per environment: submit your
        business details{sandbox ? ", then approve them yourself (sandbox only)." : "; a reviewer then approves them."}
      </p>
      {status.loading && !v && <Loading what="Checking your verification" />}
      <ErrorBox error={status.error} />
      <ErrorBox error={actionError} />
      {v && (
        <p>
          Status in {v.environment}: <span class="status">{v.status}</span>
          {v.submitted_at && <span class="muted"> (submitted {formatDate(v.submitted_at)})</span>}
          {v.rejected_at && <span class="muted"> (rejected {formatDate(v.rejected_at)})</span>}
        </p>
      )}
      {v && (v.status === "unverified" || v.status === "rejected") && (
        <form class="talent-verify" onSubmit={submit}>
          <div class="row">
            <div>
              <label for="bv-legal-name">Legal name</label>
              <input id="bv-legal-name" name="legal_name" required maxLength={200} autocomplete="organization" />
            </div>
            <div>
              <label for="bv-country">Country (ISO code)</label>
              <input id="bv-country" name="country" required minLength={2} maxLength={2} placeholder="GB" autocomplete="country" />
            </div>
            <div>
              <label for="bv-email">Contact email</label>
              <input id="bv-email" name="contact_email" type="email" required autocomplete="email" />
            </div>
            <div>
              <label for="bv-tax-id">Tax id (optional)</label>
              <input id="bv-tax-id" name="tax_id" maxLength={64} />
            </div>
          </div>
          <p>
            <button type="submit" disabled={busy}>
              Submit for verification
            </button>
          </p>
        </form>
      )}
      {v && v.status === "pending" && sandbox && (
        <div class="notice">
          <p>
            Sandbox: you play the reviewer. <code>POST /api/v1/sandbox/buyers/verification/approve</code> approves
            the pending submission.
          </p>
          <div class="row">
            <button
              type="button"
              disabled={busy}
              onClick={() => act(() => api<BuyerVerification>("POST", "/api/v1/sandbox/buyers/verification/approve"))}
            >
              Approve verification (sandbox)
            </button>
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => act(() => api<BuyerVerification>("POST", "/api/v1/sandbox/buyers/verification/reject"))}
            >
              Reject (sandbox)
            </button>
          </div>
        </div>
      )}
      {v && v.status === "pending" && !sandbox && (
        <p class="notice">
          Your details are under review; discovery opens once a reviewer approves them (on a self-hosted server, the
          operator runs <code>soundstage buyers verify --account &lt;account&gt; --environment production</code>).
        </p>
      )}
      {v && v.status === "verified" && (
        <p class="notice">
          Verified. <button type="button" onClick={onVerified}>Continue</button>
        </p>
      )}
    </Section>
  );
}
