// Pages: every page and link of the site as its navigations and the "Not linked" area show
// them. Add a page of a type the template declares (or an external link), open a page's
// settings (title, URL, navigation title, enabled, homepage, password, SEO, where it is),
// delete it (asked first), and reorder by dragging or from the keyboard (the Move buttons,
// or Alt+Arrow keys on a row; the new position is announced). The panel is on the left and
// the live site in a frame on the right (ui/site-frame): a page's "Preview" shows it there,
// a page just added is shown, every change reloads the frame, and the row of the page the
// frame shows (a link clicked inside it included) says so.
// `GET|PATCH /api/owner/pages`, `POST /api/owner/collections`,
// `PATCH|DELETE /api/owner/collections/{id}`. A gallery page's "Edit gallery" opens its images
// and options (screens/gallery, /config/galleries/{id}).
import { useId, useRef, useState } from "preact/hooks";
import { Link as RouteLink } from "wouter";
import { api, ApiError } from "../api/client";
import type { SitePage, Pages } from "../api/types";
import { canWrite, useSession } from "../session";
import { Confirm } from "../ui/confirm";
import { useRowFocus } from "../ui/row-focus";
import { Dialog } from "../ui/dialog";
import { Check, Field, Select, TextArea } from "../ui/field";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { SiteFrame } from "../ui/site-frame";
import {
  type Area,
  areasOf,
  arrangement,
  endOf,
  FREE,
  isFolder,
  labelOf,
  type Link,
  linkAt,
  linkErrors,
  move,
  pageOf,
  placeOf,
  places,
  replace,
  type Spot,
  step,
  without,
  append,
} from "./pages-tree";

const PATH = "/api/owner/pages";

type Open =
  | { kind: "add" }
  | { kind: "link"; spot?: Spot }
  | { kind: "page"; spot: Spot }
  | { kind: "delete"; page: SitePage };

const spotKey = (s: Spot) => `${s.area}/${s.index}${s.child === undefined ? "" : `/${s.child}`}`;

