// Values kept across pages with an expiry (SPEC.md §9 "Tracking": stored session data may
// carry an expiry and is removed once expired; local storage with a cookie fallback).

export interface Stored {
  value: string;
  /** Epoch ms after which the value is gone; null: kept. */
  expires: number | null;
}

export const STORAGE_WARNING = "Unable access local/session storage.";

function local(): Storage | null {
  try {
    const s = window.localStorage;
    const probe = "__tessera_probe__";
    s.setItem(probe, probe);
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

function readCookie(key: string): string | null {
  for (const pair of document.cookie.split(";")) {
    const [k, ...v] = pair.trim().split("=");
    if (k === key) return decodeURIComponent(v.join("="));
  }
  return null;
}

/** The value under `key`, unless it expired (then it is removed). */
export function read(key: string, now: number = Date.now()): string | null {
  const s = local();
  const raw = s ? s.getItem(key) : readCookie(key);
  if (raw === null) return null;
  let stored: Stored;
  try {
    stored = JSON.parse(raw);
  } catch {
    remove(key);
    return null;
  }
  if (!stored || typeof stored.value !== "string") return null;
  if (stored.expires !== null && stored.expires <= now) {
    remove(key);
    return null;
  }
  return stored.value;
}

/** Keeps `value` under `key` for `ttlMs` (null: without expiry). `false` when neither local
 *  storage nor cookies would take it (a warning says so). */
export function write(key: string, value: string, ttlMs: number | null, now: number = Date.now()): boolean {
  const stored: Stored = { value, expires: ttlMs === null ? null : now + ttlMs };
  const text = JSON.stringify(stored);
  const s = local();
  if (s) {
    try {
      s.setItem(key, text);
      return true;
    } catch {
      // Full or refused: try the cookie.
    }
  }
  const maxAge = ttlMs === null ? "" : `; max-age=${Math.max(1, Math.round(ttlMs / 1000))}`;
  document.cookie = `${key}=${encodeURIComponent(text)}; path=/${maxAge}; SameSite=Lax`;
  if (readCookie(key) === text) return true;
  console.warn(STORAGE_WARNING);
  return false;
}

export function remove(key: string) {
  try {
    window.localStorage.removeItem(key);
  } catch {
    // Nothing to remove from.
  }
  document.cookie = `${key}=; path=/; max-age=0`;
}
