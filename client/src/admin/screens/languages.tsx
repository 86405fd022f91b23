// Settings → Languages: the site's default language (change it), its other languages (add
// from a picker of BCP 47 tags named as each language writes itself, turn on or off,
// remove) and the translation provider's connection (disconnect, asked again). One call
// reads it all (`GET /api/multilingual/settings`); the default changes with that route's
// JSON Merge Patch (`{defaultLanguage}`; a listed language made the default leaves the
// list), and every change of the list sends the whole list back
// (`PUT /api/multilingual/languages`), which the server checks and stores in canonical
// form, naming a problem by its place in the list (`languages[3]`). A role that may only
// read languages sees them, and no way to change them.
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { api, ApiError } from "../api/client";
import type { LanguageSetting, MultilingualSettings } from "../api/types";
import { canWrite, useSession } from "../session";
import { Confirm } from "../ui/confirm";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";

const PATH = "/api/multilingual/settings";
const LANGUAGES = "/api/multilingual/languages";
const CONNECTION = "/api/multilingual/connection";

/** The tags the picker offers: widely used languages, some with their main regions. */
export const COMMON_TAGS = [
  "ar", "bg", "ca", "cs", "cy", "da", "de", "de-AT", "de-CH", "el", "en", "en-AU", "en-CA",
  "en-GB", "en-IE", "en-NZ", "en-US", "es", "es-419", "es-ES", "es-MX", "et", "eu", "fa",
  "fi", "fr", "fr-BE", "fr-CA", "fr-CH", "fr-FR", "ga", "gl", "he", "hi", "hr", "hu", "id",
  "is", "it", "ja", "ko", "lt", "lv", "ms", "mt", "nb", "nl", "nl-BE", "nl-NL", "pl", "pt",
  "pt-BR", "pt-PT", "ro", "ru", "sk", "sl", "sr", "sv", "th", "tr", "uk", "vi", "zh-Hans",
  "zh-Hant",
];

/** A language's name as its own locale writes it ("français (Canada)"); the tag itself
 *  when the browser cannot name it. */
export function nativeName(tag: string): string {
  try {
    const name = new Intl.DisplayNames([tag], { type: "language", languageDisplay: "standard" }).of(tag);
    if (name && name !== tag) return name.charAt(0).toLocaleUpperCase(tag) + name.slice(1);
  } catch {
    // Not a tag the browser knows: shown as it is.
  }
  return tag;
}

/** The stored list as `{tag, enabled}` (an import may have plain tags). */
export function normalise(list: unknown[]): LanguageSetting[] {
  const out: LanguageSetting[] = [];
  for (const l of list) {
    if (typeof l === "string") out.push({ tag: l, enabled: true });
    else if (l && typeof l === "object") {
      const o = l as Record<string, unknown>;
      const tag = typeof o.tag === "string" ? o.tag : typeof o.language === "string" ? o.language : "";
      if (tag) out.push({ tag, enabled: o.enabled !== false });
    }
  }
  return out;
}

/** What the connection is called: its provider or name when it has one. */
function connectionName(c: Record<string, unknown>): string {
  for (const k of ["provider", "name", "service", "type"]) if (typeof c[k] === "string" && c[k]) return c[k] as string;
  return "A translation provider";
}

export default function LanguagesScreen() {
  const { me } = useSession();
  const writable = canWrite(me, "languages");
  const { data, error, setData } = useGet<MultilingualSettings>(PATH);
  const header = (
    <>
      <p>
        <Link href="/">Back to settings</Link>
      </p>
      <Heading title="Languages">Languages</Heading>
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
        <Loading what="languages" />
      </>
    );
  return (
    <>
      {header}
      {!writable && <p class="note">Your role can read the languages but not change them.</p>}
      <DefaultLanguage data={data} writable={writable} onSaved={setData} />
      <Languages data={data} writable={writable} onSaved={(languages) => setData({ ...data, languages })} />
      <Connection data={data} writable={writable} onGone={() => setData({ ...data, connection: null })} />
    </>
  );
}

function DefaultLanguage({ data, writable, onSaved }: { data: MultilingualSettings; writable: boolean; onSaved: (s: MultilingualSettings) => void }) {
  const [choice, setChoice] = useState(data.defaultLanguage);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = "default-language";
  const listed = normalise(data.languages).map((l) => l.tag);
  const options = [data.defaultLanguage, ...listed, ...COMMON_TAGS].filter(
    (t, i, all) => all.findIndex((x) => x.toLowerCase() === t.toLowerCase()) === i,
  );
  return (
    <section aria-labelledby="default-h">
      <h2 id="default-h">Default language</h2>
      <p>
        The site is written in <strong lang={data.defaultLanguage}>{nativeName(data.defaultLanguage)}</strong> (<code>{data.defaultLanguage}</code>): its
        pages say so to browsers and search engines, and dates and prices are written its way.
      </p>
      {writable && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setError(null);
            try {
              const r = await api<MultilingualSettings>("PATCH", PATH, { defaultLanguage: choice });
              onSaved(r);
              announce(`The default language is now ${nativeName(r.defaultLanguage)}.`);
            } catch (err) {
              const x = err as ApiError;
              setError(x.fields.defaultLanguage ?? x.message);
            } finally {
              setBusy(false);
            }
          }}
        >
          <div class={error ? "field invalid" : "field"}>
            <label for={id}>Language of the site</label>
            <select
              id={id}
              value={choice}
              aria-invalid={error ? "true" : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onChange={(e) => setChoice((e.currentTarget as HTMLSelectElement).value)}
            >
              {options.map((t) => (
                <option key={t} value={t} lang={t}>
                  {nativeName(t)} — {t}
                </option>
              ))}
            </select>
            {error && (
              <span class="field-error" id={`${id}-error`}>
                <span aria-hidden="true">⚠ </span>
                {error}
              </span>
            )}
          </div>
          <button type="submit" disabled={busy || choice === data.defaultLanguage}>
            Save default language
          </button>
        </form>
      )}
    </section>
  );
}

