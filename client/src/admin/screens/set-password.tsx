// Set a password from an emailed link (first password, reset or invite):
// `POST /api/owner/password {token, password}` answers `Me`, signed in.
import { useState } from "preact/hooks";
import { Link, useLocation, useSearch } from "wouter";
import { api, ApiError } from "../api/client";
import type { Me } from "../api/types";
import { Field } from "../ui/field";
import { ErrorText, Heading } from "../ui/page";

export const PASSWORD_HINT = "8 to 128 characters.";

export default function SetPassword({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const token = new URLSearchParams(useSearch()).get("token") ?? "";
  const [, navigate] = useLocation();
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (password !== again) {
      setError(new ApiError(400, "Please correct the fields marked below.", { again: "The passwords are not the same." }));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const me = await api<Me>("POST", "/api/owner/password", { token, password });
      navigate("~/config", { replace: true });
      onSignedIn(me);
    } catch (err) {
      setError(err as ApiError);
      setBusy(false);
    }
  };
  if (!token) {
    return (
      <div class="card narrow">
        <Heading title="Choose a password">Choose a password</Heading>
        <ErrorText message="This link is incomplete: open the whole link from your email, or ask for a new one." />
        <p>
          <Link href="/reset">Send me a new link</Link>
        </p>
      </div>
    );
  }
  return (
    <div class="card narrow">
      <Heading title="Choose a password">Choose a password</Heading>
      <form onSubmit={submit} noValidate>
        <ErrorText message={error?.message} />
        {error?.fields.token && <ErrorText message={error.fields.token} />}
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          hint={PASSWORD_HINT}
          value={password}
          onValue={setPassword}
          error={error?.fields.password}
        />
        <Field
          label="Repeat the password"
          type="password"
          autoComplete="new-password"
          required
          value={again}
          onValue={setAgain}
          error={error?.fields.again}
        />
        <button type="submit" class="primary" disabled={busy}>
          Save password and sign in
        </button>
      </form>
    </div>
  );
}
