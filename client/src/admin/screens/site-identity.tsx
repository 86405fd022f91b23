// Site identity, on the Design screen: the site's title and tagline, its logo and icon
// (images uploaded with `POST /api/owner/assets`), and the business information templates
// show (contact email and phone, the address), and the social accounts. `GET`/`PATCH /api/owner/site-identity`;
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

export type Form = {
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
    ...d.location,
  };
}

/** The body of a save: the fields that differ from `saved`. */
export function identityPatch(saved: Identity, form: Form): Record<string, unknown> {
  const was = formOf(saved);
  const out: Record<string, unknown> = {};
  const location: Record<string, string> = {};
  for (const k of Object.keys(form) as (keyof Form)[]) {
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
