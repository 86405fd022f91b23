// A gallery page's images and options, beside the live gallery in a frame (ui/site-frame),
// which reloads after every change. Opened from Pages ("Edit gallery") at
// /config/galleries/{id}. Its data in one call, `GET /api/owner/galleries/{id}`.
//
// - Add images: pick several files; each gets its alt text (required, or marked decorative,
//   as SPEC.md §5 says) and an optional title before anything is sent; then each is
//   uploaded (`POST /api/owner/assets`, SPEC.md §5's file messages beside the file) and
//   added (`POST …/images`), with progress ("Uploading 2 of 3").
// - Order: drag a row, or its Move buttons (Alt+Up / Alt+Down on a row, Alt+Home / Alt+End
//   to move it first or last); the new position
//   is announced and the moved row keeps the focus (`PUT …/order`).
// - An image's title, caption and alt text in a dialog (`PATCH …/images/{image}`, JSON
//   Merge Patch), removed after a confirm (`DELETE …/images/{image}`).
// - Options: SPEC.md §9's gallery options as the server describes them (`optionTypes`:
//   type, choices or range, default), only those that apply to the chosen design (and
//   whose switch, e.g. Autoplay for its duration, is on); saved with `PATCH` (only what
//   changed), errors beside each option (`options.NAME`).
import { useId, useRef, useState } from "preact/hooks";
import { Link } from "wouter";
import type { components } from "../../api/schema";
import { api, ApiError, upload } from "../api/client";
import { canWrite, useSession } from "../session";
import { Confirm } from "../ui/confirm";
import { useRowFocus } from "../ui/row-focus";
import { Dialog } from "../ui/dialog";
import { Check, Field, TextArea } from "../ui/field";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { SiteFrame } from "../ui/site-frame";

export type Gallery = components["schemas"]["OwnerGallery"];
export type GalleryImage = components["schemas"]["OwnerGalleryImage"];
export type OptionType = components["schemas"]["OwnerGalleryOptionType"];
type Uploaded = components["schemas"]["AssetAnswer"];
type Options = Record<string, unknown>;

/** SPEC.md §5's rule for alt text, in the words the server uses. */
export const NO_ALT = "Please enter alt text, or mark the image as decorative.";

/** The options that apply with `options` as they are: the design's, whose switch is on. */
export function shownOptions(types: OptionType[], options: Options): OptionType[] {
  const design = String(options.design ?? "grid");
  return types.filter((t) => (t.designs.length === 0 || t.designs.includes(design)) && (!t.needs || options[t.needs] === true));
}

/** The list with the item at `from` moved to `to`. */
export function moved<T>(list: T[], from: number, to: number): T[] {
  const next = list.slice();
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
}

const nameOf = (img: GalleryImage, i: number) => img.title || img.fileName || `Image ${i + 1}`;

