// Settings → Store: the currency, checkout, payments, shipping, taxes, coupons, restock
// notices and the new-order email, from `GET /api/owner/store-settings` (one call; the
// country and region pickers read `GET /api/commerce/countries`, as the checkout does).
// The form edits the stored namespaces as they are, so keys it does not show are kept;
// Save sends one JSON Merge Patch of what changed. The server checks it by the import's
// rules and names each problem by its path (`shipping.options[1].price`), which is also
// the field's: the error shows beside the field, and a summary at the top links to each.
// A role that may only read the store sees the settings, and no way to change them.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "wouter";
import { api, ApiError, get } from "../api/client";
import type { Country, StoreSettings } from "../api/types";
import { canWrite, useSession } from "../session";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";

const PATH = "/api/owner/store-settings";
const NAMESPACES = ["checkout", "payments", "shipping", "taxes", "coupons", "restock", "notifications"] as const;

type Json = any;
type Doc = Record<string, Json>;

// ---- paths: `shipping.options[1].price` ↔ ["shipping", "options", 1, "price"] ----

export function parsePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

function getAt(v: Json, path: string): Json {
  return parsePath(path).reduce((o, k) => (o == null ? undefined : o[k]), v);
}

/** A copy of `v` with `path` set (removed for `undefined`). */
function setAt(v: Json, keys: (string | number)[], value: Json): Json {
  const [k, ...rest] = keys;
  const copy: Json = Array.isArray(v) ? [...v] : { ...(v ?? {}) };
  const next = rest.length ? setAt(copy[k], rest, value) : value;
  if (next === undefined && !Array.isArray(copy)) delete copy[k];
  else copy[k] = next;
  return copy;
}

/** The element id of the field at `path`. */
export const fieldId = (path: string) => `f-${path.replace(/[^A-Za-z0-9]+/g, "-").replace(/-+$/, "")}`;

const same = (a: Json, b: Json) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** What is sent: no empty values (null, undefined, "") in objects. */
function clean(v: Json): Json {
  if (Array.isArray(v)) return v.map(clean);
  if (v && typeof v === "object") {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined && x !== "") out[k] = clean(x);
    return out;
  }
  return v;
}

/** The JSON Merge Patch from `loaded` to `draft`: the namespaces' keys that changed (null
 *  for one emptied), and the currency. */
export function patchOf(loaded: StoreSettings, draft: Doc): Doc {
  const patch: Doc = {};
  if (draft.currency !== loaded.currency) patch.currency = draft.currency;
  for (const ns of NAMESPACES) {
    const a: Json = (loaded as Json)[ns] ?? {};
    const b: Json = clean(draft[ns] ?? {});
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    const p: Doc = {};
    for (const k of keys) if (!same(a[k], b[k])) p[k] = b[k] === undefined ? null : b[k];
    if (Object.keys(p).length) patch[ns] = p;
  }
  return patch;
}

const draftOf = (s: StoreSettings): Doc => JSON.parse(JSON.stringify(s));

// ---- the form's state, shared by its fields ----

interface Form {
  value: (path: string) => Json;
  set: (path: string, v: Json) => void;
  /** The problem at `path`, or under it in a list of plain values (`countries[2]`). */
  error: (path: string) => string | undefined;
  readOnly: boolean;
  /** Field labels by path, for the error summary. */
  labels: Map<string, string>;
}

function useForm(loaded: StoreSettings | null, readOnly: boolean) {
  const [draft, setDraft] = useState<Doc | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => {
    if (loaded) setDraft(draftOf(loaded));
  }, [loaded]);
  const labels = useRef(new Map<string, string>()).current;
  const form: Form = {
    value: (p) => getAt(draft, p),
    set: (p, v) => setDraft((d) => setAt(d, parsePath(p), v)),
    error: (p) => errors[p] ?? Object.entries(errors).find(([k]) => k.startsWith(`${p}[`) && /^\[\d+\]$/.test(k.slice(p.length)))?.[1],
    readOnly,
    labels,
  };
  return { draft, setDraft, errors, setErrors, form };
}

// ---- fields ----

interface FieldProps {
  f: Form;
  path: string;
  label: string;
  /** Where the field is, for the error summary ("Shipping option 2"). */
  where?: string;
  hint?: string;
}

