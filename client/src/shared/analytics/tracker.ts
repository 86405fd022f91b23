// The newer tracker (SPEC.md §7 "Notes on the calls", §8 "Tracking"): an event of a named
// schema with the fields every event carries filled in, sent by beacon (form-encoded) when
// the browser has one, else by a call; 200 and 202 are success, anything else rejects with
// "Error tracking event: HTTP Status {code}" (and a warning).

import { analyticsId, resolvedLocale, sessionId } from "./session";

export const EVENTS_PATH = "/api/v1/clanker/events";
export const VALIDATE_PATH = "/api/v1/clanker/validate-event-content/";
export const NO_PAYLOAD = "no payload";
export const overwritten = (field: string) => `Auto-populated field overwritten: ${field}`;
export const httpError = (status: number) => `Error tracking event: HTTP Status ${status}`;

export interface TrackOptions {
  /** The member's account id and locale, when signed in. */
  memberAccountId?: string | null;
  memberLocale?: string | null;
  websiteLocale?: string | null;
  /** Send by a call even when a beacon is there (the validate mode does). */
  noBeacon?: boolean;
  /** Check the event against its schema without storing it. */
  validate?: boolean;
}

/** The fields every event carries (SPEC.md §3 "Analytics payloads", the newer event). */
export function autoFields(schema: string, o: TrackOptions = {}, now: number = Date.now()): Record<string, unknown> {
  const loc = window.location;
  return {
    analytics_id: analyticsId(now),
    session_id: sessionId(now),
    browser_language: navigator.language,
    browser_locale: navigator.languages?.[0] ?? navigator.language,
    browser_window_height: window.innerHeight,
    browser_window_width: window.innerWidth,
    page_host: loc.host,
    page_path: loc.pathname,
    page_query_params: loc.search.replace(/^\?/, ""),
    page_referrer_url: document.referrer,
    user_agent: navigator.userAgent,
    event_occurrence_timestamp: now,
    custom_schema_name: schema,
    source_environment: "prod",
    member_account_id: o.memberAccountId ?? null,
    member_account_locale: o.memberLocale ?? null,
    website_locale: o.websiteLocale ?? null,
    resolved_locale: resolvedLocale(o.memberLocale ?? o.websiteLocale),
  };
}

/** Sends one event. */
export async function track(schema: string, content: Record<string, unknown> | null | undefined, o: TrackOptions = {}): Promise<void> {
  if (!schema || !content) throw new Error(NO_PAYLOAD);
  const auto = autoFields(schema, o);
  for (const key of Object.keys(content)) {
    if (key in auto) console.warn(overwritten(key));
  }
  const eventContent = JSON.stringify({ ...auto, ...content });
  const path = o.validate ? VALIDATE_PATH + encodeURIComponent(schema) : EVENTS_PATH;
  if (!o.noBeacon && !o.validate && typeof navigator.sendBeacon === "function") {
    const form = new URLSearchParams({ eventSchemaName: schema, eventContent });
    if (navigator.sendBeacon(path, form)) return;
    // The browser would not queue it (too large, or a full queue): send it by a call.
  }
  let status: number;
  try {
    const r = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "same-origin",
      keepalive: true,
      body: JSON.stringify({ eventSchemaName: schema, eventContent }),
    });
    status = r.status;
  } catch {
    status = 0;
  }
  if (status !== 200 && status !== 202) {
    const message = httpError(status);
    console.warn(message);
    throw new Error(message);
  }
}