export default function GalleryScreen({ id }: { id: string }) {
  const { me } = useSession();
  const writable = canWrite(me, "content");
  const path = `/api/owner/galleries/${encodeURIComponent(id)}`;
  const { data, error, loading, setData } = useGet<Gallery>(path);
  const [reload, setReload] = useState(0);
  const [shown, setShown] = useState<string | null>(null);
  const [moveError, setMoveError] = useState<string | null>(null);
  const [dragging, setDragging] = useState<number | null>(null);
  const [editing, setEditing] = useState<GalleryImage | null>(null);
  const [removing, setRemoving] = useState<GalleryImage | null>(null);
  const list = useRef<HTMLOListElement>(null);
  const changed = () => setReload((r) => r + 1);

  const setFocus = useRowFocus(list, data, "edit");

  if (loading || (!data && !error)) return <Loading what="the gallery" />;
  if (!data)
    return (
      <>
        <Heading title="Gallery">Gallery</Heading>
        <ErrorText message={error} />
        <p>
          <Link href="/pages">Back to Pages</Link>
        </p>
      </>
    );
  const images = data.images;

  const reorder = async (from: number, to: number, control?: string) => {
    if (to < 0 || to >= images.length || from === to) return;
    setMoveError(null);
    const order = moved(images, from, to);
    try {
      const next = await api<Gallery>("PUT", `${path}/order`, { images: order.map((i) => i.id) });
      setData(next);
      changed();
      announce(`${nameOf(images[from], from)} moved to position ${to + 1} of ${images.length}.`);
      if (control) setFocus({ row: `[data-image="${images[from].id}"]`, control });
    } catch (e) {
      const err = e as ApiError;
      setMoveError(err.fields.images ?? err.message);
    }
  };

  return (
    <div class="pages-screen gallery-screen">
      <div class="pages-panel">
        <p>
          <Link href="/pages">← Pages</Link>
        </p>
        <Heading title={`Gallery: ${data.title}`}>Gallery: {data.title}</Heading>
        <p class="hint">
          {images.length} of at most {data.maxImages} images. On the site at{" "}
          <a href={data.fullUrl} target="_blank" rel="noopener">
            {data.fullUrl}
          </a>
          .
        </p>
        {writable && (
          <AddImages
            path={path}
            room={data.maxImages - images.length}
            onAdded={(added) => {
              setData({ ...data, images: [...images, ...added] });
              changed();
            }}
          />
        )}
        <section aria-labelledby="gallery-images">
          <h2 id="gallery-images">Images</h2>
          {writable && images.length > 1 && (
            <p class="hint" id="gallery-reorder-help">
              Drag an image, or use its Move buttons (Alt+Up and Alt+Down on a row; Alt+Home and Alt+End to move it first or last), to change the order.
            </p>
          )}
          <ErrorText message={moveError} />
          {images.length === 0 ? (
            <Empty>This gallery has no images yet.{writable ? " Add some above." : ""}</Empty>
          ) : (
            <ol class="pages-list gallery-images" ref={list} aria-labelledby="gallery-images">
              {images.map((img, i) => {
                const name = nameOf(img, i);
                return (
                  <li
                    key={img.id}
                    class="pages-row"
                    data-image={img.id}
                    draggable={writable}
                    onDragStart={(e) => {
                      e.dataTransfer?.setData("text/plain", name);
                      setDragging(i);
                    }}
                    onDragEnd={() => setDragging(null)}
                    onDragOver={(e) => {
                      if (dragging !== null) e.preventDefault();
                    }}
                    onDrop={(e) => {
                      e.preventDefault();
                      const from = dragging;
                      setDragging(null);
                      if (from !== null) void reorder(from, i);
                    }}
                    onKeyDown={(e) => {
                      const to = { ArrowUp: i - 1, ArrowDown: i + 1, Home: 0, End: images.length - 1 }[e.key];
                      if (!writable || !e.altKey || to === undefined) return;
                      e.preventDefault();
                      const control = (document.activeElement as HTMLElement | null)?.dataset?.control ?? "edit";
                      void reorder(i, to, control);
                    }}
                  >
                    <div class="pages-line">
                      <span class="gallery-image">
                        <img src={img.assetUrl} alt="" width={64} height={64} loading="lazy" />
                        <span>
                          <strong>{name}</strong>
                          <span class="hint"> {img.decorative ? "Decorative (no alt text)" : `Alt: ${img.altText}`}</span>
                        </span>
                      </span>
                      <span class="pages-actions">
                        {writable && (
                          <>
                            <button type="button" data-control="up" disabled={i === 0} aria-label={`Move ${name} up`} aria-describedby="gallery-reorder-help" onClick={() => reorder(i, i - 1, "up")}>
                              ↑
                            </button>
                            <button type="button" data-control="down" disabled={i === images.length - 1} aria-label={`Move ${name} down`} aria-describedby="gallery-reorder-help" onClick={() => reorder(i, i + 1, "down")}>
                              ↓
                            </button>
                            <button type="button" data-control="edit" aria-label={`Edit ${name}`} onClick={() => setEditing(img)}>
                              Edit
                            </button>
                            <button type="button" data-control="remove" aria-label={`Remove ${name}`} onClick={() => setRemoving(img)}>
                              Remove
                            </button>
                          </>
                        )}
                        <button type="button" data-control="preview" aria-label={`Preview ${name} in the frame`} onClick={() => setShown(img.fullUrl)}>
                          Preview
                        </button>
                      </span>
                    </div>
                  </li>
                );
              })}
            </ol>
          )}
        </section>
        <OptionsForm
          key={JSON.stringify(data.options)}
          gallery={data}
          path={path}
          writable={writable}
          onSaved={(next) => {
            setData(next);
            setShown(null);
            changed();
            announce("Gallery options saved.");
          }}
        />
      </div>
      <div class="pages-preview">
        <SiteFrame path={shown ?? data.fullUrl} onNavigate={(p) => setShown(p)} reload={reload} />
      </div>
      {editing && (
        <EditImage
          path={`${path}/images/${encodeURIComponent(editing.id)}`}
          image={editing}
          onClose={() => setEditing(null)}
          onSaved={(img) => {
            setEditing(null);
            setData({ ...data, images: images.map((i) => (i.id === img.id ? img : i)) });
            changed();
            announce(`${nameOf(img, 0)} saved.`);
          }}
        />
      )}
      {removing && (
        <RemoveImage
          path={`${path}/images/${encodeURIComponent(removing.id)}`}
          name={nameOf(removing, images.indexOf(removing))}
          onClose={() => setRemoving(null)}
          onDone={() => {
            const gone = removing;
            setRemoving(null);
            setData({ ...data, images: images.filter((i) => i.id !== gone.id) });
            changed();
            announce(`${nameOf(gone, 0)} removed.`);
          }}
        />
      )}
    </div>
  );
}

