// Design: the style panel generated from the template's tweaks (`GET /api/owner/design`),
// beside the live site in a frame. A change is previewed in the frame before it is saved:
// shortly after the last keystroke the stylesheet is compiled with the unsaved values
// (`POST /api/owner/design/preview`) and swapped in for the site's, with the body classes
// dropdowns and checkboxes give. "Save" stores the values for every visitor (`PATCH`),
// "Discard changes" drops the unsaved ones, "Reset to defaults" puts every value back to
// the template's (previewed, then saved like any change). Site identity (title, tagline,
// logo) is the second part of the screen, then the announcement bar and cookie banner, then
// the header and footer (the template's site-wide content areas, ./header-footer.tsx).
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks";
import { ApiError, api } from "../api/client";
import type { Design, DesignPreview, Tweak, TweakValue } from "../api/types";
import { canWrite, useSession } from "../session";
import { Field, Select } from "../ui/field";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { previewStyles, SiteFrame } from "../ui/site-frame";
import { HeaderFooterPanel } from "./header-footer";
import { SiteIdentity } from "./site-identity";
import { SiteNotices } from "./site-notices";

const PATH = "/api/owner/design";
/** How long after the last change the preview is asked for. */
export const PREVIEW_DELAY_MS = 80;

/** Unsaved values by title (null: back to the default). */
export type Draft = Record<string, TweakValue>;

/** What a control shows for `t` with `draft`. */
export function shownValue(t: Tweak, draft: Draft): TweakValue {
  if (!(t.title in draft)) return t.value;
  const v = draft[t.title];
  return v === null ? t.default : v;
}

/** The body of a preview or a save: the unsaved values. */
export function patchOf(draft: Draft): { values: Draft } {
  return { values: { ...draft } };
}

/** `#abc` → `#aabbcc`; the colour input's value for a colour written as hex, else null. */
export function hex6(colour: string): string | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour.trim());
  if (!m) return null;
  const h = m[1].toLowerCase();
  return h.length === 3 ? `#${h[0]}${h[0]}${h[1]}${h[1]}${h[2]}${h[2]}` : `#${h}`;
}

const text = (v: TweakValue): string => (typeof v === "string" ? v : v === null ? "" : typeof v === "boolean" ? String(v) : "");

/** Font families offered (any other may be typed). */
const FONTS = [
  "Georgia, serif",
  "\"Times New Roman\", serif",
  "Helvetica, Arial, sans-serif",
  "system-ui, sans-serif",
  "\"Trebuchet MS\", sans-serif",
  "Verdana, sans-serif",
  "\"Courier New\", monospace",
];
const FONT_LABELS: Record<string, string> = {
  "font-family": "Font family",
  "font-size": "Size",
  "font-weight": "Weight",
  "font-style": "Style",
  "line-height": "Line height",
  "letter-spacing": "Letter spacing",
  "text-transform": "Text transform",
};