function Languages({ data, writable, onSaved }: { data: MultilingualSettings; writable: boolean; onSaved: (l: LanguageSetting[]) => void }) {
  const list = normalise(data.languages);
  const [adding, setAdding] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const taken = new Set([data.defaultLanguage, ...list.map((l) => l.tag)].map((t) => t.toLowerCase()));
  const choices = COMMON_TAGS.filter((t) => !taken.has(t.toLowerCase()));

  /** Sends `next`; `said` is announced when stored. Problems come back by index. */
  const save = async (next: LanguageSetting[], said: string) => {
    setBusy(true);
    setMessage(null);
    setErrors({});
    try {
      const r = await api<{ languages: LanguageSetting[] }>("PUT", LANGUAGES, { languages: next });
      onSaved(r.languages);
      announce(said);
      return true;
    } catch (e) {
      const err = e as ApiError;
      setErrors(err.fields);
      setMessage(err.message);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const addError = errors[`languages[${list.length}]`] ?? errors.languages;
  const rowError = (i: number) => errors[`languages[${i}]`];
  const pickerId = "language-picker";

  return (
    <section aria-labelledby="languages-h">
      <h2 id="languages-h">Other languages</h2>
      {message && !Object.keys(errors).length && <ErrorText message={message} />}
      {list.length === 0 ? (
        <Empty>No other languages yet: the site is in its default language only.</Empty>
      ) : (
        <table class="languages">
          <caption class="visually-hidden">Other languages</caption>
          <thead>
            <tr>
              <th scope="col">Language</th>
              <th scope="col">Tag</th>
              <th scope="col">Shown to visitors</th>
              {writable && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {list.map((l, i) => (
              <tr key={l.tag}>
                <th scope="row" lang={l.tag}>
                  {nativeName(l.tag)}
                  {rowError(i) && (
                    <span class="field-error" id={`language-${i}-error`}>
                      <span aria-hidden="true">⚠ </span>
                      {rowError(i)}
                    </span>
                  )}
                </th>
                <td>
                  <code>{l.tag}</code>
                </td>
                <td>
                  {writable ? (
                    <label>
                      <input
                        type="checkbox"
                        checked={l.enabled}
                        disabled={busy}
                        aria-describedby={rowError(i) ? `language-${i}-error` : undefined}
                        onChange={() =>
                          save(
                            list.map((x, j) => (j === i ? { ...x, enabled: !x.enabled } : x)),
                            `${nativeName(l.tag)} ${l.enabled ? "turned off" : "turned on"}.`,
                          )
                        }
                      />{" "}
                      Enabled<span class="visually-hidden">: {nativeName(l.tag)}</span>
                    </label>
                  ) : l.enabled ? (
                    "Enabled"
                  ) : (
                    "Off"
                  )}
                </td>
                {writable && (
                  <td>
                    <button
                      type="button"
                      disabled={busy}
                      aria-label={`Remove ${nativeName(l.tag)}`}
                      onClick={() => save(list.filter((_, j) => j !== i), `${nativeName(l.tag)} removed.`)}
                    >
                      Remove
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {writable && (
        <form
          class="add-language"
          onSubmit={async (e) => {
            e.preventDefault();
            if (!adding) {
              setErrors({ [`languages[${list.length}]`]: "Please choose a language." });
              return;
            }
            if (await save([...list, { tag: adding, enabled: true }], `${nativeName(adding)} added.`)) setAdding("");
          }}
        >
          <div class={addError ? "field invalid" : "field"}>
            <label for={pickerId}>Add a language</label>
            <select
              id={pickerId}
              value={adding}
              aria-invalid={addError ? "true" : undefined}
              aria-describedby={addError ? `${pickerId}-error` : undefined}
              onChange={(e) => setAdding((e.currentTarget as HTMLSelectElement).value)}
            >
              <option value="">Choose a language…</option>
              {choices.map((t) => (
                <option key={t} value={t} lang={t}>
                  {nativeName(t)} — {t}
                </option>
              ))}
            </select>
            {addError && (
              <span class="field-error" id={`${pickerId}-error`}>
                <span aria-hidden="true">⚠ </span>
                {addError}
              </span>
            )}
          </div>
          <button type="submit" disabled={busy}>
            Add language
          </button>
        </form>
      )}
    </section>
  );
}

function Connection({ data, writable, onGone }: { data: MultilingualSettings; writable: boolean; onGone: () => void }) {
  const [asking, setAsking] = useState(false);
  const c = data.connection;
  return (
    <section aria-labelledby="connection-h">
      <h2 id="connection-h">Translation connection</h2>
      {!c ? (
        <Empty>No translation provider is connected.</Empty>
      ) : (
        <>
          <p>
            <strong>{connectionName(c)}</strong> is connected and translates the site's pages.
          </p>
          {writable && (
            <button type="button" class="danger" onClick={() => setAsking(true)}>
              Disconnect
            </button>
          )}
        </>
      )}
      {asking && c && (
        <Confirm
          title="Disconnect the translation provider?"
          action="Disconnect"
          run={() => api("DELETE", CONNECTION)}
          done="The translation provider is disconnected."
          onClose={() => setAsking(false)}
          onDone={() => {
            setAsking(false);
            onGone();
          }}
        >
          <p>
            {connectionName(c)} stops translating the site. The site's languages stay; connecting again is done by importing the site's
            settings.
          </p>
        </Confirm>
      )}
    </section>
  );
}
