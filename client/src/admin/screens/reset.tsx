// Forgot password: `POST /api/owner/password-reset {email}`; the answer is the same whether
// or not the address has an account.
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { api, ApiError } from "../api/client";
import { Field } from "../ui/field";
import { ErrorText, Heading } from "../ui/page";

export const RESET_SENT = "If that address has an account, a link to reset its password is on its way.";

export default function Reset() {
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await api<{ message?: string } | null>("POST", "/api/owner/password-reset", { email: email.trim() });
      setSent(answer?.message || RESET_SENT);
    } catch (err) {
      setError(err as ApiError);
    }
    setBusy(false);
  };
  return (
    <div class="card narrow">
      <Heading title="Reset your password">Reset your password</Heading>
      {sent ? (
        <p role="status">{sent}</p>
      ) : (
        <form onSubmit={submit} noValidate>
          <p>Enter your account's email and we will send you a link to choose a new password.</p>
          <ErrorText message={error?.message} />
          <Field
            label="Email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onValue={setEmail}
            error={error?.fields.email}
          />
          <button type="submit" class="primary" disabled={busy}>
            Send reset link
          </button>
        </form>
      )}
      <p>
        <Link href="/">Back to sign in</Link>
      </p>
    </div>
  );
}