export default function DesignScreen() {
  const { me } = useSession();
  const write = canWrite(me, "design");
  const { data, error, loading, setData } = useGet<Design>(PATH);
  const [draft, setDraft] = useState<Draft>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [path, setPath] = useState("/");
  const [reload, setReload] = useState(0);
  const [status, setStatus] = useState("");
  // The preview shown, to apply again to each page the frame loads.
  const shown = useRef<DesignPreview | null>(null);
  const frameDoc = useRef<Document | null>(null);
  // The classes the last preview changed in the frame's page, to undo before the next.
  const applied = useRef<{ add: string[]; remove: string[] }>({ add: [], remove: [] });
  const asked = useRef(0);

  const apply = useCallback((doc: Document | null, p: DesignPreview | null) => {
    if (!doc) return;
    const undo = applied.current;
    doc.body?.classList.remove(...undo.add);
    doc.body?.classList.add(...undo.remove);
    applied.current = { add: [], remove: [] };
    if (!p) return;
    previewStyles(doc, p.css ?? null, p.addClasses, p.removeClasses);
    applied.current = { add: p.addClasses, remove: p.removeClasses };
  }, []);

  const dirty = Object.keys(draft).length > 0;
  useEffect(() => {
    const n = ++asked.current;
    if (!dirty) {
      // Nothing unsaved: the frame shows the site as it is.
      if (shown.current) {
        shown.current = null;
        setReload((r) => r + 1);
      }
      setErrors({});
      return;
    }
    setStatus("Updating the preview…");
    const timer = setTimeout(() => {
      api<DesignPreview>("POST", `${PATH}/preview`, patchOf(draft)).then(
        (p) => {
          if (n !== asked.current) return;
          shown.current = p;
          setErrors({});
          setFailure(null);
          apply(frameDoc.current, p);
          setStatus("Previewing unsaved changes.");
        },
        (e: ApiError) => {
          if (n !== asked.current) return;
          setErrors(e.fields);
          setFailure(Object.keys(e.fields).length > 0 ? null : e.message);
          setStatus("");
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft, dirty, apply]);

  const onLoad = useCallback(
    (doc: Document) => {
      frameDoc.current = doc;
      applied.current = { add: [], remove: [] };
      if (shown.current) apply(doc, shown.current);
    },
    [apply],
  );

  const change = (title: string, v: TweakValue) => setDraft((d) => ({ ...d, [title]: v }));

  const save = () => {
    if (!data || !dirty) return;
    setSaving(true);
    api<Design>("PATCH", PATH, patchOf(draft)).then(
      (d) => {
        setSaving(false);
        setData(d);
        shown.current = null;
        setDraft({});
        setErrors({});
        setFailure(null);
        setStatus("");
        setReload((r) => r + 1);
        announce("Design saved. Visitors see it now.");
      },
      (e: ApiError) => {
        setSaving(false);
        setErrors(e.fields);
        setFailure(e.message);
      },
    );
  };
  const discard = () => {
    setDraft({});
    setFailure(null);
    setStatus("");
    announce("Unsaved changes discarded.");
  };
  const reset = () => {
    if (!data) return;
    setDraft(Object.fromEntries(data.tweaks.map((t) => [t.title, null])));
    announce("Every style setting is back to the template's default in the preview. Save to keep it.");
  };

  return (
    <div class="design">
      <div class="design-panel">
        <Heading title="Design">Design</Heading>
        {loading && <Loading what="the design" />}
        <ErrorText message={error} />
        {data && (
          <>
            <section aria-labelledby="style-heading">
              <h2 id="style-heading">Style</h2>
              {!write && <p class="hint">Your role can preview changes here but not save them.</p>}
              {data.tweaks.length === 0 ? (
                <Empty>This site's template declares no style settings, so there is nothing to adjust here.</Empty>
              ) : (
                <form
                  noValidate
                  onSubmit={(e) => {
                    e.preventDefault();
                    save();
                  }}
                >
                  {!data.compiled && (
                    <p class="hint">The template's stylesheet is plain CSS: only its choices and checkboxes change the site.</p>
                  )}
                  {data.groups.map((g) => (
                    <fieldset key={g}>
                      <legend>{g}</legend>
                      {data.tweaks
                        .filter((t) => t.group === g)
                        .map((t) => (
                          <TweakControl
                            key={t.title}
                            tweak={t}
                            value={shownValue(t, draft)}
                            errors={errors}
                            onChange={(v) => change(t.title, v)}
                          />
                        ))}
                    </fieldset>
                  ))}
                  <p role="status" class="hint" data-testid="preview-status">
                    {status}
                  </p>
                  <ErrorText message={failure} />
                  {write && (
                    <div class="actions">
                      <button type="submit" disabled={!dirty || saving}>
                        {saving ? "Saving…" : "Save"}
                      </button>
                      <button type="button" disabled={!dirty || saving} onClick={discard}>
                        Discard changes
                      </button>
                      <button type="button" disabled={saving} onClick={reset}>
                        Reset to defaults
                      </button>
                    </div>
                  )}
                </form>
              )}
            </section>
            <SiteIdentity onSaved={() => setReload((r) => r + 1)} />
            <SiteNotices onSaved={() => setReload((r) => r + 1)} />
            <HeaderFooterPanel onSaved={() => setReload((r) => r + 1)} />
          </>
        )}
      </div>
      <SiteFrame
        path={path}
        onNavigate={setPath}
        onLoad={onLoad}
        reload={reload}
        previews={data?.previews ?? []}
      />
      <p class="visually-hidden" aria-live="polite">
        {path === "/" ? "" : `The frame shows ${path}.`}
      </p>
    </div>
  );
}

/** One tweak's control, of its kind, with its default and its error beside it. */
function TweakControl({
  tweak: t,
  value,
  errors,
  onChange,
}: {
  tweak: Tweak;
  value: TweakValue;
  errors: Record<string, string>;
  onChange: (v: TweakValue) => void;
}) {
  const id = useId();
  const error = errors[`values.${t.title}`];
  const def = t.kind === "font" ? null : text(t.default);
  const hint = def ? `Default: ${def}` : undefined;
  const atDefault = JSON.stringify(value) === JSON.stringify(t.default);
  const back = !atDefault && t.default !== null && (
    <button type="button" class="link" onClick={() => onChange(null)} aria-label={`Use default ${t.label.toLowerCase()}`}>
      Use default
    </button>
  );
  if (t.kind === "checkbox") {
    return (
      <div class={error ? "check invalid" : "check"}>
        <input
          id={id}
          type="checkbox"
          checked={value === true || value === "true"}
          onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
          aria-invalid={error ? "true" : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
        <label for={id}>{t.label}</label>
        {error && (
          <span class="field-error" id={`${id}-error`}>
            {error}
          </span>
        )}
      </div>
    );
  }
  if (t.kind === "dropdown") {
    const options = t.options ?? [];
    return (
      <div>
        <Select label={t.label} value={text(value)} onValue={(v) => onChange(v)} options={options.map((o) => [o, o])} />
        {error && <span class="field-error">{error}</span>}
      </div>
    );
  }
  if (t.kind === "font") {
    const font = (value && typeof value === "object" ? value : {}) as Record<string, string>;
    const defaults = (t.default && typeof t.default === "object" ? t.default : {}) as Record<string, string>;
    const props = Array.from(new Set(["font-family", "font-size", "font-weight", ...Object.keys(defaults), ...Object.keys(font)]));
    return (
      <fieldset class="font">
        <legend>{t.label}</legend>
        {props.map((p) => (
          <Field
            key={p}
            label={FONT_LABELS[p] ?? p}
            value={font[p] ?? ""}
            hint={defaults[p] ? `Default: ${defaults[p]}` : undefined}
            list={p === "font-family" ? `${id}-fonts` : undefined}
            onValue={(v) => onChange({ ...font, [p]: v })}
            error={errors[`values.${t.title}.${p}`] ?? (p === "font-family" ? error : undefined)}
          />
        ))}
        <datalist id={`${id}-fonts`}>
          {FONTS.map((f) => (
            <option key={f} value={f} />
          ))}
        </datalist>
        {back}
      </fieldset>
    );
  }
  if (t.kind === "color") {
    const colour = text(value);
    return (
      <div class="colour">
        <Field label={t.label} value={colour} onValue={(v) => onChange(v)} error={error} hint={hint} />
        <input
          type="color"
          class="swatch"
          aria-label={`${t.label}: pick a colour`}
          value={hex6(colour) ?? "#000000"}
          onInput={(e) => onChange((e.currentTarget as HTMLInputElement).value)}
        />
        {back}
      </div>
    );
  }
  // A value: a number within its bounds, in its units, or free text.
  const bounded = t.min != null || t.max != null || !!t.units;
  if (bounded) {
    const v = text(value);
    const n = /^-?[0-9.]+/.exec(v)?.[0] ?? "";
    const units = t.units ?? v.slice(n.length);
    const range = t.min != null && t.max != null ? `${t.min}–${t.max}` : "";
    return (
      <div>
        <Field
          label={units ? `${t.label} (${units})` : t.label}
          type="number"
          inputMode="decimal"
          min={t.min ?? undefined}
          max={t.max ?? undefined}
          step={t.step ?? "any"}
          value={n}
          onValue={(x) => onChange(x === "" ? "" : `${x}${units}`)}
          error={error}
          hint={[range, hint].filter(Boolean).join(" · ") || undefined}
        />
        {back}
      </div>
    );
  }
  return (
    <div>
      <Field label={t.label} value={text(value)} onValue={(v) => onChange(v)} error={error} hint={hint} />
      {back}
    </div>
  );
}