export default function PagesScreen() {
  const { me } = useSession();
  const writable = canWrite(me, "content");
  const { data, error, loading, setData } = useGet<Pages>(PATH);
  const [open, setOpen] = useState<Open | null>(null);
  const [moveError, setMoveError] = useState<string | null>(null);
  const [dragging, setDragging] = useState<Spot | null>(null);
  // The page the frame shows, and a counter that reloads it after a change.
  const [shown, setShown] = useState("/");
  const [reload, setReload] = useState(0);
  const changed = () => setReload((r) => r + 1);
  const panel = useRef<HTMLDivElement>(null);

  // After a move, the moved row keeps the focus (its same control, else its settings).
  const setFocus = useRowFocus(panel, data, "settings");

  if (loading || (!data && !error)) return <Loading what="the pages" />;
  if (!data)
    return (
      <>
        <Heading title="Pages">Pages</Heading>
        <ErrorText message={error} />
      </>
    );
  const pages = data.pages;
  const areas = areasOf(data);

  /** Saves `after` (the areas once moved); announces `said` once stored. */
  const save = async (after: Area[], said: string, then?: Spot, control?: string) => {
    setMoveError(null);
    try {
      const next = await api<Pages>("PATCH", PATH, arrangement(areas, after, data.templateId));
      setData(next);
      changed();
      announce(said);
      if (then && control) setFocus({ row: `[data-spot="${spotKey(then)}"]`, control });
    } catch (e) {
      const err = e as ApiError;
      setMoveError(Object.values(err.fields)[0] ?? err.message);
    }
  };

  /** "About moved to position 3 of 5 in Main Navigation." for the link now at `to`. */
  const movedText = (after: Area[], to: Spot, link: Link) => {
    const area = after.find((a) => a.key === to.area)!;
    const list = to.child === undefined ? area.links : (area.links[to.index].items ?? []);
    const where = to.child === undefined ? area.title : labelOf(area.links[to.index], pages);
    const at = Math.min(to.child ?? to.index, list.length - 1) + 1;
    return `${labelOf(link, pages)} moved to position ${at} of ${list.length} in ${where}.`;
  };

  const moveBy = (spot: Spot, by: -1 | 1, control: string) => {
    const to = step(areas, spot, by);
    if (!to) return;
    const after = move(areas, spot, to, pages);
    if (!after) return;
    void save(after, movedText(after, to, linkAt(areas, spot)!), to, control);
  };

  const drop = (to: Spot) => {
    const from = dragging;
    setDragging(null);
    if (!from) return;
    // The spot in the lists as they are once the link is out of its place.
    const target = { ...to };
    const sameList = from.area === to.area && (from.child === undefined) === (to.child === undefined) && (from.child === undefined || from.index === to.index);
    if (sameList) {
      const at = from.child ?? from.index;
      const into = to.child ?? to.index;
      if (into === at) return;
      if (into > at) {
        if (to.child === undefined) target.index -= 1;
        else target.child! -= 1;
      }
    } else if (from.child === undefined && from.area === to.area && from.index < to.index) {
      // Out of its place above a folder it is dropped into.
      target.index -= 1;
    }
    const after = move(areas, from, target, pages);
    if (!after) {
      setMoveError("A folder cannot go inside another folder, and links stay in navigations.");
      return;
    }
    void save(after, movedText(after, target, linkAt(areas, from)!));
  };

  return (
    <div class="pages-screen">
      <div class="pages-panel" ref={panel}>
        <Heading title="Pages">Pages</Heading>
        {writable && (
          <div class="toolbar">
            <button type="button" class="primary" onClick={() => setOpen({ kind: "add" })}>
              Add page
            </button>
            {data.navigations.length > 0 && (
              <button type="button" onClick={() => setOpen({ kind: "link" })}>
                Add link
              </button>
            )}
          </div>
        )}
        {writable && (
          <p class="hint" id="reorder-help">
            Drag a row, or use its Move buttons (Alt+Up and Alt+Down on a row), to change the order.
          </p>
        )}
        <ErrorText message={moveError} />
        {data.navigations.length === 0 && <Empty>The site's template declares no navigation: every page is under Not linked.</Empty>}
        {areas.map((area) => (
          <section class="pages-area" aria-labelledby={`area-${area.key}`} key={area.key}>
            <h2 id={`area-${area.key}`}>{area.title}</h2>
            {area.links.length === 0 ? (
              <Empty>{area.key === FREE ? "Every page is linked in a navigation." : "No pages or links here yet."}</Empty>
            ) : (
              <ul class="pages-list" aria-labelledby={`area-${area.key}`}>
                {area.links.map((link, index) => (
                  <Row
                    key={link.collectionId ?? `ext-${index}`}
                    link={link}
                    spot={{ area: area.key, index }}
                    areas={areas}
                    pages={pages}
                    writable={writable}
                    dragging={dragging}
                    onDrag={setDragging}
                    onDrop={drop}
                    onMove={moveBy}
                    onOpen={setOpen}
                    shown={shown}
                    onShow={setShown}
                  />
                ))}
              </ul>
            )}
            {writable && dragging && (
              <p
                class="drop-zone"
                onDragOver={(e) => e.preventDefault()}
                onDrop={(e) => {
                  e.preventDefault();
                  drop({ area: area.key, index: area.links.length });
                }}
              >
                Drop here to put it at the end of {area.title}
              </p>
            )}
          </section>
        ))}
      </div>
      <div class="pages-preview">
        <SiteFrame path={shown} onNavigate={setShown} reload={reload} />
      </div>
      {open?.kind === "add" && (
        <AddPage
          data={data}
          areas={areas}
          onClose={() => setOpen(null)}
          onDone={(p) => {
            setOpen(null);
            announce(`${p.title} added.`);
            api<Pages>("GET", PATH).then(setData, () => undefined);
            if (p.enabled && !p.folder) setShown(p.fullUrl);
            changed();
          }}
        />
      )}
      {open?.kind === "link" && (
        <LinkDialog
          data={data}
          areas={areas}
          spot={open.spot}
          onClose={() => setOpen(null)}
          onSaved={(next, said) => {
            setOpen(null);
            setData(next);
            changed();
            announce(said);
          }}
        />
      )}
      {open?.kind === "page" && (
        <PageSettings
          data={data}
          areas={areas}
          spot={open.spot}
          onClose={() => setOpen(null)}
          onSaved={(next, said) => {
            setOpen(null);
            setData(next);
            changed();
            announce(said);
          }}
          onDelete={(page) => setOpen({ kind: "delete", page })}
        />
      )}
      {open?.kind === "delete" && (
        <DeletePage
          page={open.page}
          onClose={() => setOpen(null)}
          onDone={() => {
            setOpen(null);
            announce(`${open.page.title} deleted.`);
            api<Pages>("GET", PATH).then(setData, () => undefined);
            if (open.page.fullUrl === shown) setShown("/");
            changed();
          }}
        />
      )}
    </div>
  );
}

function Row({
  link,
  spot,
  areas,
  pages,
  writable,
  dragging,
  onDrag,
  onDrop,
  onMove,
  onOpen,
  shown,
  onShow,
}: {
  link: Link;
  spot: Spot;
  areas: Area[];
  pages: SitePage[];
  writable: boolean;
  dragging: Spot | null;
  onDrag: (s: Spot | null) => void;
  onDrop: (to: Spot) => void;
  onMove: (s: Spot, by: -1 | 1, control: string) => void;
  onOpen: (o: Open) => void;
  /** The page the frame shows, and showing one there. */
  shown: string;
  onShow: (path: string) => void;
}) {
  const page = pageOf(link, pages);
  const inFrame = !!page && page.fullUrl === shown;
  const label = labelOf(link, pages);
  const folder = isFolder(link, pages);
  const up = step(areas, spot, -1);
  const down = step(areas, spot, 1);
  const onKeyDown = (e: KeyboardEvent) => {
    if (!writable || !e.altKey || (e.key !== "ArrowUp" && e.key !== "ArrowDown")) return;
    e.preventDefault();
    e.stopPropagation();
    const control = (document.activeElement as HTMLElement | null)?.dataset?.control ?? "settings";
    onMove(spot, e.key === "ArrowUp" ? -1 : 1, control);
  };
  return (
    <li
      class={folder ? "pages-row folder" : "pages-row"}
      data-spot={spotKey(spot)}
      draggable={writable}
      onDragStart={(e) => {
        e.stopPropagation();
        e.dataTransfer?.setData("text/plain", label);
        onDrag(spot);
      }}
      onDragEnd={() => onDrag(null)}
      onDragOver={(e) => {
        if (dragging) e.preventDefault();
      }}
      onDrop={(e) => {
        e.preventDefault();
        e.stopPropagation();
        onDrop(spot);
      }}
      onKeyDown={onKeyDown}
    >
      <div class="pages-line">
        <span class="pages-title">
          {writable && (
            <span class="grip" aria-hidden="true">
              ⠿{" "}
            </span>
          )}
          {label}
          {page && !page.enabled && <span class="badge">Disabled</span>}
          {page?.homepage && <span class="badge">Homepage</span>}
          {page?.passwordProtected && <span class="badge">Password</span>}
          {folder && <span class="badge">Folder</span>}
          {!page && <span class="badge">Link</span>}
          {page && <span class="hint"> {page.fullUrl}</span>}
          {inFrame && <span class="badge shown">In the preview</span>}
        </span>
        <span class="pages-actions">
          {writable && (
            <>
              <button type="button" data-control="up" disabled={!up} aria-label={`Move ${label} up`} aria-describedby="reorder-help" onClick={() => onMove(spot, -1, "up")}>
                ↑
              </button>
              <button type="button" data-control="down" disabled={!down} aria-label={`Move ${label} down`} aria-describedby="reorder-help" onClick={() => onMove(spot, 1, "down")}>
                ↓
              </button>
            </>
          )}
          {page ? (
            writable && (
              <button type="button" data-control="settings" aria-label={`Settings of ${label}`} onClick={() => onOpen({ kind: "page", spot })}>
                Settings
              </button>
            )
          ) : (
            writable && (
              <button type="button" data-control="settings" aria-label={`Edit link ${label}`} onClick={() => onOpen({ kind: "link", spot })}>
                Edit
              </button>
            )
          )}
          {page && !page.folder && page.typeName !== "products" && page.typeName !== "gallery" && (
            <RouteLink href={`/content/${page.id}`} aria-label={`Content of ${label}`}>
              Content
            </RouteLink>
          )}
          {page?.typeName === "gallery" && (
            <RouteLink href={`/galleries/${page.id}`} data-control="gallery" aria-label={`Edit gallery ${label}`}>
              Edit gallery
            </RouteLink>
          )}
          {page && page.enabled && !page.folder && (
            <>
              <button type="button" data-control="preview" aria-label={`Preview ${label} in the frame`} aria-pressed={inFrame} onClick={() => onShow(page.fullUrl)}>
                Preview
              </button>
              <a href={page.fullUrl} target="_blank" rel="noopener" aria-label={`View ${label} (opens in a new tab)`}>
                View
              </a>
            </>
          )}
        </span>
      </div>
      {folder && (
        <ul class="pages-list" aria-label={`In ${label}`}>
          {(link.items ?? []).map((child, i) => (
            <Row
              key={child.collectionId ?? `ext-${i}`}
              link={child}
              spot={{ ...spot, child: i }}
              areas={areas}
              pages={pages}
              writable={writable}
              dragging={dragging}
              onDrag={onDrag}
              onDrop={onDrop}
              onMove={onMove}
              onOpen={onOpen}
              shown={shown}
              onShow={onShow}
            />
          ))}
          {(link.items ?? []).length === 0 && <li class="empty">No pages in this folder.</li>}
          {writable && dragging && (
            <li
              class="drop-zone"
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => {
                e.preventDefault();
                e.stopPropagation();
                onDrop({ ...spot, child: (link.items ?? []).length });
              }}
            >
              Drop here to put it in {label}
            </li>
          )}
        </ul>
      )}
    </li>
  );
}

