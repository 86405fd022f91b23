// The live site in a frame, for every panel that builds the site (Design, Pages …).
//
// The owner's app is served at /config on the site's own host, so the frame is the same
// origin: the panel can read the page shown and restyle it (the site's pages allow framing
// by the site itself only, `frame-ancestors 'self'`; the app's shell allows frames of the
// site only, `frame-src 'self'`). The API, kept small:
//
//   <SiteFrame
//     path="/shop"                  the page to show; a change loads it (unless shown already)
//     onNavigate={(path) => …}      the page shown changed (a link clicked inside, a form)
//     onLoad={(doc) => …}           each page loaded: a panel re-applies its preview to it
//     reload={n}                    a new number reloads the page (after a save)
//     previews={[{label, path}]}    the editor page kinds (SPEC.md §2) to offer, null path:
//                                   the site has none
//     title="…"                     the frame's accessible name ("Site preview")
//   />
//
// Device views (SPEC.md §2: desktop, phone, tablet) resize the frame: Desktop fills the
// pane, Tablet is 768 px wide, Phone 390 px (under SPEC.md §9's mobile breakpoint, max
// width 432 px, so templates' phone styles apply). Inside the frame a click on a link of
// the site (the floating cart pill's included, SPEC.md §2) sets the frame's URL, whatever
// target the link names, so nothing leaves the editor; a link to another site opens in a
// new tab; a link into /config does nothing (the app is not nested in itself).
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks";

export type Device = "desktop" | "tablet" | "phone";

/** The device views: their names as SPEC.md §2 lists them, and frame widths (null: the
 *  pane's whole width). */
export const DEVICES: { id: Device; name: string; width: number | null }[] = [
  { id: "desktop", name: "Desktop", width: null },
  { id: "tablet", name: "Tablet", width: 768 },
  { id: "phone", name: "Phone", width: 390 },
];

/** SPEC.md §9: the mobile breakpoint's largest width. */
export const MOBILE_MAX = 432;

export interface PreviewPage {
  label: string;
  /** Null (or absent): the site has none. */
  path?: string | null;
}

/** What a click on `a` inside the frame (whose origin is `origin`) should do:
 *  - `frame`: load `path` in the frame (a link of the site, whatever its target);
 *  - `outside`: open `href` in a new tab (another site);
 *  - `none`: nothing (a link into the owner's app);
 *  - `default`: leave it to the browser (no link, or one the page handles itself). */
