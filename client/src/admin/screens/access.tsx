// Settings → Access: the site's owners and their roles (change, remove), invites (send,
// see pending), API tokens (create — the secret shown once —, list, revoke).
// `GET /api/owner/accounts`, `PATCH|DELETE /api/owner/accounts/{id}`,
// `POST /api/owner/invites`, `GET|POST /api/owner/tokens`, `DELETE /api/owner/tokens/{id}`.
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { api, ApiError } from "../api/client";
import type { Account, ApiToken, Invite } from "../api/types";
import { ROLE_OPTIONS, roleLabel } from "../roles";
import { canWrite, useSession } from "../session";
import { Confirm as ConfirmDialog } from "../ui/confirm";
import { Dialog } from "../ui/dialog";
import { Field, Select } from "../ui/field";
import { date, dateTime } from "../ui/format";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";

export default function Access() {
  const { me } = useSession();
  const writable = canWrite(me, "access");
  return (
    <>
      <p>
        <Link href="/">Settings</Link>
      </p>
      <Heading title="Access">Access</Heading>
      <Owners writable={writable} myId={me.account?.id ?? null} />
      <Tokens writable={writable} />
    </>
  );
}

type Confirm = { title: string; text: string; action: string; run: () => Promise<unknown>; done: string };

function ConfirmBox({ confirm, onClose, onDone }: { confirm: Confirm; onClose: () => void; onDone: () => void }) {
  return (
    <ConfirmDialog title={confirm.title} action={confirm.action} run={confirm.run} done={confirm.done} onClose={onClose} onDone={onDone}>
      <p>{confirm.text}</p>
    </ConfirmDialog>
  );
}

