// The analytics session (SPEC.md §4 "Other", §9 "Tracking"): an analytics id kept 390 days
// with its expiration, a first-session flag and a has-landed flag in browser storage, and a
// session id made on demand that lasts while the visitor keeps coming back within 30
// minutes.

import { read, write } from "./storage";

export const KEYS = {
  analyticsId: "ss_analytics_id",
  analyticsExpiration: "ss_analytics_expiration",
  firstSession: "ss_first_session",
  hasLanded: "ss_has_landed",
  sessionId: "ss_session_id",
} as const;

const DAY = 24 * 3600 * 1000;
/** SPEC.md §9: the analytics cookie lives 390 days. */
export const ANALYTICS_TTL = 390 * DAY;
/** SPEC.md §9: a session cookie lasts 30 minutes. */
export const SESSION_TTL = 30 * 60 * 1000;
/** SPEC.md §9: a visitor cookie lasts two years. */
export const VISITOR_TTL = 730 * DAY;

export const STORE_ID_WARNING = "Unable to store analyticsId";

function randomId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The visitor's analytics id, made on the first visit and kept 390 days. */
export function analyticsId(now: number = Date.now()): string {
  const kept = read(KEYS.analyticsId, now);
  if (kept) return kept;
  const id = randomId();
  const ok = write(KEYS.analyticsId, id, ANALYTICS_TTL, now) && write(KEYS.analyticsExpiration, String(now + ANALYTICS_TTL), ANALYTICS_TTL, now);
  if (!ok) console.warn(STORE_ID_WARNING);
  return id;
}

/** This page's place in the visit: whether it is the visitor's first landing on the site,
 *  and whether it is in their first session (which, like any session, lasts while they
 *  come back within 30 minutes). Asking marks the landing as seen. */
export function landing(now: number = Date.now()): { firstLanding: boolean; firstSession: boolean } {
  const firstLanding = read(KEYS.hasLanded, now) === null;
  if (firstLanding) {
    write(KEYS.hasLanded, "1", VISITOR_TTL, now);
    write(KEYS.firstSession, "1", SESSION_TTL, now);
  }
  const firstSession = read(KEYS.firstSession, now) === "1";
  if (firstSession) write(KEYS.firstSession, "1", SESSION_TTL, now);
  return { firstLanding, firstSession };
}

/** The session id, made on demand; each use keeps it 30 more minutes. */
export function sessionId(now: number = Date.now()): string {
  const id = read(KEYS.sessionId, now) ?? randomId();
  write(KEYS.sessionId, id, SESSION_TTL, now);
  return id;
}

/** The locale events carry: the one given (a member's), else the document's language, else
 *  en-US. */
export function resolvedLocale(given: string | null | undefined, doc: Document = document): string {
  if (given && given.trim()) return given.trim();
  const lang = doc.documentElement.lang?.trim();
  return lang || "en-US";
}
