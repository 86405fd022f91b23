// The member forms more than one island shows: a labelled field with its server message
// under it, and the sign-in form (the join page, and the comments of a visitor who wants
// to write one). `prefix` names their classes and ids, so each island styles its own.

import { useState } from "react";
import { failureText } from "./api";
import { signIn } from "./member";
import * as mm from "./messages-members";

export function formValue(form: HTMLFormElement, name: string): string {
  return String(new FormData(form).get(name) ?? "");
}

/** What an island keeps of a failed call: the server's field messages, else one line. */
export function problemsOf(e: unknown): { fields: Record<string, string>; line: string | null } {
  const fields = (e as { errors?: Record<string, string> }).errors ?? {};
  return Object.keys(fields).length > 0 ? { fields, line: null } : { fields: {}, line: failureText(e) };
}

export function Field(props: {
  prefix: string;
  name: string;
  label: string;
  type: "email" | "password" | "text";
  autocomplete: string;
  required?: boolean;
  problem?: string;
}) {
  const { prefix, name, problem } = props;
  const id = `${prefix}-${name}`;
  return (
    <p class={`${prefix}-field`}>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={name}
        type={props.type as "text"}
        autoComplete={props.autocomplete}
        required={props.required ?? true}
        aria-invalid={problem ? "true" : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
      />
      {problem ? (
        <p class={`${prefix}-field-error`} id={`${id}-error`} role="alert">
          {problem}
        </p>
      ) : null}
    </p>
  );
}

export function ErrorLine({ prefix, text }: { prefix: string; text: string | null }) {
  return text ? (
    <p class={`${prefix}-error tessera-error`} role="alert">
      {text}
    </p>
  ) : null;
}

/** Email, password and "keep me signed in"; `onSignedIn` runs once the session is open. */
export function SignInForm(props: { prefix: string; onSignedIn: () => void; switchLabel?: string; onSwitch?: () => void }) {
  const { prefix } = props;
  const [busy, setBusy] = useState(false);
  const [line, setLine] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const email = formValue(form, "email").trim();
    const password = formValue(form, "password");
    setFields({});
    if (!email || !password) return setLine(mm.BLANK);
    setBusy(true);
    setLine(null);
    try {
      await signIn(email, password, new FormData(form).get("rememberMe") === "on");
      props.onSignedIn();
    } catch (err) {
      const p = problemsOf(err);
      setFields(p.fields);
      setLine(p.line);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class={`${prefix}-form ${prefix}-sign-in`} noValidate onSubmit={submit}>
      <Field prefix={prefix} name="email" label={mm.EMAIL} type="email" autocomplete="email" problem={fields.email} />
      <Field prefix={prefix} name="password" label={mm.PASSWORD} type="password" autocomplete="current-password" problem={fields.password} />
      <p class={`${prefix}-field`}>
        <label>
          <input name="rememberMe" type="checkbox" /> {mm.REMEMBER_ME}
        </label>
      </p>
      <ErrorLine prefix={prefix} text={line} />
      <button type="submit" disabled={busy}>
        {busy ? mm.SIGNING_IN : mm.SIGN_IN}
      </button>
      {props.onSwitch ? (
        <button type="button" class={`${prefix}-switch`} onClick={props.onSwitch}>
          {props.switchLabel}
        </button>
      ) : null}
    </form>
  );
}