function Owners({ writable, myId }: { writable: boolean; myId: string | null }) {
  const { data, error, loading, reload } = useGet<{ accounts: Account[]; invites: Invite[] }>("/api/owner/accounts");
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [roleError, setRoleError] = useState<Record<string, string>>({});
  const changeRole = async (a: Account, role: number) => {
    try {
      await api("PATCH", `/api/owner/accounts/${encodeURIComponent(a.id)}`, { role });
      setRoleError({});
      announce(`${a.email} is now ${roleLabel(role)}.`);
      reload();
    } catch (e) {
      setRoleError({ [a.id]: (e as ApiError).fields.role ?? (e as ApiError).message });
    }
  };
  return (
    <section aria-labelledby="owners">
      <h2 id="owners">Owners</h2>
      <ErrorText message={error} />
      {loading && <Loading what="owners" />}
      {data && (
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Since</th>
              {writable && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {data.accounts.map((a) => (
              <tr key={a.id}>
                <th scope="row">
                  {a.email}
                  {a.id === myId && " (you)"}
                  {!a.hasPassword && <div class="hint">Has not set a password yet</div>}
                </th>
                <td>
                  {writable && a.id !== myId ? (
                    <>
                      <Select
                        label={`Role of ${a.email}`}
                        value={String(a.role)}
                        onValue={(v) => changeRole(a, Number(v))}
                        options={ROLE_OPTIONS}
                      />
                      {roleError[a.id] && <ErrorText message={roleError[a.id]} />}
                    </>
                  ) : (
                    roleLabel(a.role, a.roleName)
                  )}
                </td>
                <td>{date(a.createdMs)}</td>
                {writable && (
                  <td>
                    {a.id !== myId && (
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Remove ${a.email}`}
                        onClick={() =>
                          setConfirm({
                            title: `Remove ${a.email}?`,
                            text: "They are signed out at once and can no longer sign in to this site.",
                            action: "Remove",
                            run: () => api("DELETE", `/api/owner/accounts/${encodeURIComponent(a.id)}`),
                            done: `${a.email} removed.`,
                          })
                        }
                      >
                        Remove
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && data.invites.length > 0 && (
        <>
          <h3>Invites waiting</h3>
          <ul>
            {data.invites.map((i) => (
              <li key={i.email}>
                {i.email} as {roleLabel(i.role, i.roleName)}, until {dateTime(i.expiresMs)}
              </li>
            ))}
          </ul>
        </>
      )}
      {writable && <InviteForm onSent={reload} />}
      {confirm && (
        <ConfirmBox
          confirm={confirm}
          onClose={() => setConfirm(null)}
          onDone={() => {
            setConfirm(null);
            reload();
          }}
        />
      )}
    </section>
  );
}

function InviteForm({ onSent }: { onSent: () => void }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("8");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api("POST", "/api/owner/invites", { email: email.trim(), role: Number(role) });
      announce(`Invite sent to ${email.trim()}.`);
      setEmail("");
      onSent();
    } catch (err) {
      setError(err as ApiError);
    }
    setBusy(false);
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="invite">
      <h3 id="invite">Invite someone</h3>
      <ErrorText message={error?.message} />
      <div class="filters">
        <Field label="Email" type="email" value={email} onValue={setEmail} error={error?.fields.email} />
        <Select label="Role" value={role} onValue={setRole} options={ROLE_OPTIONS} />
        <div class="field">
          <button type="submit" class="primary" disabled={busy}>
            Send invite
          </button>
        </div>
      </div>
    </form>
  );
}

function Tokens({ writable }: { writable: boolean }) {
  const { data, error, loading, reload } = useGet<{ tokens: ApiToken[] }>("/api/owner/tokens");
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [name, setName] = useState("");
  const [role, setRole] = useState("10");
  const [busy, setBusy] = useState(false);
  const [createError, setCreateError] = useState<ApiError | null>(null);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setCreateError(null);
    try {
      const made = await api<{ token: ApiToken; secret: string }>("POST", "/api/owner/tokens", { name: name.trim(), role: Number(role) });
      setSecret({ name: made.token.name, secret: made.secret });
      setName("");
      reload();
    } catch (err) {
      setCreateError(err as ApiError);
    }
    setBusy(false);
  };
  return (
    <section aria-labelledby="tokens">
      <h2 id="tokens">API tokens</h2>
      <p>For scripts and other programs: a token acts with its role on this site's owner API.</p>
      <ErrorText message={error} />
      {loading && <Loading what="tokens" />}
      {data && data.tokens.length === 0 && <Empty>No API tokens yet.</Empty>}
      {data && data.tokens.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              {writable && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {data.tokens.map((t) => (
              <tr key={t.id}>
                <th scope="row">{t.name || "(no name)"}</th>
                <td>{roleLabel(t.role, t.roleName)}</td>
                <td>{date(t.createdMs)}</td>
                <td>{t.revokedMs == null ? "Works" : `Revoked ${dateTime(t.revokedMs)}`}</td>
                {writable && (
                  <td>
                    {t.revokedMs == null && (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Revoke ${t.name || "the token without a name"}`}
                      onClick={() =>
                        setConfirm({
                          title: `Revoke ${t.name || "this token"}?`,
                          text: "Programs using it stop working at once.",
                          action: "Revoke",
                          run: () => api("DELETE", `/api/owner/tokens/${encodeURIComponent(t.id)}`),
                          done: "Token revoked.",
                        })
                      }
                    >
                      Revoke
                    </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {writable && (
        <form onSubmit={create} noValidate aria-labelledby="new-token">
          <h3 id="new-token">Create a token</h3>
          <ErrorText message={createError?.message} />
          <div class="filters">
            <Field label="Token name" value={name} onValue={setName} error={createError?.fields.name} />
            <Select label="Token role" value={role} onValue={setRole} options={ROLE_OPTIONS} />
            <div class="field">
              <button type="submit" class="primary" disabled={busy}>
                Create token
              </button>
            </div>
          </div>
        </form>
      )}
      {secret && (
        <Dialog title={`Token ${secret.name || ""} created`} onClose={() => setSecret(null)}>
          <p>Copy it now: it is shown only this once.</p>
          <p>
            <code class="secret" tabIndex={0} aria-label="The token">
              {secret.secret}
            </code>
          </p>
          <button type="button" class="primary" onClick={() => setSecret(null)}>
            Done
          </button>
        </Dialog>
      )}
      {confirm && (
        <ConfirmBox
          confirm={confirm}
          onClose={() => setConfirm(null)}
          onDone={() => {
            setConfirm(null);
            reload();
          }}
        />
      )}
    </section>
  );
}
