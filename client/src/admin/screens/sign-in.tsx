// Sign in: email and password, `POST /api/owner/session`; the server's message on failure.
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { api, ApiError } from "../api/client";
import type { Me } from "../api/types";
import { Field } from "../ui/field";
import { ErrorText, Heading, siteTitle } from "../ui/page";

export default function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await api<Me>("POST", "/api/owner/session", { email: email.trim(), password }));
    } catch (err) {
      setError(err as ApiError);
      setBusy(false);
    }
  };
  const site = siteTitle();
  return (
    <div class="card narrow">
      <Heading title="Sign in">Sign in{site ? ` to ${site}` : ""}</Heading>
      <form onSubmit={submit} noValidate>
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
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onValue={setPassword}
          error={error?.fields.password}
        />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p>
        <Link href="/reset">Forgot your password?</Link>
      </p>
    </div>
  );
}
