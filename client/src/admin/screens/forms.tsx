// Forms: the site's forms with their submission counts (`GET /api/owner/forms`), a form's
// builder (`GET`/`PATCH`/`DELETE /api/owner/forms/{id}`): its fields of each kind (added,
// moved up and down by buttons, edited, removed), where submissions go, what the visitor
// sees after submitting, captcha and newsletter; a form's submissions as a table with its
// CSV export, and the newsletter's subscribers with theirs. A role that only reads forms
// sees the answers and no builder.
import { useEffect, useRef, useState } from "preact/hooks";
import { Link, Redirect, Route, Switch, useLocation } from "wouter";
import { api, ApiError, FIELDS_ERROR, post } from "../api/client";
import type { FormField, FormKind, FormList, FormSettings, OwnerFormView, SubmissionList, SubscriberList } from "../api/types";
import { canWrite, useSession } from "../session";
import { Confirm } from "../ui/confirm";
import { Dialog } from "../ui/dialog";
import { Check, Field, TextArea } from "../ui/field";
import { dateTime } from "../ui/format";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";

/** The field kinds `GetTemplateSchema?type=form` declares, their names in the builder, and
 *  the settings each has (the server's `field_kinds`). */
export const KINDS: { kind: FormKind; name: string; settings: string[] }[] = [
  { kind: "text", name: "Text", settings: ["description", "placeholder", "required", "maxLength"] },
  { kind: "textarea", name: "Paragraph", settings: ["description", "placeholder", "required", "maxLength"] },
  { kind: "email", name: "Email", settings: ["description", "placeholder", "required"] },
  { kind: "number", name: "Number", settings: ["description", "placeholder", "required"] },
  { kind: "currency", name: "Currency", settings: ["currencySymbol", "required"] },
  { kind: "phone", name: "Phone", settings: ["showCountryCode", "required"] },
  { kind: "name", name: "Name", settings: ["required"] },
  { kind: "address", name: "Address", settings: ["required"] },
  { kind: "date", name: "Date", settings: ["required"] },
  { kind: "time", name: "Time", settings: ["required"] },
  { kind: "radio", name: "Radio buttons", settings: ["options", "required"] },
  { kind: "checkbox", name: "Checkboxes", settings: ["options", "required"] },
  { kind: "select", name: "Dropdown", settings: ["options", "required"] },
  { kind: "likert", name: "Likert scale", settings: ["options"] },
  { kind: "hidden", name: "Hidden", settings: ["key", "value"] },
  { kind: "section", name: "Section heading", settings: ["underline"] },
];

const kindOf = (k: string) => KINDS.find((x) => x.kind === k);
export const kindName = (k: string) => kindOf(k)?.name ?? k;
const has = (f: FormField, setting: string) => kindOf(f.type)?.settings.includes(setting) ?? false;

/** A new field of `kind`, with what the builder starts it with, and its id (kept from now
 *  on: answers are stored by field id). */
export function newField(kind: FormKind): FormField {
  const id = `${kind}-${Math.random().toString(36).slice(2, 10)}`;
  const f: FormField = { id, type: kind, title: kindName(kind) } as FormField;
  if (has(f, "options")) f.options = kind === "likert" ? ["Agree", "Disagree"] : ["Option 1", "Option 2"];
  if (has(f, "required")) f.required = false;
  return f;
}

/** `list` with the item at `i` moved by `by` (unchanged at the ends). */
export function moved<T>(list: T[], i: number, by: number): T[] {
  const j = i + by;
  if (j < 0 || j >= list.length) return list;
  const next = list.slice();
  [next[i], next[j]] = [next[j], next[i]];
  return next;
}

export default function Forms() {
  return (
    <Switch>
      <Route path="/forms/subscribers">
        <Subscribers />
      </Route>
      <Route path="/forms/:id/submissions">{(p) => <Submissions id={p.id} />}</Route>
      <Route path="/forms/:id">{(p) => <Builder id={p.id} />}</Route>
      <Route>
        <FormsList />
      </Route>
    </Switch>
  );
}