export function linkAction(
  a: HTMLAnchorElement | null,
  origin: string,
): { kind: "frame"; path: string } | { kind: "outside"; href: string } | { kind: "none" } | { kind: "default" } {
  if (!a || !a.getAttribute("href") || a.hasAttribute("download")) return { kind: "default" };
  let url: URL;
  try {
    url = new URL(a.href, origin);
  } catch {
    return { kind: "default" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { kind: "default" };
  if (url.origin !== origin) return { kind: "outside", href: url.href };
  if (url.pathname === "/config" || url.pathname.startsWith("/config/")) return { kind: "none" };
  // A link to a place on the same page is the page's own business.
  const here = a.ownerDocument.defaultView?.location;
  if (url.hash && here && url.pathname === here.pathname && url.search === here.search) return { kind: "default" };
  return { kind: "frame", path: url.pathname + url.search + url.hash };
}

/** The frame's document, when it is the site's (same origin) and loaded. */
function frameDocument(frame: HTMLIFrameElement | null): Document | null {
  try {
    return frame?.contentDocument ?? null;
  } catch {
    return null;
  }
}

export function SiteFrame({
  path,
  onNavigate,
  onLoad,
  reload = 0,
  previews = [],
  title = "Site preview",
}: {
  path: string;
  onNavigate?: (path: string) => void;
  onLoad?: (doc: Document) => void;
  reload?: number;
  previews?: PreviewPage[];
  title?: string;
}) {
  const id = useId();
  const frame = useRef<HTMLIFrameElement>(null);
  const [device, setDevice] = useState<Device>("desktop");
  // The page the frame shows now (as it reported it), so a `path` that only follows the
  // frame does not load it again.
  const shown = useRef<string | null>(null);
  const callbacks = useRef({ onNavigate, onLoad });
  callbacks.current = { onNavigate, onLoad };

  const go = useCallback((to: string) => {
    const win = frame.current?.contentWindow;
    if (win) {
      try {
        win.location.assign(to);
        return;
      } catch {
        // Not the site's page (yet): set the source instead.
      }
    }
    if (frame.current) frame.current.src = to;
  }, []);

  // The first page is the frame's `src`; later paths load unless the frame shows them.
  const first = useRef(path);
  const mounted = useRef(false);
  useEffect(() => {
    if (!mounted.current) {
      mounted.current = true;
      return;
    }
    if (path !== shown.current) go(path);
  }, [path, go]);

  // A reload with a new path in the same render is the new page's load (which is fresh):
  // reloading as well would cancel it and reload the old page.
  const wanted = useRef(path);
  wanted.current = path;
  useEffect(() => {
    if (reload > 0 && wanted.current === shown.current) frame.current?.contentWindow?.location.reload();
  }, [reload]);

  const loaded = useCallback(() => {
    const doc = frameDocument(frame.current);
    if (!doc || !doc.defaultView) return;
    const win = doc.defaultView;
    const at = win.location.pathname + win.location.search + win.location.hash;
    shown.current = at;
    win.addEventListener("click", (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const target = e.target as Element | null;
      const a = target?.closest?.("a") as HTMLAnchorElement | null;
      const act = linkAction(a, win.location.origin);
      if (act.kind === "default") return;
      e.preventDefault();
      if (act.kind === "frame") win.location.assign(act.path);
      else if (act.kind === "outside") window.open(act.href, "_blank", "noopener");
    });
    callbacks.current.onLoad?.(doc);
    callbacks.current.onNavigate?.(at);
  }, []);

  const width = DEVICES.find((d) => d.id === device)?.width ?? null;
  return (
    <section class="site-frame" aria-label={title}>
      <div class="site-frame-bar">
        <div role="group" aria-label="Device view" class="segmented">
          {DEVICES.map((d) => (
            <button key={d.id} type="button" aria-pressed={device === d.id} onClick={() => setDevice(d.id)}>
              {d.name}
            </button>
          ))}
        </div>
        {previews.length > 0 && (
          <span class="site-frame-preview">
            <label for={`${id}-kind`}>Page kind to preview</label>{" "}
            <select
              id={`${id}-kind`}
              value=""
              onChange={(e) => {
                const to = (e.currentTarget as HTMLSelectElement).value;
                (e.currentTarget as HTMLSelectElement).value = "";
                if (to) go(to);
              }}
            >
              <option value="">Choose…</option>
              {previews.map((p) => (
                <option key={p.label} value={p.path ?? ""} disabled={!p.path}>
                  {p.path ? p.label : `${p.label} (this site has none)`}
                </option>
              ))}
            </select>
          </span>
        )}
      </div>
      <div class="site-frame-stage">
        <iframe
          ref={frame}
          title={title}
          src={first.current}
          onLoad={loaded}
          data-device={device}
          style={width ? { width: `${width}px` } : { width: "100%" }}
        />
      </div>
    </section>
  );
}

/** The stylesheet a panel previews, per frame document. */
const previewSheets = new WeakMap<Document, CSSStyleSheet | HTMLStyleElement>();

/** Shows `css` in place of the site's stylesheet (`/site.css`) in `doc`, and changes the
 *  body's classes; `css` null leaves the stylesheet as it is. Constructed stylesheets are
 *  styles set through the CSSOM, which the site's policy (no inline style) allows. */
export function previewStyles(doc: Document, css: string | null, add: string[] = [], remove: string[] = []) {
  if (css !== null) {
    for (const link of doc.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')) {
      const href = link.getAttribute("href") ?? "";
      let path = href.split(/[?#]/)[0];
      try {
        path = new URL(href, doc.location?.href).pathname;
      } catch {
        // A document without an address (the unit tests'): the attribute as written.
      }
      if (path === "/site.css") link.disabled = true;
    }
    const win = doc.defaultView as (Window & typeof globalThis) | null;
    const old = previewSheets.get(doc);
    if (win && "adoptedStyleSheets" in doc && typeof win.CSSStyleSheet?.prototype.replaceSync === "function") {
      const sheet = old instanceof win.CSSStyleSheet ? old : new win.CSSStyleSheet();
      sheet.replaceSync(css);
      if (!doc.adoptedStyleSheets.includes(sheet)) doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
      previewSheets.set(doc, sheet);
    } else {
      // Without constructed stylesheets (the unit tests' DOM).
      const el = old && "textContent" in old ? (old as HTMLStyleElement) : doc.createElement("style");
      el.textContent = css;
      if (!el.isConnected) doc.head.appendChild(el);
      previewSheets.set(doc, el);
    }
  }
  doc.body?.classList.remove(...remove);
  doc.body?.classList.add(...add);
}