/** A checkbox with its label. */
/** A select with an error beside it. */
function Choice({ label, value, onValue, options, error }: { label: string; value: string; onValue: (v: string) => void; options: [string, string][]; error?: string }) {
  const id = useId();
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value)}
      >
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
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
  );
}

function AddPage({ data, areas, onClose, onDone }: { data: Pages; areas: Area[]; onClose: () => void; onDone: (p: SitePage) => void }) {
  const { me } = useSession();
  const types = data.types.filter((t) => t.type !== 13 || canWrite(me, "store"));
  const [type, setType] = useState(types[0]?.typeName ?? "page");
  const folder = types.find((t) => t.typeName === type)?.folder ?? false;
  const where = places(areas, data.pages, folder);
  const [place, setPlace] = useState(where[0]?.value ?? FREE);
  const [title, setTitle] = useState("");
  const [url, setUrl] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const [area, inFolder] = place.split("#");
    const body: Record<string, string> = { typeName: type };
    if (title.trim()) body.title = title;
    if (url.trim()) body.urlId = url;
    if (inFolder !== undefined) {
      const f = areas.find((a) => a.key === area)?.links[Number(inFolder)];
      if (f?.collectionId) body.folderId = f.collectionId;
    } else if (area !== FREE) body.navigation = area.slice(4);
    try {
      const p = await api<SitePage>("POST", "/api/owner/collections", body);
      onDone(p);
    } catch (e) {
      const err = e as ApiError;
      setErrors(err.fields);
      setError(err.message);
      setBusy(false);
    }
  };
  return (
    <Dialog title="Add a page" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorText message={error} />
        <Choice label="Type" value={type} onValue={setType} options={types.map((t) => [t.typeName, t.title])} error={errors.typeName} />
        <Field label="Title" value={title} onValue={setTitle} error={errors.title} hint="Leave empty for the type's usual title." />
        <Field label="URL" value={url} onValue={setUrl} error={errors.urlId} hint="Leave empty to make it from the title." />
        <Choice
          label="Where"
          value={where.some((w) => w.value === place) ? place : (where[0]?.value ?? FREE)}
          onValue={setPlace}
          options={where.map((w) => [w.value, w.label])}
          error={errors.navigation ?? errors.folderId}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Add page
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The fields the settings dialog shows its errors beside. */
const SETTINGS_FIELDS = ["title", "navigationTitle", "urlId", "enabled", "homepage", "password", "seoTitle", "seoDescription"];

/** The message to show above a form: the call's, or when no field of the form has an error,
 *  the first field error the server gave (one the form shows nowhere else). */
function unshown(err: ApiError, fields: string[]): string {
  const keys = Object.keys(err.fields);
  if (keys.length === 0 || keys.some((k) => fields.includes(k))) return err.message;
  return err.fields[keys[0]];
}

function PageSettings({
  data,
  areas,
  spot,
  onClose,
  onSaved,
  onDelete,
}: {
  data: Pages;
  areas: Area[];
  spot: Spot;
  onClose: () => void;
  onSaved: (next: Pages, said: string) => void;
  onDelete: (p: SitePage) => void;
}) {
  const link = linkAt(areas, spot)!;
  const page = pageOf(link, data.pages)!;
  const [title, setTitle] = useState(page.title);
  const [navTitle, setNavTitle] = useState(page.navigationTitle === page.title ? "" : page.navigationTitle);
  const [url, setUrl] = useState(page.urlId);
  const [enabled, setEnabled] = useState(page.enabled);
  const [homepage, setHomepage] = useState(page.homepage);
  const [password, setPassword] = useState("");
  const [removePassword, setRemovePassword] = useState(false);
  const [seoTitle, setSeoTitle] = useState(page.seoTitle);
  const [seoDescription, setSeoDescription] = useState(page.seoDescription);
  const where = places(areas, data.pages, page.folder);
  const [place, setPlace] = useState(placeOf(spot));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const patch: Record<string, unknown> = {};
    if (title !== page.title) patch.title = title;
    const ownNav = page.navigationTitle === page.title ? "" : page.navigationTitle;
    if (navTitle !== ownNav) patch.navigationTitle = navTitle.trim() ? navTitle : null;
    if (url !== page.urlId) patch.urlId = url;
    if (enabled !== page.enabled) patch.enabled = enabled;
    if (homepage !== page.homepage) patch.homepage = homepage;
    if (removePassword) patch.password = null;
    else if (password) patch.password = password;
    if (seoTitle !== page.seoTitle) patch.seoTitle = seoTitle;
    if (seoDescription !== page.seoDescription) patch.seoDescription = seoDescription;
    try {
      if (Object.keys(patch).length > 0) await api<SitePage>("PATCH", `/api/owner/collections/${encodeURIComponent(page.id)}`, patch);
      let next: Pages;
      if (place !== placeOf(spot)) {
        const to = endOf(areas, place);
        const after = move(areas, spot, to, data.pages);
        if (!after) throw new ApiError(400, "A folder cannot go inside another folder.");
        next = await api<Pages>("PATCH", PATH, arrangement(areas, after, data.templateId));
      } else {
        next = await api<Pages>("GET", PATH);
      }
      onSaved(next, `${title.trim() || page.title} saved.`);
    } catch (e) {
      const err = e as ApiError;
      setErrors(err.fields);
      setError(unshown(err, SETTINGS_FIELDS));
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Settings of ${page.title}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorText message={error} />
        <Field label="Title" value={title} onValue={setTitle} error={errors.title} />
        <Field label="Navigation title" value={navTitle} onValue={setNavTitle} error={errors.navigationTitle} hint="What navigations show. Leave empty to show the title." />
        <Field label="URL" value={url} onValue={setUrl} error={errors.urlId} hint={`The page's address: /${url.replace(/^\/+/, "")}`} />
        <Choice label="Where" value={place} onValue={setPlace} options={where.map((w) => [w.value, w.label])} />
        <Check label="Enabled" checked={enabled} onChange={setEnabled} hint="A disabled page is not on the site." disabled={page.homepage} />
        {errors.enabled && <ErrorText message={errors.enabled} />}
        {!page.folder && (
          <Check
            label="Homepage"
            checked={homepage}
            onChange={setHomepage}
            disabled={page.homepage}
            hint={page.homepage ? "To change the homepage, make another page the homepage." : "The page visitors see at /."}
          />
        )}
        {errors.homepage && <ErrorText message={errors.homepage} />}
        <fieldset>
          <legend>Page password</legend>
          <p class="hint">{page.passwordProtected ? "Visitors must enter a password to see this page." : "Anyone can see this page."}</p>
          <Field
            label={page.passwordProtected ? "New password" : "Password"}
            type="password"
            autoComplete="new-password"
            value={password}
            onValue={setPassword}
            error={errors.password}
            disabled={removePassword}
          />
          {page.passwordProtected && <Check label="Remove the password" checked={removePassword} onChange={setRemovePassword} />}
        </fieldset>
        <fieldset>
          <legend>Search engines</legend>
          <Field label="SEO title" value={seoTitle} onValue={setSeoTitle} error={errors.seoTitle} hint="The title in the browser and in search results. Leave empty to use the page's title." />
          <TextArea label="SEO description" value={seoDescription} onValue={setSeoDescription} error={errors.seoDescription} />
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Save
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          {!page.homepage && (
            <button type="button" class="danger" onClick={() => onDelete(page)}>
              Delete page
            </button>
          )}
        </div>
      </form>
    </Dialog>
  );
}

function DeletePage({ page, onClose, onDone }: { page: SitePage; onClose: () => void; onDone: () => void }) {
  const what = page.folder
    ? "The folder will be deleted; the pages in it stay, moved to where the folder was."
    : page.items > 0
      ? `The page and its ${page.items} ${page.items === 1 ? "item" : "items"} will be deleted and taken out of every navigation.`
      : "The page will be deleted and taken out of every navigation.";
  return (
    <Confirm title={`Delete ${page.title}?`} action="Delete" run={() => api("DELETE", `/api/owner/collections/${encodeURIComponent(page.id)}`)} onClose={onClose} onDone={onDone}>
      <p>{what} This cannot be undone.</p>
    </Confirm>
  );
}

function LinkDialog({
  data,
  areas,
  spot,
  onClose,
  onSaved,
}: {
  data: Pages;
  areas: Area[];
  spot?: Spot;
  onClose: () => void;
  onSaved: (next: Pages, said: string) => void;
}) {
  const link = spot ? linkAt(areas, spot) : undefined;
  const [title, setTitle] = useState(link?.title ?? "");
  const [url, setUrl] = useState(link?.externalLink?.url ?? "");
  const [newWindow, setNewWindow] = useState(link?.externalLink?.newWindow ?? false);
  const [area, setArea] = useState(link?.memberAreaId ?? "");
  const where = places(areas, data.pages, false).filter((p) => !p.value.startsWith(FREE));
  const [place, setPlace] = useState(spot ? placeOf(spot) : (where[0]?.value ?? ""));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (after: Area[], at: Spot | null, said: string) => {
    setBusy(true);
    setError(null);
    try {
      const next = await api<Pages>("PATCH", PATH, arrangement(areas, after, data.templateId));
      onSaved(next, said);
    } catch (e) {
      const err = e as ApiError;
      const mine = at ? linkErrors(err.fields, at) : {};
      setErrors(mine);
      setError(Object.keys(mine).length > 0 ? err.message : (Object.values(err.fields)[0] ?? err.message));
      setBusy(false);
    }
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const edited: Link = { title, externalLink: { url, newWindow } };
    if (area) edited.memberAreaId = area;
    if (spot && place === placeOf(spot)) {
      void run(replace(areas, spot, edited), spot, `${title} saved.`);
      return;
    }
    // A new link, or one moved: at the end of its new place.
    const [rest, to] = spot ? without(areas, spot, place) : [areas, place];
    const [after, at] = append(rest, to, edited);
    void run(after, at, spot ? `${title} saved.` : `${title} added.`);
  };
  const remove = () => {
    if (!spot) return;
    const [after] = without(areas, spot, placeOf(spot));
    void run(after, null, `${link?.title ?? "The link"} removed.`);
  };
  return (
    <Dialog title={spot ? `Link ${link?.title ?? ""}` : "Add a link"} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorText message={error} />
        {errors[""] && <ErrorText message={errors[""]} />}
        <Field label="Title" value={title} onValue={setTitle} error={errors.title} />
        <Field label="URL" value={url} onValue={setUrl} error={errors.externalLink} hint="A web address (www.example.com), a page of the site (/shop) or mailto:" />
        <Check label="Open in a new window" checked={newWindow} onChange={setNewWindow} />
        {data.memberAreas.length > 0 && (
          <Choice
            label="Member area"
            value={area}
            onValue={setArea}
            options={[["", "Everyone"], ...data.memberAreas.map((m): [string, string] => [m.id, m.title])]}
            error={errors.memberAreaId}
          />
        )}
        <Select label="Where" value={place} onValue={setPlace} options={where.map((w) => [w.value, w.label])} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {spot ? "Save link" : "Add link"}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          {spot && (
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              Remove link
            </button>
          )}
        </div>
      </form>
    </Dialog>
  );
}
