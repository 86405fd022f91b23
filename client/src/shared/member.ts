// Who is signed in, and the calls a member makes (SPEC.md §6 "Site users", §7 the account
// calls). `SiteUserInfo` says whether a member is signed in; one that does not parse means
// signed out. A member's writes carry the session's XSRF token in `X-XSRF-Token`: kept in
// session storage from the sign-in, or asked of `GET /api/site-users/account` when the
// member signed in by an emailed link.

import { ApiError, call } from "./api";
import type { Schemas } from "./types";

export const ACCOUNT = "/api/site-users/account";
export const SESSION = "/api/site-users/account/session";
export const MEMBER_AREAS = "/api/site-users/account/member-areas";
const XSRF_KEY = "tessera-xsrf";

export interface SiteUserInfo {
  authenticated: boolean;
  siteUserId: string | null;
}

const SIGNED_OUT: SiteUserInfo = { authenticated: false, siteUserId: null };

/** The `SiteUserInfo` cookie read: signed out when it is missing or does not parse. */
export function siteUserInfo(cookies: string = document.cookie): SiteUserInfo {
  for (const pair of cookies.split(";")) {
    const [k, ...v] = pair.trim().split("=");
    if (k !== "SiteUserInfo") continue;
    try {
      const info = JSON.parse(decodeURIComponent(v.join("=")));
      if (info && info.authenticated === true && typeof info.siteUserId === "string") {
        return { authenticated: true, siteUserId: info.siteUserId };
      }
    } catch {
      // A cookie that does not parse is a signed-out visitor.
    }
    return SIGNED_OUT;
  }
  return SIGNED_OUT;
}

function stored(): string | null {
  try {
    return sessionStorage.getItem(XSRF_KEY);
  } catch {
    return null;
  }
}

function store(token: string | null) {
  try {
    if (token) sessionStorage.setItem(XSRF_KEY, token);
    else sessionStorage.removeItem(XSRF_KEY);
  } catch {
    // Storage refused (private mode): the token is asked for again when needed.
  }
}

/** The session's XSRF token. */
export async function xsrfToken(): Promise<string> {
  const kept = stored();
  if (kept) return kept;
  const account = await call<Schemas["MemberAccount"]>("GET", ACCOUNT);
  store(account.xsrfToken);
  return account.xsrfToken;
}

/** A call that may meet a crumb failure (the visitor's cookies cleared): a page view
 *  gives a new crumb, then it is tried once more. */
async function retryingCrumb<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (e) {
    if (!(e instanceof ApiError) || !e.crumbFail) throw e;
    await fetch("/", { credentials: "same-origin" }).catch(() => undefined);
    return send();
  }
}

/** A member's write: the crumb and the XSRF token. */
export async function memberCall<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const token = await xsrfToken();
  return call<T>(method, path, body, { "X-XSRF-Token": token });
}

export async function signIn(email: string, password: string, rememberMe: boolean): Promise<void> {
  const r = await call<Schemas["MemberSignedIn"]>("POST", SESSION, { email, password, rememberMe });
  store(r.xsrfToken);
}

/** Signs out; with `cloneCart` this device keeps a copy of the cart. Retries once on a
 *  crumb failure. */
export async function signOut(cloneCart: boolean): Promise<void> {
  await retryingCrumb(() => memberCall("DELETE", `${SESSION}?cloneCart=${cloneCart}`));
  store(null);
}

export async function signUp(fields: {
  email: string;
  password: string;
  displayName?: string;
  memberAreaId?: string;
  redirect?: string;
}): Promise<string | null> {
  const r = await call<Schemas["VerificationSent"]>("POST", ACCOUNT, fields);
  return typeof r.message === "string" ? r.message : null;
}

export async function joinArea(memberAreaId: string): Promise<string[]> {
  const r = await memberCall<Schemas["MemberAreas"]>("POST", MEMBER_AREAS, { memberAreaId });
  return r.memberAreas;
}