/** A checkbox with its label. */
interface Staged {
  key: number;
  file: File;
  title: string;
  altText: string;
  decorative: boolean;
  errors: Record<string, string>;
}

let keys = 0;

/** Picking files, their alt text and titles, then uploading and adding each. */
function AddImages({ path, room, onAdded }: { path: string; room: number; onAdded: (images: GalleryImage[]) => void }) {
  const inputId = useId();
  const [staged, setStaged] = useState<Staged[]>([]);
  const [progress, setProgress] = useState<{ done: number; total: number; name: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const set = (key: number, change: Partial<Staged>) => setStaged((s) => s.map((f) => (f.key === key ? { ...f, ...change, errors: { ...f.errors, ...(change.errors ?? {}) } } : f)));

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    // Alt text first, for every file, before anything is sent.
    let missing = false;
    const checked = staged.map((f) => {
      const errors: Record<string, string> = {};
      if (!f.decorative && !f.altText.trim()) {
        errors.altText = NO_ALT;
        missing = true;
      }
      return { ...f, errors };
    });
    setStaged(checked);
    if (missing) {
      setError("Please correct the fields marked below.");
      return;
    }
    if (checked.length > room) {
      setError("A collection has at most 250 items.");
      return;
    }
    const added: GalleryImage[] = [];
    const left: Staged[] = [];
    for (const [n, f] of checked.entries()) {
      setProgress({ done: n, total: checked.length, name: f.file.name });
      try {
        const made = await upload<Uploaded>(`/api/owner/assets?fileName=${encodeURIComponent(f.file.name)}`, f.file);
        const img = await api<GalleryImage>("POST", `${path}/images`, {
          assetId: made.id,
          title: f.title,
          altText: f.decorative ? "" : f.altText,
          decorative: f.decorative,
        });
        added.push(img);
      } catch (e) {
        const err = e as ApiError;
        left.push({ ...f, errors: { file: err.fields.fileName ?? err.fields.assetId ?? err.message, ...err.fields } });
      }
    }
    setProgress(null);
    setStaged(left);
    if (added.length > 0) {
      onAdded(added);
      announce(`${added.length} ${added.length === 1 ? "image" : "images"} added.`);
    }
    if (left.length > 0) setError(`${left.length} ${left.length === 1 ? "file was" : "files were"} not added: see below.`);
  };

  return (
    <section aria-labelledby="gallery-add">
      <h2 id="gallery-add">Add images</h2>
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for={inputId}>Choose images</label>
          <span class="hint" id={`${inputId}-hint`}>
            PNG, JPEG, GIF or WebP, up to 20 MB each; several at once.
          </span>
          <input
            id={inputId}
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            multiple
            aria-describedby={`${inputId}-hint`}
            disabled={!!progress}
            onInput={(e) => {
              const input = e.currentTarget as HTMLInputElement;
              const files = [...(input.files ?? [])];
              setStaged((s) => [...s, ...files.map((file) => ({ key: ++keys, file, title: "", altText: "", decorative: false, errors: {} }))]);
              input.value = "";
            }}
          />
        </div>
        <ErrorText message={error} />
        {staged.length > 0 && (
          <ul class="gallery-staged">
            {staged.map((f) => (
              <li key={f.key}>
                <fieldset>
                  <legend>{f.file.name}</legend>
                  {f.errors.file && <ErrorText message={f.errors.file} />}
                  <Field label="Alt text" value={f.altText} onValue={(v) => set(f.key, { altText: v, errors: { altText: "" } })} error={f.decorative ? undefined : f.errors.altText || undefined} hint="What the image shows, for people who cannot see it." disabled={f.decorative} />
                  <Check label="Decorative (no alt text)" checked={f.decorative} onChange={(v) => set(f.key, { decorative: v, errors: { altText: "" } })} />
                  <Field label="Title" value={f.title} onValue={(v) => set(f.key, { title: v })} error={f.errors.title || undefined} />
                  <button type="button" onClick={() => setStaged((s) => s.filter((x) => x.key !== f.key))} aria-label={`Don't add ${f.file.name}`} disabled={!!progress}>
                    Don't add
                  </button>
                </fieldset>
              </li>
            ))}
          </ul>
        )}
        {progress && (
          <p role="status">
            <progress value={progress.done} max={progress.total} aria-label="Upload progress" /> Uploading {progress.done + 1} of {progress.total}: {progress.name}…
          </p>
        )}
        {staged.length > 0 && (
          <div class="actions">
            <button type="submit" class="primary" disabled={!!progress}>
              {staged.length === 1 ? "Upload 1 image" : `Upload ${staged.length} images`}
            </button>
          </div>
        )}
      </form>
    </section>
  );
}