function Shell({ f, path, label, where, hint, children }: FieldProps & { children: (a: Record<string, unknown>) => ComponentChildren }) {
  const id = fieldId(path);
  const error = f.error(path);
  f.labels.set(path, where ? `${where}: ${label}` : label);
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {children({ id, "aria-invalid": error ? "true" : undefined, "aria-describedby": describedBy || undefined, disabled: f.readOnly })}
      {error && (
        <span class="field-error" id={`${id}-error`}>
          <span aria-hidden="true">⚠ </span>
          {error}
        </span>
      )}
    </div>
  );
}

function Text(props: FieldProps & { type?: "text" | "email" | "date"; inputMode?: "decimal" | "numeric" | "email" | "text"; multiline?: boolean; placeholder?: string }) {
  const { f, path, type, inputMode, multiline, placeholder } = props;
  const v = f.value(path);
  const value = v === undefined || v === null ? "" : String(v);
  const onInput = (e: Event) => f.set(path, (e.currentTarget as HTMLInputElement).value);
  return (
    <Shell {...props}>
      {(a) =>
        multiline ? (
          <textarea {...a} rows={3} value={value} onInput={onInput} />
        ) : (
          <input {...a} {...({ type: type ?? "text", inputMode, placeholder } as Record<string, unknown>)} value={value} onInput={onInput} />
        )
      }
    </Shell>
  );
}

/** A whole number (kept as typed when it is not one: the server names the problem). */
function Whole(props: FieldProps) {
  const { f, path } = props;
  const v = f.value(path);
  return (
    <Shell {...props}>
      {(a) => (
        <input
          {...a}
          type="text"
          inputMode="numeric"
          value={v === undefined || v === null ? "" : String(v)}
          onInput={(e) => {
            const t = (e.currentTarget as HTMLInputElement).value.trim();
            f.set(path, /^-?\d+$/.test(t) ? Number(t) : t);
          }}
        />
      )}
    </Shell>
  );
}

function Choice(props: FieldProps & { options: [string, string][]; onPick?: (v: string) => void }) {
  const { f, path, options, onPick } = props;
  const value = String(f.value(path) ?? "");
  const all: [string, string][] = options.some(([v]) => v === value) ? options : [[value, value], ...options];
  return (
    <Shell {...props}>
      {(a) => (
        <select {...a} value={value} onChange={(e) => (onPick ?? ((v: string) => f.set(path, v)))((e.currentTarget as HTMLSelectElement).value)}>
          {all.map(([v, text]) => (
            <option key={v} value={v}>
              {text}
            </option>
          ))}
        </select>
      )}
    </Shell>
  );
}

function Check({ f, path, label, fallback, where }: { f: Form; path: string; label: string; fallback: boolean; where?: string }) {
  const id = fieldId(path);
  const error = f.error(path);
  f.labels.set(path, where ? `${where}: ${label}` : label);
  const v = f.value(path);
  return (
    <div class={error ? "field invalid" : "field"}>
      <label class="check" for={id}>
        <input
          id={id}
          type="checkbox"
          disabled={f.readOnly}
          checked={typeof v === "boolean" ? v : fallback}
          aria-invalid={error ? "true" : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(e) => f.set(path, (e.currentTarget as HTMLInputElement).checked)}
        />{" "}
        {label}
      </label>
      {error && (
        <span class="field-error" id={`${id}-error`}>
          <span aria-hidden="true">⚠ </span>
          {error}
        </span>
      )}
    </div>
  );
}

/** A problem with a whole row or list (`taxes.rules[1]`, `shipping.options[0].rates`). */
function GroupError({ f, path }: { f: Form; path: string }) {
  const e = f.error(path);
  if (!e) return null;
  return (
    <p class="field-error" id={fieldId(path)} tabIndex={-1}>
      <span aria-hidden="true">⚠ </span>
      {e}
    </p>
  );
}