function FormsList() {
  const { me } = useSession();
  const writable = canWrite(me, "forms");
  const { data, error, loading } = useGet<FormList>("/api/owner/forms");
  const [adding, setAdding] = useState(false);
  return (
    <>
      <Heading title="Forms">Forms</Heading>
      <div class="toolbar">
        {writable && (
          <button type="button" onClick={() => setAdding(true)}>
            Add form
          </button>
        )}
        <Link href="/forms/subscribers">Newsletter subscribers</Link>
      </div>
      <ErrorText message={error} />
      {loading && <Loading what="forms" />}
      {data && data.forms.length === 0 && <Empty>No forms yet.{writable ? " Add one to collect answers on the site." : ""}</Empty>}
      {data && data.forms.length > 0 && (
        <table>
          <caption class="visually-hidden">Forms</caption>
          <thead>
            <tr>
              <th scope="col">Form</th>
              <th scope="col" class="num">
                Fields
              </th>
              <th scope="col" class="num">
                Submissions
              </th>
              <th scope="col">Newsletter</th>
            </tr>
          </thead>
          <tbody>
            {data.forms.map((f) => (
              <tr key={f.id}>
                <th scope="row">{writable ? <Link href={`/forms/${encodeURIComponent(f.id)}`}>{f.name}</Link> : f.name}</th>
                <td class="num">{f.fieldCount}</td>
                <td class="num">
                  <Link href={`/forms/${encodeURIComponent(f.id)}/submissions`} aria-label={`${f.submissions} submissions to ${f.name}`}>
                    {f.submissions}
                  </Link>
                </td>
                <td>{f.newsletter ? "Yes" : "No"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {adding && <AddForm onClose={() => setAdding(false)} />}
    </>
  );
}

function AddForm({ onClose }: { onClose: () => void }) {
  const [, navigate] = useLocation();
  const [name, setName] = useState("");
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Dialog title="Add form" onClose={onClose}>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          post<OwnerFormView>("/api/owner/forms", { name, fields: [newField("email")] }).then(
            (f) => {
              announce(`Form ${f.name} added.`);
              navigate(`/forms/${encodeURIComponent(f.id)}`);
            },
            (err: ApiError) => {
              setBusy(false);
              setFailure(err);
            },
          );
        }}
      >
        {failure && !failure.fields.name && <ErrorText message={failure.message} />}
        <Field label="Name" value={name} onValue={setName} required error={failure?.fields.name} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            Add form
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** A checkbox with its label. */
/** The errors of one field's options (`fields[i].options[j]`), as lines: "Option 2: …". */
function optionErrors(errors: Record<string, string>, at: string): string | undefined {
  const lines = Object.entries(errors)
    .filter(([k]) => k.startsWith(`${at}.options[`))
    .map(([k, m]) => `Option ${Number(k.slice(at.length + 9, -1)) + 1}: ${m}`);
  const whole = errors[`${at}.options`];
  const all = whole ? [whole, ...lines] : lines;
  return all.length ? all.join(" ") : undefined;
}

function FieldEditor({
  field,
  index,
  count,
  errors,
  onChange,
  onMove,
  onRemove,
}: {
  field: FormField;
  index: number;
  count: number;
  errors: Record<string, string>;
  onChange: (f: FormField) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}) {
  const at = `fields[${index}]`;
  const e = (k: string) => errors[`${at}.${k}`];
  const set = (k: keyof FormField, v: unknown) => onChange({ ...field, [k]: v } as FormField);
  const name = field.title || kindName(field.type);
  const general = [errors[at], e("type"), e("id")].filter(Boolean).join(" ");
  return (
    <li class="form-field">
      <fieldset>
        <legend>
          {index + 1}. {kindName(field.type)}
        </legend>
        {general && <ErrorText message={general} />}
        <Field label="Label" value={field.title ?? ""} onValue={(v) => set("title", v)} error={e("title")} />
        {has(field, "description") && <TextArea label="Description" value={field.description ?? ""} onValue={(v) => set("description", v)} error={e("description")} />}
        {has(field, "placeholder") && <Field label="Placeholder" value={field.placeholder ?? ""} onValue={(v) => set("placeholder", v)} error={e("placeholder")} />}
        {has(field, "maxLength") && (
          <Field
            label="Character limit"
            type="number"
            min={1}
            inputMode="numeric"
            hint="Leave empty for no limit."
            value={field.maxLength == null ? "" : String(field.maxLength)}
            onValue={(v) => set("maxLength", v.trim() === "" ? null : Number(v))}
            error={e("maxLength")}
          />
        )}
        {has(field, "options") && (
          <TextArea
            label={field.type === "likert" ? "Questions" : "Options"}
            hint="One a line."
            value={(field.options ?? []).join("\n")}
            onValue={(v) => set("options", v.split("\n"))}
            error={optionErrors(errors, at)}
          />
        )}
        {has(field, "currencySymbol") && <Field label="Currency symbol" value={field.currencySymbol ?? ""} onValue={(v) => set("currencySymbol", v)} error={e("currencySymbol")} />}
        {has(field, "key") && <Field label="Key" value={field.key ?? ""} onValue={(v) => set("key", v)} error={e("key")} />}
        {has(field, "value") && <Field label="Value" value={field.value ?? ""} onValue={(v) => set("value", v)} error={e("value")} />}
        {has(field, "required") && <Check label="Required" checked={!!field.required} onChange={(v) => set("required", v)} error={e("required")} />}
        {has(field, "showCountryCode") && <Check label="Show country code" checked={!!field.showCountryCode} onChange={(v) => set("showCountryCode", v)} />}
        {has(field, "underline") && <Check label="Underline" checked={!!field.underline} onChange={(v) => set("underline", v)} />}
        <div class="actions">
          <button type="button" aria-label={`Move ${name} up`} title="Move up" disabled={index === 0} onClick={() => onMove(-1)}>
            ↑
          </button>
          <button type="button" aria-label={`Move ${name} down`} title="Move down" disabled={index === count - 1} onClick={() => onMove(1)}>
            ↓
          </button>
          <button type="button" class="danger" aria-label={`Remove ${name}`} onClick={onRemove}>
            Remove
          </button>
        </div>
      </fieldset>
    </li>
  );
}

type Draft = { name: string; fields: FormField[]; settings: FormSettings; redirect: boolean };

function draftOf(f: OwnerFormView): Draft {
  return { name: f.name, fields: f.fields, settings: f.settings, redirect: f.settings.successRedirect !== "" };
}

function Builder({ id }: { id: string }) {
  const { me } = useSession();
  const writable = canWrite(me, "forms");
  const path = `/api/owner/forms/${encodeURIComponent(id)}`;
  const { data, error, loading, setData } = useGet<OwnerFormView>(path);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [addKind, setAddKind] = useState<FormKind>("text");
  const [deleting, setDeleting] = useState(false);
  const [, navigate] = useLocation();
  const list = useRef<HTMLOListElement>(null);
  // After a move: the move button to focus once the list is drawn again (the field's other
  // one when it reached an end).
  const refocus = useRef<{ label: string; name: string } | null>(null);
  useEffect(() => {
    const want = refocus.current;
    if (!want || !list.current) return;
    refocus.current = null;
    const buttons = [...list.current.querySelectorAll<HTMLButtonElement>("button:not([disabled])")];
    (buttons.find((b) => b.getAttribute("aria-label") === want.label) ?? buttons.find((b) => b.getAttribute("aria-label")?.startsWith(`Move ${want.name} `)))?.focus();
  });
  if (loading) return <Loading what="the form" />;
  if (!data)
    return (
      <>
        <Heading title="Form">Form</Heading>
        <ErrorText message={error} />
      </>
    );
  // A role that reads forms reads their answers; it has no builder.
  if (!writable) return <Redirect to={`/forms/${encodeURIComponent(id)}/submissions`} replace />;
  const d = draft ?? draftOf(data);
  const change = (next: Partial<Draft>) => setDraft({ ...d, ...next });
  const setSetting = (k: keyof FormSettings, v: unknown) => change({ settings: { ...d.settings, [k]: v } });
  const errors = failure?.fields ?? {};
  const se = (k: string) => errors[`settings.${k}`];
  const moveField = (i: number, by: number) => {
    change({ fields: moved(d.fields, i, by) });
    const name = d.fields[i].title || kindName(d.fields[i].type);
    announce(`${name} moved to position ${Math.min(Math.max(i + by, 0), d.fields.length - 1) + 1}.`);
    // Keep the focus on the same button of the moved field.
    refocus.current = { label: by < 0 ? `Move ${name} up` : `Move ${name} down`, name };
  };
  const save = (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const settings = { ...d.settings, ...(d.redirect ? {} : { successRedirect: "" }), recipients: d.settings.recipients.filter((r, i, all) => r.trim() !== "" || all.length === 1) };
    api<OwnerFormView>("PATCH", path, { name: d.name, fields: d.fields, settings }).then(
      (f) => {
        setBusy(false);
        setFailure(null);
        setData(f);
        setDraft(null);
        announce("Form saved. The site shows it now.");
      },
      (err: ApiError) => {
        setBusy(false);
        setFailure(err);
        announce(Object.keys(err.fields).length ? FIELDS_ERROR : err.message);
      },
    );
  };
  const kindsId = `add-kind-${id}`;
  return (
    <>
      <Heading title={data.name}>{data.name}</Heading>
      <p class="toolbar">
        <Link href="/forms">All forms</Link>
        <Link href={`/forms/${encodeURIComponent(id)}/submissions`}>Submissions ({data.submissions})</Link>
      </p>
      <form noValidate onSubmit={save} aria-label="Form builder">
        {failure && <ErrorText message={Object.keys(failure.fields).length ? FIELDS_ERROR : failure.message} />}
        <Field label="Form name" value={d.name} onValue={(v) => change({ name: v })} required error={errors.name} />
        <h2>Fields</h2>
        {errors.fields && <ErrorText message={errors.fields} />}
        {d.fields.length === 0 && <Empty>No fields yet: add one below.</Empty>}
        <ol class="form-fields" ref={list}>
          {d.fields.map((f, i) => (
            <FieldEditor
              key={f.id ?? `at-${i}`}
              field={f}
              index={i}
              count={d.fields.length}
              errors={errors}
              onChange={(nf) => change({ fields: d.fields.map((x, j) => (j === i ? nf : x)) })}
              onMove={(by) => moveField(i, by)}
              onRemove={() => {
                change({ fields: d.fields.filter((_, j) => j !== i) });
                announce(`${f.title || kindName(f.type)} removed.`);
              }}
            />
          ))}
        </ol>
        <div class="toolbar">
          <label for={kindsId}>Kind of field</label>
          <select id={kindsId} value={addKind} onChange={(e) => setAddKind((e.currentTarget as HTMLSelectElement).value as FormKind)}>
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.name}
              </option>
            ))}
          </select>
          <button
            type="button"
            onClick={() => {
              change({ fields: [...d.fields, newField(addKind)] });
              announce(`${kindName(addKind)} field added at position ${d.fields.length + 1}.`);
            }}
          >
            Add field
          </button>
        </div>
        <h2>Submissions go to</h2>
        <fieldset>
          <legend>Email the answers to</legend>
          {se("recipients") && <ErrorText message={se("recipients")} />}
          {d.settings.recipients.length === 0 && <p class="hint">Nobody is emailed; the answers are kept here.</p>}
          {d.settings.recipients.map((r, i) => (
            <div class="toolbar" key={i}>
              <Field
                label={`Email address ${i + 1}`}
                type="email"
                autoComplete="off"
                value={r}
                onValue={(v) => setSetting("recipients", d.settings.recipients.map((x, j) => (j === i ? v : x)))}
                error={se(`recipients[${i}]`)}
              />
              <button type="button" aria-label={`Remove email address ${i + 1}`} onClick={() => setSetting("recipients", d.settings.recipients.filter((_, j) => j !== i))}>
                Remove
              </button>
            </div>
          ))}
          {d.settings.recipients.length < 10 && (
            <button type="button" onClick={() => setSetting("recipients", [...d.settings.recipients, ""])}>
              Add email address
            </button>
          )}
        </fieldset>
        <Check label="Newsletter form: add the first email answer to the mailing list" checked={d.settings.newsletter} onChange={(v) => setSetting("newsletter", v)} error={se("newsletter")} />
        <Check label="Ask visitors to pass a captcha" checked={d.settings.captcha} onChange={(v) => setSetting("captcha", v)} error={se("captcha")} />
        <h2>After submitting</h2>
        <fieldset>
          <legend>The visitor</legend>
          <div class="check">
            <input type="radio" id={`${id}-msg`} name="after" checked={!d.redirect} onChange={() => change({ redirect: false })} />
            <label for={`${id}-msg`}>sees a message</label>
          </div>
          <div class="check">
            <input type="radio" id={`${id}-go`} name="after" checked={d.redirect} onChange={() => change({ redirect: true })} />
            <label for={`${id}-go`}>goes to another page</label>
          </div>
        </fieldset>
        {d.redirect ? (
          <Field label="Go to" hint="A page of the site (/thanks) or a web address." value={d.settings.successRedirect} onValue={(v) => setSetting("successRedirect", v)} error={se("successRedirect")} />
        ) : (
          <TextArea label="Message" hint="Empty: the template's own thanks." value={d.settings.submissionMessage} onValue={(v) => setSetting("submissionMessage", v)} error={se("submissionMessage")} />
        )}
        <TextArea label="Disclaimer under the form" value={d.settings.disclaimer} onValue={(v) => setSetting("disclaimer", v)} error={se("disclaimer")} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            Save form
          </button>
          <button type="button" class="danger" onClick={() => setDeleting(true)}>
            Delete form
          </button>
        </div>
      </form>
      {deleting && (
        <Confirm
          title={`Delete ${data.name}?`}
          action="Delete"
          keep="Cancel"
          run={() => api("DELETE", path)}
          done={`Form ${data.name} deleted.`}
          onClose={() => setDeleting(false)}
          onDone={() => navigate("/forms")}
        >
          <p>
            Its {data.submissions} submissions are deleted with it; export them first if you need them. A page that still shows this form tells visitors it is not configured. Subscribers it
            signed up stay on the mailing list.
          </p>
        </Confirm>
      )}
    </>
  );
}

/** An answer as one line (a name's parts joined, choices comma-separated, "N/A" when none),
 *  as the CSV export and the notice mail write it. */
export function answerText(kind: string | undefined, v: unknown): string {
  let text = "";
  if (typeof v === "string") text = v.trim();
  else if (Array.isArray(v))
    text = v
      .filter((x): x is string => typeof x === "string")
      .map((x) => x.trim())
      .filter(Boolean)
      .join(kind === "name" ? " " : ", ");
  else if (v && typeof v === "object")
    text = Object.entries(v as Record<string, unknown>)
      .map(([q, a]) => `${q}: ${typeof a === "string" ? a : ""}`)
      .join("; ");
  else if (v != null) text = String(v);
  return text || "N/A";
}

function Submissions({ id }: { id: string }) {
  const path = `/api/owner/forms/${encodeURIComponent(id)}/submissions`;
  const { data, error, loading } = useGet<SubmissionList>(path);
  const { me } = useSession();
  if (loading) return <Loading what="submissions" />;
  if (!data)
    return (
      <>
        <Heading title="Submissions">Submissions</Heading>
        <ErrorText message={error} />
      </>
    );
  const columns = (data.form.fields as FormField[]).filter((f) => f.type !== "section" && f.id);
  const rows = data.submissions.slice().reverse();
  return (
    <>
      <Heading title={`Submissions to ${data.form.name}`}>Submissions to {data.form.name}</Heading>
      <p class="toolbar">
        <Link href="/forms">All forms</Link>
        {canWrite(me, "forms") && <Link href={`/forms/${encodeURIComponent(id)}`}>Edit the form</Link>}
        {data.submissions.length > 0 && (
          <a href={`${path}.csv`} download="submissions.csv">
            Export submissions as CSV
          </a>
        )}
      </p>
      {rows.length === 0 ? (
        <Empty>No submissions yet. Answers appear here as visitors send the form.</Empty>
      ) : (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Submissions table">
          <table>
            <caption class="visually-hidden">Submissions to {data.form.name}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Submitted</th>
                {columns.map((c) => (
                  <th scope="col" key={c.id}>
                    {c.title || c.key || c.id}
                  </th>
                ))}
                <th scope="col">Page</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s: any) => (
                <tr key={s.id}>
                  <th scope="row">{dateTime(s.createdMs)}</th>
                  {columns.map((c) => (
                    <td key={c.id}>{answerText(c.type, s.answers?.[c.id!])}</td>
                  ))}
                  <td>{s.page?.pagePath ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function Subscribers() {
  const { data, error, loading } = useGet<SubscriberList>("/api/owner/subscribers");
  return (
    <>
      <Heading title="Newsletter subscribers">Newsletter subscribers</Heading>
      <p class="toolbar">
        <Link href="/forms">All forms</Link>
        {data && data.subscribers.length > 0 && (
          <a href="/api/owner/subscribers.csv" download="subscribers.csv">
            Export subscribers as CSV
          </a>
        )}
      </p>
      <ErrorText message={error} />
      {loading && <Loading what="subscribers" />}
      {data && data.subscribers.length === 0 && <Empty>No subscribers yet. A newsletter form adds the people who sign up.</Empty>}
      {data && data.subscribers.length > 0 && (
        <table>
          <caption class="visually-hidden">Newsletter subscribers, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Signed up through</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {data.subscribers.map((s: any) => (
              <tr key={s.email}>
                <th scope="row">{s.email}</th>
                <td>{s.source === "restock" ? "Restock sign-up" : s.source.startsWith("form:") ? "A form" : s.source}</td>
                <td>{dateTime(s.createdMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