function EditImage({ path, image, onClose, onSaved }: { path: string; image: GalleryImage; onClose: () => void; onSaved: (img: GalleryImage) => void }) {
  const [title, setTitle] = useState(image.title);
  const [caption, setCaption] = useState(image.caption);
  const [altText, setAltText] = useState(image.altText);
  const [decorative, setDecorative] = useState(image.decorative);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!decorative && !altText.trim()) {
      setErrors({ altText: NO_ALT });
      setError("Please correct the fields marked below.");
      return;
    }
    setBusy(true);
    try {
      const patch: Record<string, unknown> = {};
      if (title !== image.title) patch.title = title;
      if (caption !== image.caption) patch.caption = caption;
      if (decorative !== image.decorative) patch.decorative = decorative;
      if (!decorative && (altText !== image.altText || image.decorative)) patch.altText = altText;
      onSaved(await api<GalleryImage>("PATCH", path, patch));
    } catch (e) {
      const err = e as ApiError;
      setErrors(err.fields);
      setError(err.message);
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Edit ${image.title || image.fileName || "image"}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorText message={error} />
        <Field label="Title" value={title} onValue={setTitle} error={errors.title} />
        <TextArea label="Caption" value={caption} onValue={setCaption} error={errors.caption} hint="Plain text shown with the image." />
        <Field label="Alt text" value={decorative ? "" : altText} onValue={setAltText} error={decorative ? undefined : errors.altText} hint="What the image shows, for people who cannot see it." disabled={decorative} />
        <Check label="Decorative (no alt text)" checked={decorative} onChange={setDecorative} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Save
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RemoveImage({ path, name, onClose, onDone }: { path: string; name: string; onClose: () => void; onDone: () => void }) {
  return (
    <Confirm title={`Remove ${name}?`} action="Remove" keep="Cancel" run={() => api("DELETE", path)} onClose={onClose} onDone={onDone}>
      <p>The image leaves the gallery and the site. Its file stays among the site's uploads.</p>
    </Confirm>
  );
}

/** SPEC.md §9's options, those that apply to the chosen design. */
function OptionsForm({ gallery, path, writable, onSaved }: { gallery: Gallery; path: string; writable: boolean; onSaved: (g: Gallery) => void }) {
  const [values, setValues] = useState<Options>(gallery.options as Options);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const shown = shownOptions(gallery.optionTypes, values);
  const stored = gallery.options as Options;
  const changes = Object.fromEntries(Object.entries(values).filter(([k, v]) => v !== stored[k]));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const next = await api<Gallery>("PATCH", path, { options: changes });
      setErrors({});
      setBusy(false);
      onSaved(next);
    } catch (e) {
      const err = e as ApiError;
      const byOption: Record<string, string> = {};
      for (const [k, v] of Object.entries(err.fields)) byOption[k.replace(/^options\./, "")] = v;
      setErrors(byOption);
      setError(err.message);
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="gallery-options">
      <h2 id="gallery-options">Options</h2>
      <p class="hint">Only the options of the chosen design are shown.</p>
      <form onSubmit={submit} noValidate>
        <fieldset disabled={!writable} class="plain">
          <legend class="visually-hidden">Gallery options</legend>
          <ErrorText message={error} />
          {shown.map((t) => (
            <OptionField key={t.name} type={t} value={values[t.name]} error={errors[t.name]} onValue={(v) => setValues({ ...values, [t.name]: v })} />
          ))}
        </fieldset>
        {writable && (
          <div class="actions">
            <button type="submit" class="primary" disabled={busy || Object.keys(changes).length === 0}>
              Save options
            </button>
            <button type="button" disabled={busy || Object.keys(changes).length === 0} onClick={() => setValues(stored)}>
              Undo changes
            </button>
          </div>
        )}
      </form>
    </section>
  );
}