function Section({ title, children }: { title: string; children: ComponentChildren }) {
  const id = `s-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A list's rows with Add and Remove (none offered to a role that only reads). */
function List({ f, path, empty, add, addLabel, children }: { f: Form; path: string; empty: string; add: () => Json; addLabel: string; children: (i: number) => ComponentChildren }) {
  const rows: Json[] = f.value(path) ?? [];
  return (
    <>
      <GroupError f={f} path={path} />
      {rows.length === 0 && <Empty>{empty}</Empty>}
      {rows.map((_, i) => children(i))}
      {!f.readOnly && (
        <button type="button" onClick={() => f.set(path, [...rows, add()])}>
          {addLabel}
        </button>
      )}
    </>
  );
}

function Remove({ f, path, index, label }: { f: Form; path: string; index: number; label: string }) {
  if (f.readOnly) return null;
  const rows: Json[] = f.value(path) ?? [];
  return (
    <button type="button" onClick={() => f.set(path, rows.filter((_, j) => j !== index))}>
      Remove {label}
    </button>
  );
}

// ---- the screen ----

const SHIPPING_KINDS: [string, string][] = [
  ["flat", "Flat price"],
  ["free-above", "Free above a subtotal"],
  ["weight", "By weight"],
];
const COUPON_KINDS: [string, string][] = [
  ["percent", "Percent off"],
  ["fixed", "Amount off"],
  ["free-shipping", "Free shipping"],
];

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export default function StoreSettingsScreen() {
  const { me } = useSession();
  const readOnly = !canWrite(me, "store");
  const { data, error: loadError, setData } = useGet<StoreSettings>(PATH);
  const [countries, setCountries] = useState<Country[]>([]);
  const { draft, setDraft, errors, setErrors, form: f } = useForm(data, readOnly);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const summary = useRef<HTMLDivElement>(null);

  useEffect(() => {
    get<{ countries: Country[] }>("/api/commerce/countries").then(
      (r) => setCountries(r.countries),
      () => setCountries([]),
    );
  }, []);

  const header = (
    <>
      <p>
        <Link href="/">Back to settings</Link>
      </p>
      <Heading title="Store settings">Store settings</Heading>
    </>
  );
  if (loadError)
    return (
      <>
        {header}
        <ErrorText message={loadError} />
      </>
    );
  if (!data || !draft)
    return (
      <>
        {header}
        <Loading what="the store settings" />
      </>
    );

  const cur = String(draft.currency);
  const money = (label: string) => `${label} (${cur})`;
  const countryOptions: [string, string][] = countries.map((c) => [c.code, `${c.name} (${c.code})`]);
  const regionsOf = (code: string) => countries.find((c) => c.code === String(code ?? "").toUpperCase())?.regions ?? [];
  const locked = data.products + data.orders > 0;

  const save = async (e: Event) => {
    e.preventDefault();
    const patch = patchOf(data, draft);
    if (Object.keys(patch).length === 0) {
      announce("Nothing to save.");
      return;
    }
    setBusy(true);
    try {
      const saved = await api<StoreSettings>("PATCH", PATH, patch);
      setErrors({});
      setMessage(null);
      setData(saved);
      setDraft(draftOf(saved));
      announce("Store settings saved.");
    } catch (err) {
      const a = err as ApiError;
      setErrors(a.fields);
      setMessage(a.message);
      requestAnimationFrame(() => summary.current?.focus());
    } finally {
      setBusy(false);
    }
  };

  /** Focuses the field named by `path`, or the nearest group that has an id. */
  const jump = (path: string) => (e: Event) => {
    e.preventDefault();
    let p = path;
    for (;;) {
      const el = document.getElementById(fieldId(p));
      if (el) {
        el.focus();
        el.scrollIntoView?.({ block: "center" });
        return;
      }
      const shorter = p.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
      if (shorter === p) return;
      p = shorter;
    }
  };
  const problems = Object.entries(errors);

  return (
    <>
      {header}
      {readOnly && <p>Your role can read the store settings but not change them.</p>}
      {(problems.length > 0 || message) && (
        <div class="error-summary" role="alert" tabIndex={-1} ref={summary}>
          <p class="error">
            <span aria-hidden="true">⚠ </span>
            {message}
          </p>
          {problems.length > 0 && (
            <ul>
              {problems.map(([path, text]) => (
                <li key={path}>
                  <a href={`#${fieldId(path)}`} onClick={jump(path)}>
                    {f.labels.get(path) ?? path}: {text}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {data.errors && Object.keys(data.errors).length > 0 && (
        <ErrorText message={`Some stored settings do not pass the store's rules and are ignored until fixed: ${Object.entries(data.errors).map(([k, v]) => `${k}: ${v}`).join("; ")}`} />
      )}
      <form onSubmit={save} noValidate>
        <Section title="Currency">
          <Choice
            f={f}
            path="currency"
            label="Currency"
            options={data.currencies.map((c) => [c, c])}
            hint={
              locked
                ? `The store has ${[data.products ? plural(data.products, "product") : "", data.orders ? plural(data.orders, "order") : ""].filter(Boolean).join(" and ")} in ${data.currency}: the currency can change only while it has no products or orders.`
                : "Every price is in this currency."
            }
          />
        </Section>

        <Section title="Checkout">
          <Text f={f} path="checkout.minimumSubtotal" label={money("Minimum order")} inputMode="decimal" hint="The smallest subtotal that may check out; empty for none." />
          <Text f={f} path="checkout.orderNotesLabel" label="Order notes label" hint="When set, checkout asks for order notes under this label (at most 200 characters)." />
          <Check f={f} path="checkout.requireShippingPhone" label="A shipping address needs a phone number" fallback={false} />
        </Section>

        <Section title="Payments">
          <Check f={f} path="payments.testMode" label="Test mode (cards go to the test provider; no money moves)" fallback={true} />
          <div class="field">
            <label class="check" for="f-pay-later">
              <input
                id="f-pay-later"
                type="checkbox"
                disabled={readOnly}
                checked={draft.payments?.manual != null}
                onChange={(e) => f.set("payments.manual", (e.currentTarget as HTMLInputElement).checked ? { label: "Bank transfer", instructions: "" } : undefined)}
              />{" "}
              Offer a pay-later method (orders wait for payment)
            </label>
          </div>
          {draft.payments?.manual != null && (
            <>
              <GroupError f={f} path="payments.manual" />
              <Text f={f} path="payments.manual.label" label="Pay-later method name" where="Pay-later method" hint="Like Bank transfer or Pay on collection." />
              <Text f={f} path="payments.manual.instructions" label="Instructions to the buyer" where="Pay-later method" multiline hint="Shown on the order-received page and in the order email." />
            </>
          )}
        </Section>

        <Section title="Shipping">
          <List
            f={f}
            path="shipping.options"
            empty="No shipping options yet."
            addLabel="Add shipping option"
            add={() => ({ id: `option-${(draft.shipping?.options?.length ?? 0) + 1}`, name: "", kind: "flat", price: "" })}
          >
            {(i) => {
              const at = `shipping.options[${i}]`;
              const where = `Shipping option ${i + 1}`;
              const kind = f.value(`${at}.kind`);
              const countriesText = (f.value(`${at}.countries`) ?? []).join(", ");
              return (
                <fieldset key={i}>
                  <legend>{where}</legend>
                  <GroupError f={f} path={at} />
                  <div class="filters">
                    <Text f={f} path={`${at}.name`} label="Name" where={where} />
                    <Text f={f} path={`${at}.id`} label="ID" where={where} hint="What checkout sends; keep it once orders use it." />
                    <Choice f={f} path={`${at}.kind`} label="Price" where={where} options={SHIPPING_KINDS} />
                    {(kind === "flat" || kind === "free-above") && <Text f={f} path={`${at}.price`} label={money("Shipping price")} where={where} inputMode="decimal" />}
                    {kind === "free-above" && <Text f={f} path={`${at}.freeAbove`} label={money("Free from a subtotal of")} where={where} inputMode="decimal" />}
                  </div>
                  <Shell f={f} path={`${at}.countries`} label="Countries" where={where} hint="Two-letter codes separated by commas (NL, BE); empty ships everywhere.">
                    {(a) => (
                      <input
                        {...a}
                        type="text"
                        value={countriesText}
                        onInput={(e) => {
                          const list = (e.currentTarget as HTMLInputElement).value
                            .split(",")
                            .map((s) => s.trim())
                            .filter(Boolean);
                          f.set(`${at}.countries`, list.length ? list : undefined);
                        }}
                      />
                    )}
                  </Shell>
                  {kind === "weight" && (
                    <fieldset>
                      <legend>Weight brackets of {where.toLowerCase()}</legend>
                      <List f={f} path={`${at}.rates`} empty="No weight brackets yet." addLabel="Add weight bracket" add={() => ({ upToGrams: "", price: "" })}>
                        {(j) => {
                          const b = `${at}.rates[${j}]`;
                          const bw = `${where}, bracket ${j + 1}`;
                          return (
                            <div class="filters" key={j}>
                              <Whole f={f} path={`${b}.upToGrams`} label={`Bracket ${j + 1}: up to grams`} where={where} />
                              <Text f={f} path={`${b}.price`} label={money(`Bracket ${j + 1}: price`)} where={where} inputMode="decimal" />
                              <Remove f={f} path={`${at}.rates`} index={j} label={`${bw.toLowerCase()}`} />
                            </div>
                          );
                        }}
                      </List>
                    </fieldset>
                  )}
                  <Remove f={f} path="shipping.options" index={i} label={where.toLowerCase()} />
                </fieldset>
              );
            }}
          </List>
        </Section>

        <Section title="Taxes">
          <Check f={f} path="taxes.pricesIncludeTax" label="Prices include tax" fallback={false} />
          <List f={f} path="taxes.rules" empty="No tax rules yet." addLabel="Add tax rule" add={() => ({ name: "", country: "", rate: "" })}>
            {(i) => {
              const at = `taxes.rules[${i}]`;
              const where = `Tax rule ${i + 1}`;
              const country = f.value(`${at}.country`) ?? "";
              const regions = regionsOf(country);
              const region = f.value(`${at}.region`);
              return (
                <fieldset key={i}>
                  <legend>{where}</legend>
                  <GroupError f={f} path={at} />
                  <div class="filters">
                    <Text f={f} path={`${at}.name`} label="Name" where={where} placeholder="Tax" />
                    <Choice
                      f={f}
                      path={`${at}.country`}
                      label="Country"
                      where={where}
                      options={[["", "Choose a country"], ["*", "Any country"], ...countryOptions]}
                      onPick={(v) => f.set(at, { ...f.value(at), country: v, region: undefined })}
                    />
                    {regions.length > 0 ? (
                      <Choice f={f} path={`${at}.region`} label="Region" where={where} options={[["", "The whole country"], ...regions.map((r): [string, string] => [r.code, `${r.name} (${r.code})`])]} />
                    ) : (
                      region && <Text f={f} path={`${at}.region`} label="Region" where={where} />
                    )}
                    <Text f={f} path={`${at}.rate`} label="Rate (%)" where={where} inputMode="decimal" />
                  </div>
                  <Check f={f} path={`${at}.appliesToShipping`} label="Shipping is taxed too" where={where} fallback={false} />
                  <Remove f={f} path="taxes.rules" index={i} label={where.toLowerCase()} />
                </fieldset>
              );
            }}
          </List>
        </Section>

        <Section title="Coupons">
          <List f={f} path="coupons.codes" empty="No coupons yet." addLabel="Add coupon" add={() => ({ code: "", kind: "percent", percent: "" })}>
            {(i) => {
              const at = `coupons.codes[${i}]`;
              const where = `Coupon ${i + 1}`;
              const kind = f.value(`${at}.kind`);
              const date = (v: Json) => (!v || /^\d{4}-\d{2}-\d{2}$/.test(String(v)) ? "date" : "text");
              return (
                <fieldset key={i}>
                  <legend>{where}</legend>
                  <GroupError f={f} path={at} />
                  <div class="filters">
                    <Text f={f} path={`${at}.code`} label="Code" where={where} hint="3-32 letters, digits, - or _." />
                    <Choice f={f} path={`${at}.kind`} label="Discount" where={where} options={COUPON_KINDS} />
                    {kind === "percent" && <Text f={f} path={`${at}.percent`} label="Percent off" where={where} inputMode="decimal" />}
                    {kind === "fixed" && <Text f={f} path={`${at}.amount`} label={money("Amount off")} where={where} inputMode="decimal" />}
                    <Text f={f} path={`${at}.minimumSubtotal`} label={money("Minimum subtotal")} where={where} inputMode="decimal" />
                    <Text f={f} path={`${at}.startsOn`} label="Starts on" where={where} type={date(f.value(`${at}.startsOn`))} hint="YYYY-MM-DD, from the start of the day (UTC)." />
                    <Text f={f} path={`${at}.expiresOn`} label="Expires on" where={where} type={date(f.value(`${at}.expiresOn`))} hint="YYYY-MM-DD, through the end of the day (UTC)." />
                  </div>
                  <Remove f={f} path="coupons.codes" index={i} label={where.toLowerCase()} />
                </fieldset>
              );
            }}
          </List>
        </Section>

        <Section title="Restock notices">
          <Check f={f} path="restock.autoNotify" label="Send restock notices by themselves when a sold-out variant is back in stock" fallback={true} />
          <Whole f={f} path="restock.lowStockAt" label="Low stock at" hint="A variant with this many or fewer in stock is low (0 to 1,000,000; 5 when empty)." />
        </Section>

        <Section title="New-order email">
          <Check f={f} path="notifications.orderEmail" label="Email me each new order" fallback={true} />
          <Text
            f={f}
            path="notifications.orderEmailTo"
            label="Send new-order emails to"
            type="email"
            inputMode="email"
            hint={data.contactEmail ? `Empty: the site's contact address, ${data.contactEmail}.` : "Empty: the site's contact address (the site has none, so no email is sent)."}
          />
        </Section>

        {!readOnly && (
          <div class="toolbar">
            <button type="submit" class="primary" disabled={busy}>
              Save store settings
            </button>
          </div>
        )}
      </form>
    </>
  );
}
