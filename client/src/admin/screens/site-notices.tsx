// The announcement bar and the cookie banner, on the Design screen: on or off, the bar's
// text and link, the banner's text and button label. `GET`/`PATCH /api/owner/site-notices`
// (one call to read; a save sends what changed, by notice); errors beside their fields
// (`announcementBar.text`). A saved change reloads the frame, which shows it.
import { useState } from "preact/hooks";
import { ApiError, api } from "../api/client";
import type { SiteNotices as Notices } from "../api/types";
import { canWrite, useSession } from "../session";
import { Check, Field, TextArea } from "../ui/field";
import { announce, ErrorText, Loading } from "../ui/page";
import { useGet } from "../ui/query";

const PATH = "/api/owner/site-notices";

type Form = {
  barOn: boolean;
  barText: string;
  barUrl: string;
  bannerOn: boolean;
  bannerText: string;
  bannerLabel: string;
};

function formOf(d: Notices): Form {
  return {
    barOn: d.announcementBar.enabled,
    barText: d.announcementBar.text,
    barUrl: d.announcementBar.url,
    bannerOn: d.cookieBanner.enabled,
    bannerText: d.cookieBanner.text,
    bannerLabel: d.cookieBanner.buttonLabel,
  };
}

/** The body of a save: each notice with the fields that differ from `saved`. */
export function noticesPatch(saved: Notices, f: Form): Record<string, Record<string, unknown>> {
  const was = formOf(saved);
  const out: Record<string, Record<string, unknown>> = {};
  const put = (notice: string, key: string, changed: boolean, value: unknown) => {
    if (changed) out[notice] = { ...(out[notice] ?? {}), [key]: value };
  };
  put("announcementBar", "enabled", f.barOn !== was.barOn, f.barOn);
  put("announcementBar", "text", f.barText !== was.barText, f.barText);
  put("announcementBar", "url", f.barUrl !== was.barUrl, f.barUrl);
  put("cookieBanner", "enabled", f.bannerOn !== was.bannerOn, f.bannerOn);
  put("cookieBanner", "text", f.bannerText !== was.bannerText, f.bannerText);
  put("cookieBanner", "buttonLabel", f.bannerLabel !== was.bannerLabel, f.bannerLabel);
  return out;
}

export function SiteNotices({ onSaved }: { onSaved: () => void }) {
  const { me } = useSession();
  const write = canWrite(me, "design");
  const { data, error, loading, setData } = useGet<Notices>(PATH);
  const [form, setForm] = useState<Form | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  if (loading) return <Loading what="the announcement bar and cookie banner" />;
  if (error || !data) return <ErrorText message={error} />;
  const f = form ?? formOf(data);
  const set = <K extends keyof Form>(k: K) => (v: Form[K]) => setForm({ ...f, [k]: v });
  const body = noticesPatch(data, f);
  const dirty = Object.keys(body).length > 0;

  return (
    <section aria-labelledby="notices-heading">
      <h2 id="notices-heading">Announcement bar and cookie banner</h2>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (!dirty) return;
          setSaving(true);
          try {
            const d = await api<Notices>("PATCH", PATH, body);
            setData(d);
            setForm(null);
            setErrors({});
            setFailure(null);
            onSaved();
            announce("Announcement bar and cookie banner saved.");
          } catch (x) {
            const err = x as ApiError;
            setErrors(err.fields);
            setFailure(Object.keys(err.fields).length ? null : err.message);
          } finally {
            setSaving(false);
          }
        }}
      >
        <fieldset disabled={!write}>
          <legend>Announcement bar</legend>
          <p class="hint">A line of text across the top of every page; visitors can close it until it changes.</p>
          <Check label="Show the announcement bar" checked={f.barOn} onChange={set("barOn")} error={errors["announcementBar.enabled"]} />
          <Field label="Announcement" value={f.barText} onValue={set("barText")} error={errors["announcementBar.text"]} hint="At most 500 characters." />
          <Field
            label="Link (optional)"
            value={f.barUrl}
            onValue={set("barUrl")}
            error={errors["announcementBar.url"]}
            hint="A page of the site (/shop) or an address (www.example.com)."
          />
        </fieldset>
        <fieldset disabled={!write}>
          <legend>Cookie banner</legend>
          <p class="hint">Shown at the bottom of every page until the visitor accepts it.</p>
          <Check label="Show the cookie banner" checked={f.bannerOn} onChange={set("bannerOn")} error={errors["cookieBanner.enabled"]} />
          <TextArea label="Banner text" value={f.bannerText} onValue={set("bannerText")} error={errors["cookieBanner.text"]} hint={`Empty: “${data.defaultCookieText}”`} />
          <Field
            label="Button label"
            value={f.bannerLabel}
            onValue={set("bannerLabel")}
            error={errors["cookieBanner.buttonLabel"]}
            hint={`Empty: “${data.defaultCookieButtonLabel}”`}
          />
        </fieldset>
        <ErrorText message={failure} />
        {write && (
          <button type="submit" disabled={!dirty || saving}>
            {saving ? "Saving…" : "Save announcement bar and cookie banner"}
          </button>
        )}
      </form>
    </section>
  );
}
