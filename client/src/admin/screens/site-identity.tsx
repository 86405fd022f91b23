// Site identity, on the Design screen: the site's title and tagline, its logo and icon
// (images uploaded with `POST /api/owner/assets`), and the business information templates
// show (contact email and phone, the address, the opening hours of each day), and the
// social accounts. `GET`/`PATCH /api/owner/site-identity`;
// errors beside their fields.
import { useState } from "preact/hooks";
import { ApiError, api, upload } from "../api/client";
import type { Asset, SiteIdentity as Identity } from "../api/types";
import { canWrite, useSession } from "../session";
import { Field, Select } from "../ui/field";
import { announce, ErrorText, Loading } from "../ui/page";
import { useGet } from "../ui/query";

const PATH = "/api/owner/site-identity";

type Account = Identity["socialAccounts"][number];

export const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
type Day = (typeof DAYS)[number];
/** A day's hours as the time fields hold them ("09:00"). */
type Hours = { from: string; to: string };
type Week = Record<Day, Hours[]>;

const clock = (m: number) => `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;

/** Minutes from midnight of a time field's "HH:MM" (a closing time of 00:00 is midnight,
 *  1440); -1 when it is not a time, for the server to name. */
export function minutes(s: string, closing = false): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(s.trim());
  if (!m) return -1;
  const v = Number(m[1]) * 60 + Number(m[2]);
  return closing && v === 0 ? 1440 : v;
}

function weekOf(stored: unknown): Week {
  const w = (stored ?? {}) as Record<string, { ranges?: { from: number; to: number }[] }>;
  return Object.fromEntries(
    DAYS.map((d) => [d, (w[d]?.ranges ?? []).map((r) => ({ from: clock(r.from), to: r.to === 1440 ? "00:00" : clock(r.to) }))]),
  ) as Week;
}

export type Form = {
  /** Left out: unchanged. */
  businessHours?: Week;
  socialAccounts: Account[];
  siteTitle: string;
  siteTagLine: string;
  contactEmail: string;
  contactPhoneNumber: string;
  addressTitle: string;
  addressLine1: string;
  addressLine2: string;
  addressCountry: string;
};

function formOf(d: Identity): Form {
  return {
    siteTitle: d.siteTitle,
    siteTagLine: d.siteTagLine,
    contactEmail: d.contactEmail,
    contactPhoneNumber: d.contactPhoneNumber,
    socialAccounts: d.socialAccounts,
    businessHours: weekOf(d.businessHours),
    ...d.location,
  };
}

/** The body of a save: the fields that differ from `saved`. */
export function identityPatch(saved: Identity, form: Form): Record<string, unknown> {
  const was = formOf(saved);
  const out: Record<string, unknown> = {};
  const location: Record<string, string> = {};
  for (const k of Object.keys(form) as (keyof Form)[]) {
    if (k === "businessHours") {
      const week = form.businessHours;
      if (week && JSON.stringify(week) !== JSON.stringify(was.businessHours))
        out.businessHours = Object.fromEntries(
          DAYS.map((d) => [d, { ranges: week[d].map((r) => ({ from: minutes(r.from), to: minutes(r.to, true) })) }]),
        );
      continue;
    }
    if (k === "socialAccounts") {
      if (JSON.stringify(form.socialAccounts) !== JSON.stringify(was.socialAccounts)) out.socialAccounts = form.socialAccounts;
      continue;
    }
    if (form[k] === was[k]) continue;
    if (k.startsWith("address")) location[k] = form[k];
    else out[k] = form[k];
  }
  if (Object.keys(location).length > 0) out.location = location;
  return out;
}

export function SiteIdentity({ onSaved }: { onSaved: () => void }) {
  const { me } = useSession();
  const write = canWrite(me, "design");
  // The logo and icon are uploaded files: their upload needs the content area too.
  const uploads = write && canWrite(me, "content");
  const { data, error, loading, setData } = useGet<Identity>(PATH);
  const [form, setForm] = useState<Form | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  if (loading) return <Loading what="the site's identity" />;
  if (error || !data) return <ErrorText message={error} />;
  const f = form ?? formOf(data);
  const set = (k: keyof Form) => (v: string) => setForm({ ...f, [k]: v });
  const err = (k: string) => errors[k];

  const send = (body: Record<string, unknown>, said: string) => {
    setSaving(true);
    return api<Identity>("PATCH", PATH, body).then(
      (d) => {
        setSaving(false);
        setData(d);
        setForm(null);
        setErrors({});
        setFailure(null);
        onSaved();
        announce(said);
      },
      (e: ApiError) => {
        setSaving(false);
        setErrors(e.fields);
        setFailure(e.message);
      },
    );
  };
  const pick = (field: "logoAssetId" | "faviconAssetId", what: string) => async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = "";
    if (!file) return;
    try {
      const asset = await upload<Asset>(`/api/owner/assets?fileName=${encodeURIComponent(file.name)}`, file);
      await send({ [field]: asset.id }, `${what} saved.`);
    } catch (x) {
      const e = x as ApiError;
      setErrors({ [field]: e.message });
    }
  };

  return (
    <section aria-labelledby="identity-heading">
      <h2 id="identity-heading">Site identity</h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const body = identityPatch(data, f);
          if (Object.keys(body).length === 0) return;
          void send(body, "Site identity saved.");
        }}
      >
        <fieldset disabled={!write}>
          <legend>Title and tagline</legend>
          <Field label="Site title" required value={f.siteTitle} onValue={set("siteTitle")} error={err("siteTitle")} />
          <Field label="Tagline" value={f.siteTagLine} onValue={set("siteTagLine")} error={err("siteTagLine")} />
        </fieldset>
        <fieldset disabled={!write}>
          <legend>Business information</legend>
          <Field
            label="Contact email"
            type="email"
            value={f.contactEmail}
            onValue={set("contactEmail")}
            error={err("contactEmail")}
          />
          <Field
            label="Phone number"
            type="tel"
            value={f.contactPhoneNumber}
            onValue={set("contactPhoneNumber")}
            error={err("contactPhoneNumber")}
          />
          <Field label="Business name" value={f.addressTitle} onValue={set("addressTitle")} error={err("location.addressTitle")} />
          <Field label="Address line 1" value={f.addressLine1} onValue={set("addressLine1")} error={err("location.addressLine1")} />
          <Field label="Address line 2" value={f.addressLine2} onValue={set("addressLine2")} error={err("location.addressLine2")} />
          <Field label="Country" value={f.addressCountry} onValue={set("addressCountry")} error={err("location.addressCountry")} />
        </fieldset>
        <fieldset disabled={!write}>
          <legend>Social accounts</legend>
          {f.socialAccounts.length === 0 && <p class="empty">No social accounts yet.</p>}
          <ol class="accounts">
            {f.socialAccounts.map((a, i) => {
              const put = (change: Partial<Account>) =>
                setForm({ ...f, socialAccounts: f.socialAccounts.map((x, j) => (j === i ? { ...x, ...change } : x)) });
              return (
                <li key={i}>
                  <Select
                    label={`Account ${i + 1}: network`}
                    value={a.serviceName}
                    onValue={(v) => put({ serviceName: v })}
                    options={data.services.map((s) => [s, s])}
                  />
                  {err(`socialAccounts[${i}].serviceName`) && <span class="field-error">{err(`socialAccounts[${i}].serviceName`)}</span>}
                  <Field
                    label={`Account ${i + 1}: profile address`}
                    type="url"
                    value={a.profileUrl}
                    onValue={(v) => put({ profileUrl: v })}
                    error={err(`socialAccounts[${i}].profileUrl`)}
                  />
                  {write && (
                    <button type="button" onClick={() => setForm({ ...f, socialAccounts: f.socialAccounts.filter((_, j) => j !== i) })}>
                      Remove account {i + 1}
                    </button>
                  )}
                </li>
              );
            })}
          </ol>
          {write && f.socialAccounts.length < 30 && (
            <button
              type="button"
              onClick={() => setForm({ ...f, socialAccounts: [...f.socialAccounts, { serviceName: data.services[0] ?? "", profileUrl: "" }] })}
            >
              Add a social account
            </button>
          )}
        </fieldset>
        <fieldset disabled={!write}>
          <legend>Opening hours</legend>
          <p class="hint">Templates that show business hours show these. A day without hours is closed.</p>
          {DAYS.map((day) => {
            const name = day.charAt(0).toUpperCase() + day.slice(1);
            const ranges = (f.businessHours ?? weekOf(data.businessHours))[day];
            const put = (next: Hours[]) =>
              setForm({ ...f, businessHours: { ...(f.businessHours ?? weekOf(data.businessHours)), [day]: next } });
            return (
              <div class="day-hours" key={day} role="group" aria-label={name}>
                <span class="label">{name}</span>
                {ranges.length === 0 && <span class="hint">Closed</span>}
                {err(`businessHours.${day}`) && <span class="field-error">{err(`businessHours.${day}`)}</span>}
                {ranges.map((r, i) => (
                  <div class="hours-range" key={i}>
                    <Field
                      label={`${name} ${i + 1}: opens`}
                      type="time"
                      value={r.from}
                      onValue={(v) => put(ranges.map((x, j) => (j === i ? { ...x, from: v } : x)))}
                      error={err(`businessHours.${day}[${i}].from`)}
                    />
                    <Field
                      label={`${name} ${i + 1}: closes`}
                      type="time"
                      value={r.to}
                      onValue={(v) => put(ranges.map((x, j) => (j === i ? { ...x, to: v } : x)))}
                      error={err(`businessHours.${day}[${i}].to`)}
                    />
                    {write && (
                      <button type="button" onClick={() => put(ranges.filter((_, j) => j !== i))}>
                        Remove {name} hours {i + 1}
                      </button>
                    )}
                  </div>
                ))}
                {write && ranges.length < 4 && (
                  <button type="button" onClick={() => put([...ranges, { from: "09:00", to: "17:00" }])}>
                    Add hours on {name}
                  </button>
                )}
              </div>
            );
          })}
        </fieldset>
        <ErrorText message={failure} />
        {write && (
          <div class="actions">
            <button type="submit" disabled={saving || form === null}>
              {saving ? "Saving…" : "Save site identity"}
            </button>
          </div>
        )}
      </form>
      <fieldset>
        <legend>Logo and icon</legend>
        <Image
          what="Logo"
          image={data.logo}
          error={err("logoAssetId")}
          onPick={uploads ? pick("logoAssetId", "Logo") : null}
          onRemove={write ? () => void send({ logoAssetId: null }, "Logo removed.") : null}
        />
        <Image
          what="Browser icon"
          image={data.favicon}
          error={err("faviconAssetId")}
          onPick={uploads ? pick("faviconAssetId", "Browser icon") : null}
          onRemove={write ? () => void send({ faviconAssetId: null }, "Browser icon removed; the template's is used.") : null}
        />
      </fieldset>
    </section>
  );
}

function Image({
  what,
  image,
  error,
  onPick,
  onRemove,
}: {
  what: string;
  image: Identity["logo"];
  error?: string;
  onPick: ((e: Event) => void) | null;
  onRemove: (() => void) | null;
}) {
  const id = `image-${what.replace(/\W+/g, "-").toLowerCase()}`;
  return (
    <div class={error ? "field invalid" : "field"}>
      <span class="label" id={`${id}-label`}>
        {what}
      </span>
      {image ? <img src={image.url} alt={`The site's ${what.toLowerCase()}`} class="identity-image" /> : <span class="hint">None.</span>}
      {onPick && (
        <>
          <label for={id}>{image ? `Replace the ${what.toLowerCase()}` : `Upload a ${what.toLowerCase()}`}</label>
          <input
            id={id}
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            onChange={onPick}
            aria-invalid={error ? "true" : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
          />
        </>
      )}
      {image && onRemove && (
        <button type="button" onClick={onRemove}>
          Remove the {what.toLowerCase()}
        </button>
      )}
      {error && (
        <span class="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}
