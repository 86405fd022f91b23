// The site's header and footer, on the Design screen: each site-wide content area the
// template's region files declare (`<squarespace:block-field>`, what every page shows from
// `footer.blockFields[id]`) in the rich-text editor (its own chunk, loaded when the panel
// shows), and the footer's plain text when the template prints it or the site has one.
// `GET /api/site-header-footer` answers the header, the footer, `declared: [{id, label}]`
// and `footerText` (whether the template prints `footer.text`); "Save" sends the header and
// footer back with every other key as loaded (`PUT`), and the frame reloads to show them.
// Changing them needs the content area's write; a role that may only read it sees them
// read-only, a role without the content area does not see the panel.
import { useState } from "preact/hooks";
import { ApiError, api } from "../api/client";
import { allows, canWrite, useSession } from "../session";
import { Field } from "../ui/field";
import { announce, Empty, ErrorText, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { RichText } from "../ui/rich-text";

export const HEADER_FOOTER = "/api/site-header-footer";

type Obj = Record<string, unknown>;

export type HeaderFooter = {
  header: Obj;
  footer: Obj;
  declared?: { id: string; label: string }[];
  footerText?: boolean;
};

/** What the owner changed: the footer's text and block fields by id. */
export type Draft = { text?: string; fields: Record<string, string> };

const objectOf = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/** The body of a save: the header as loaded, the footer as loaded with `draft` over it. */
export function headerFooterBody(loaded: HeaderFooter, draft: Draft): { header: Obj; footer: Obj } {
  const footer: Obj = { ...loaded.footer };
  if (draft.text !== undefined) footer.text = draft.text;
  if (Object.keys(draft.fields).length > 0) {
    footer.blockFields = { ...objectOf(loaded.footer.blockFields), ...draft.fields };
  }
  return { header: { ...loaded.header }, footer };
}

export function HeaderFooterPanel({ onSaved }: { onSaved: () => void }) {
  const { me } = useSession();
  if (!allows(me, ["content"])) return null;
  return <Panel write={canWrite(me, "content")} onSaved={onSaved} />;
}

function Panel({ write, onSaved }: { write: boolean; onSaved: () => void }) {
  const { data, error, loading, setData } = useGet<HeaderFooter>(HEADER_FOOTER);
  const [draft, setDraft] = useState<Draft>({ fields: {} });
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  // Bumped on save, so the editors start again from what was stored.
  const [round, setRound] = useState(0);

  const heading = (
    <h2 id="header-footer-heading">Header and footer</h2>
  );
  if (loading) {
    return (
      <section aria-labelledby="header-footer-heading">
        {heading}
        <Loading what="the header and footer" />
      </section>
    );
  }
  if (error || !data) {
    return (
      <section aria-labelledby="header-footer-heading">
        {heading}
        <ErrorText message={error} />
      </section>
    );
  }
  const declared = data.declared ?? [];
  const stored = objectOf(data.footer.blockFields);
  const storedText = typeof data.footer.text === "string" ? data.footer.text : "";
  const hasText = data.footerText === true || typeof data.footer.text === "string";
  const dirty = draft.text !== undefined || Object.keys(draft.fields).length > 0;

  const save = async () => {
    if (!dirty) return;
    setSaving(true);
    try {
      const saved = await api<HeaderFooter>("PUT", HEADER_FOOTER, headerFooterBody(data, draft));
      setData({ ...saved, declared: data.declared });
      setDraft({ fields: {} });
      setFailure(null);
      setRound((r) => r + 1);
      onSaved();
      announce("Header and footer saved. Visitors see them now.");
    } catch (x) {
      const err = x as ApiError;
      const fields = Object.values(err.fields ?? {});
      setFailure(fields.length > 0 ? fields.join(" ") : err.message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <section aria-labelledby="header-footer-heading" class="header-footer">
      {heading}
      {!write && <p class="hint">Your role can read the header and footer here but not change them.</p>}
      {declared.length === 0 && !hasText ? (
        <Empty>This template has no site-wide content areas.</Empty>
      ) : (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          {declared.length === 0 && <p class="hint">This template has no site-wide content areas.</p>}
          {declared.map((f) => (
            <RichText
              key={`${f.id}-${round}`}
              label={f.label}
              hint="Shown on every page."
              value={draft.fields[f.id] ?? (typeof stored[f.id] === "string" ? (stored[f.id] as string) : "")}
              onValue={(html) => setDraft((d) => ({ ...d, fields: { ...d.fields, [f.id]: html } }))}
              images={write}
              forms={false}
              disabled={!write}
            />
          ))}
          {hasText && (
            <Field
              label="Footer text"
              value={draft.text ?? storedText}
              hint={data.footerText === false ? "This template does not show the footer text." : "Shown at the foot of every page."}
              onValue={(v) => setDraft((d) => ({ ...d, text: v }))}
              disabled={!write}
            />
          )}
          <ErrorText message={failure} />
          {write && (
            <button type="submit" disabled={!dirty || saving}>
              {saving ? "Saving…" : "Save header and footer"}
            </button>
          )}
        </form>
      )}
    </section>
  );
}
