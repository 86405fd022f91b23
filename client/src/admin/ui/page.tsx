// What every screen shows the same way: its heading (which takes the focus after a
// navigation, and names the document), loading and error states, the live region.
import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";

let navigations = 0;
/** Counts a navigation (the app calls this when the path changes after the first). */
export function navigated() {
  navigations++;
}
/** For tests: back to a first load. */
export function resetNavigations() {
  navigations = 0;
}

/** The site's title, from the shell (`data-site-title`) until someone signs in. */
export function siteTitle(): string {
  return document.getElementById("app")?.dataset.siteTitle ?? "";
}

/** The screen's h1; focused after a navigation, so screen readers start there. */
export function Heading({ children, title }: { children: ComponentChildren; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const site = siteTitle();
    document.title = site ? `${title} · ${site}` : title;
    if (navigations > 0) ref.current?.focus();
  }, [title]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

// The live region's text: results of actions ("Order marked as paid.").
let said = "";
const listeners = new Set<(s: string) => void>();
/** Says `text` in the app's live region (a polite status). */
export function announce(text: string) {
  said = text;
  for (const l of listeners) l(text);
}

export function LiveRegion() {
  const [text, setText] = useState(said);
  useEffect(() => {
    listeners.add(setText);
    return () => void listeners.delete(setText);
  }, []);
  return (
    <div role="status" aria-live="polite" class="visually-hidden" data-testid="live">
      {text}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** A failure shown to the owner (an alert: it is read at once). */
export function ErrorText({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      <span aria-hidden="true">⚠ </span>
      {message}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}