function OptionField({ type, value, error, onValue }: { type: OptionType; value: unknown; error?: string; onValue: (v: unknown) => void }) {
  const id = useId();
  const describedBy = [type.min !== undefined ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const errorText = error && (
    <span class="field-error" id={`${id}-error`}>
      <span aria-hidden="true">⚠ </span>
      {error}
    </span>
  );
  if (type.type === "bool")
    return (
      <div class={error ? "check invalid" : "check"}>
        <input type="checkbox" id={id} checked={value === true} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy} onChange={(e) => onValue((e.currentTarget as HTMLInputElement).checked)} />
        <label for={id}>{type.label}</label>
        {errorText}
      </div>
    );
  if (type.type === "choice")
    return (
      <div class={error ? "field invalid" : "field"}>
        <label for={id}>{type.label}</label>
        <select id={id} value={String(value)} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy} onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value)}>
          {(type.choices ?? []).map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
        {errorText}
      </div>
    );
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{type.label}</label>
      <span class="hint" id={`${id}-hint`}>
        {type.min} to {type.max}
      </span>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={type.min ?? undefined}
        max={type.max ?? undefined}
        step={1}
        value={String(value ?? "")}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy}
        onInput={(e) => {
          const raw = (e.currentTarget as HTMLInputElement).value;
          const n = Number(raw);
          onValue(raw.trim() === "" || Number.isNaN(n) ? raw : n);
        }}
      />
      {errorText}
    </div>
  );
}
