// Calls to the store's API: JSON in and out, the crumb in `X-CSRF-Token`, and one way to
// turn a failure into what the visitor reads (SPEC.md §8 "Add to cart").

import * as m from "./messages";
import type { ErrorBody } from "./types";

/** A call that did not succeed. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The answer's JSON: the `Error` shape, with the keys some answers add. */
    readonly body: Partial<ErrorBody> & Record<string, any> = {},
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }

  get crumbFail(): boolean {
    return this.body.crumbFail === true;
  }

  /** Field problems (`errors`: field → message). */
  get errors(): Record<string, string> {
    return this.body.errors ?? {};
  }
}

/** The crumb cookie's value (set on page views). */
export function crumb(): string | null {
  for (const pair of document.cookie.split(";")) {
    const [k, ...v] = pair.trim().split("=");
    if (k === "crumb") return v.join("=");
  }
  return null;
}

/** Sends a call; resolves with the JSON answer, rejects with an [`ApiError`]. A network
 *  failure is status 0 with "Please check your internet connection.". `extra` headers go
 *  with it (a member's `X-XSRF-Token`). */
export async function call<T = any>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json", ...extra };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = crumb();
  if (token && method !== "GET") headers["X-CSRF-Token"] = token;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, m.CHECK_CONNECTION);
  }
  let json: Record<string, any> = {};
  try {
    json = await response.json();
  } catch {
    json = {};
  }
  if (!response.ok) {
    const retry = Number(response.headers.get("Retry-After"));
    throw new ApiError(
      response.status,
      typeof json.message === "string" ? json.message : m.PLEASE_TRY_AGAIN,
      json,
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
  }
  return json as T;
}

/** What the visitor reads about a failed call: the crumb messages (cookies on or off),
 *  SPEC's 429 text, otherwise the server's message. */
export function failureText(e: unknown, cookiesEnabled = navigator.cookieEnabled): string {
  if (e instanceof ApiError) {
    if (e.crumbFail) return cookiesEnabled ? m.SESSION_EXPIRED : m.ENABLE_COOKIES;
    if (e.status === 429) return m.TRY_AGAIN_SOON;
    return e.message || m.PLEASE_TRY_AGAIN;
  }
  return m.PLEASE_TRY_AGAIN;
}
