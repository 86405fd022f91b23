// Experiments (SPEC.md §3 "Analytics payloads", §4 "Other"): a page's assignments count
// only when ACTIVE; overrides come from query parameters, only on internal sites (or when
// an internal check allows), are kept for the session, and "reset" clears them.
//
// An override is `?experimentOverride=<name>:<variant>` (repeatable);
// `?experimentOverride=reset` clears them all.

export const PARAM = "experimentOverride";
export const STORAGE_KEY = "tessera-experiment-overrides";
export const RESET = "reset";

export interface Assignment {
  name: string;
  variant: string;
  status: string;
}

/** The assignments that count. */
export function activeAssignments(all: Assignment[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of all) if (a.status === "ACTIVE") out[a.name] = a.variant;
  return out;
}

function load(storage: Storage): Record<string, string> {
  try {
    const v = JSON.parse(storage.getItem(STORAGE_KEY) ?? "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** The overrides for this page: those of the query (when `allowed`) merged into the ones
 *  kept for the session, which then keeps the result. */
export function overrides(search: string, allowed: boolean, storage: Storage = sessionStorage): Record<string, string> {
  let kept = load(storage);
  if (!allowed) return {};
  for (const value of new URLSearchParams(search).getAll(PARAM)) {
    if (value === RESET) {
      kept = {};
      continue;
    }
    const at = value.indexOf(":");
    if (at > 0 && at < value.length - 1) kept[value.slice(0, at)] = value.slice(at + 1);
  }
  try {
    if (Object.keys(kept).length === 0) storage.removeItem(STORAGE_KEY);
    else storage.setItem(STORAGE_KEY, JSON.stringify(kept));
  } catch {
    // Storage refused: the overrides hold for this page only.
  }
  return kept;
}

/** What a page runs with: the active assignments, overridden. */
export function variants(all: Assignment[], overridden: Record<string, string>): Record<string, string> {
  return { ...activeAssignments(all), ...overridden };
}
