// The app's one way to call the owner routes: JSON in and out, the session cookie (same
// origin), the session's CSRF token in `X-CSRF-Token` on every write, and one shape for a
// failure — `{"errors": {field: message}}` becomes field errors, `{"message"}` the text shown.

/** A call that did not succeed. */
export class ApiError extends Error {
  constructor(
    /** The HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    message: string,
    /** Field → message, from `{"errors": …}`. */
    readonly fields: Record<string, string> = {},
    /** The answer's JSON as sent (a refused template's `findings`, say). */
    readonly body: any = null,
  ) {
    super(message);
  }
}

export const NETWORK_ERROR = "The server could not be reached. Check your connection and try again.";
export const FIELDS_ERROR = "Please correct the fields marked below.";
export const SIGNED_OUT = "Your session has ended. Please sign in again.";

let csrf: string | null = null;
let onSignedOut: (() => void) | null = null;

/** The session's CSRF token (from `Me.csrf`), sent with every write. */
export function setCsrf(token: string | null) {
  csrf = token;
}

/** What to do when a call other than the session's own answers 401 (the session ended). */
export function whenSignedOut(f: (() => void) | null) {
  onSignedOut = f;
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Sends `method path` with `body` as JSON; resolves with the JSON answer (null for 204),
 *  rejects with an [`ApiError`]. */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  return send<T>(method, path, body === undefined ? undefined : JSON.stringify(body), body === undefined ? undefined : "application/json");
}

/** `POST path` with a file's bytes as the body (an upload); answers as [`api`] does. */
export function upload<T = unknown>(path: string, file: Blob): Promise<T> {
  return send<T>("POST", path, file, "application/octet-stream");
}

async function send<T>(method: string, path: string, body: BodyInit | undefined, contentType: string | undefined): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (contentType) headers["Content-Type"] = contentType;
  if (csrf && WRITES.has(method)) headers["X-CSRF-Token"] = csrf;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, credentials: "same-origin", body });
  } catch {
    throw new ApiError(0, NETWORK_ERROR);
  }
  if (response.status === 204) return null as T;
  let json: any = null;
  try {
    json = await response.json();
  } catch {
    json = null;
  }
  if (response.ok) return json as T;
  if (response.status === 401 && !path.startsWith("/api/owner/session") && onSignedOut) onSignedOut();
  const fields: Record<string, string> =
    json && typeof json.errors === "object" && json.errors !== null ? json.errors : {};
  const message =
    json && typeof json.message === "string" && json.message
      ? json.message
      : Object.keys(fields).length > 0
        ? FIELDS_ERROR
        : response.status === 401
          ? SIGNED_OUT
          : `Something went wrong (HTTP ${response.status}). Please try again.`;
  throw new ApiError(response.status, message, fields, json);
}

export const get = <T>(path: string) => api<T>("GET", path);
export const post = <T>(path: string, body?: unknown) => api<T>("POST", path, body ?? {});

/** `path?k=v…` with the set, non-empty values only. */
export function withQuery(path: string, params: Record<string, string | number | boolean | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "" || v === false) continue;
    q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
