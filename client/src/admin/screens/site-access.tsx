// Settings → Site access: the site password, which puts the whole site behind a lock
// screen for visitors until they enter it (the owner app and a signed-in owner's view of
// the site are never locked). One call reads it (`GET /api/owner/site-access`: whether a
// password is set, never the password, and the lock screen's words); each form sends a
// JSON Merge Patch of what it changes (`{password}`, `{password: null}`, `{title,
// message}`), and the server's problems show beside their fields.
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { api, ApiError } from "../api/client";
import type { SiteAccess } from "../api/types";
import { canWrite, useSession } from "../session";
import { Field, TextArea } from "../ui/field";
import { announce, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";

const PATH = "/api/owner/site-access";

export default function SiteAccessScreen() {
  const { me } = useSession();
  const writable = canWrite(me, "access");
  const { data, error, setData } = useGet<SiteAccess>(PATH);
  const header = (
    <>
      <p>
        <Link href="/">Back to settings</Link>
      </p>
      <Heading title="Site access">Site access</Heading>
    </>
  );
  if (error)
    return (
      <>
        {header}
        <ErrorText message={error} />
      </>
    );
  if (!data)
    return (
      <>
        {header}
        <Loading what="site access" />
      </>
    );
  return (
    <>
      {header}
      {!writable && <p class="note">Your role can read the site's access but not change it.</p>}
      <Password data={data} writable={writable} onSaved={setData} />
      <LockScreen data={data} writable={writable} onSaved={setData} />
    </>
  );
}

/** Sends a patch; the stored document, or the problems by field. */
async function send(body: Record<string, unknown>): Promise<{ ok: SiteAccess } | { fields: Record<string, string>; message: string }> {
  try {
    return { ok: await api<SiteAccess>("PATCH", PATH, body) };
  } catch (e) {
    const err = e as ApiError;
    return { fields: err.fields, message: err.message };
  }
}

function Password({ data, writable, onSaved }: { data: SiteAccess; writable: boolean; onSaved: (d: SiteAccess) => void }) {
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<string | null>(null);
  const save = async (body: Record<string, unknown>, said: string) => {
    setBusy(true);
    setError(undefined);
    setMessage(null);
    const r = await send(body);
    setBusy(false);
    if ("ok" in r) {
      onSaved(r.ok);
      setPassword("");
      announce(said);
    } else if (r.fields.password) setError(r.fields.password);
    else setMessage(r.message);
  };
  return (
    <section aria-labelledby="site-password-h">
      <h2 id="site-password-h">Site password</h2>
      {data.passwordSet ? (
        <p>
          <strong>Password set.</strong> Visitors see the lock screen until they enter the password. You see the site as it is while you
          are signed in.
        </p>
      ) : (
        <p>
          <strong>No password.</strong> The site is open to everyone.
        </p>
      )}
      <ErrorText message={message} />
      {writable && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!password) {
              setError("Please enter a password, or turn the site password off.");
              return;
            }
            save({ password }, data.passwordSet ? "The site password is changed." : "The site password is on.");
          }}
        >
          <Field
            label={data.passwordSet ? "New site password" : "Site password"}
            type="password"
            autoComplete="new-password"
            value={password}
            onValue={setPassword}
            error={error}
            hint={
              data.passwordSet
                ? "A new password signs out every visitor who entered the old one."
                : "At most 200 characters. Share it with the people who may see the site."
            }
          />
          <div class="actions">
            <button type="submit" disabled={busy}>
              {data.passwordSet ? "Change password" : "Turn on site password"}
            </button>
            {data.passwordSet && (
              <button type="button" class="danger" disabled={busy} onClick={() => save({ password: null }, "The site password is off: the site is open to everyone.")}>
                Turn off site password
              </button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}

function LockScreen({ data, writable, onSaved }: { data: SiteAccess; writable: boolean; onSaved: (d: SiteAccess) => void }) {
  const [title, setTitle] = useState(data.title);
  const [words, setWords] = useState(data.message);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const changed = title !== data.title || words !== data.message;
  return (
    <section aria-labelledby="lock-screen-h">
      <h2 id="lock-screen-h">Lock screen</h2>
      <p>What visitors read above the password field. Left empty, the heading is the site's title.</p>
      <ErrorText message={message} />
      {writable ? (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setErrors({});
            setMessage(null);
            const r = await send({ title, message: words });
            setBusy(false);
            if ("ok" in r) {
              onSaved(r.ok);
              setTitle(r.ok.title);
              setWords(r.ok.message);
              announce("The lock screen is saved.");
            } else {
              setErrors(r.fields);
              if (!r.fields.title && !r.fields.message) setMessage(r.message);
            }
          }}
        >
          <Field label="Heading" value={title} onValue={setTitle} error={errors.title} hint="At most 100 characters." />
          <TextArea label="Message" value={words} onValue={setWords} error={errors.message} hint={`Empty: “${data.defaultMessage}”`} />
          <button type="submit" disabled={busy || !changed}>
            Save lock screen
          </button>
        </form>
      ) : (
        <dl>
          <dt>Heading</dt>
          <dd>{data.title || "The site's title"}</dd>
          <dt>Message</dt>
          <dd>{data.message || data.defaultMessage}</dd>
        </dl>
      )}
    </section>
  );
}
