// Test helpers: a page of markup, a fake fetch that answers in turn, and the page data.

import { act } from "preact/test-utils";
import { vi } from "vitest";
import { resetCart } from "../src/shared/cart";
import { resetPageData } from "../src/shared/page";

/** Replaces the document body (and the page data the server would embed). */
export function page(html: string, data: Record<string, unknown> = {}) {
  resetPageData();
  resetCart();
  document.body.innerHTML =
    `<script type="application/json" id="tessera-data">${JSON.stringify({
      currency: "EUR",
      locale: "en-US",
      expressCheckout: false,
      cart: null,
      ...data,
    })}</script>` + html;
}

export interface Answer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Fail as a network error would. */
  network?: boolean;
  /** Answer only once this settles (to see what shows while a call is under way). */
  wait?: Promise<unknown>;
}

/** Installs a fetch that gives `answers` in order and records the calls. */
export function fakeFetch(...answers: Answer[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fn = vi.fn(async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const a = answers.shift() ?? { status: 500, body: { message: "no answer left" } };
    if (a.network) throw new TypeError("Failed to fetch");
    return new Response(JSON.stringify(a.body ?? {}), {
      status: a.status ?? 200,
      headers: { "Content-Type": "application/json", ...(a.headers ?? {}) },
    });
  });
  vi.stubGlobal("fetch", fn);
  return calls;
}

/** Lets pending promises, renders and effects run. */
export async function settle() {
  await act(async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
  });
}

export function cookie(value: string) {
  // jsdom keeps document.cookie like a browser.
  document.cookie = value;
}

/** Installs a fetch that answers by "METHOD /path" (the path without its query), each route's
 *  answers in turn (the last one again once they run out), and records the calls. For
 *  islands whose calls' order depends on the visitor (a captcha fetched on focus). */
export function routeFetch(routes: Record<string, Answer | Answer[]>) {
  const calls: { method: string; path: string; body: any; headers: Record<string, string> }[] = [];
  const queues = new Map(Object.entries(routes).map(([k, v]) => [k, Array.isArray(v) ? [...v] : [v]]));
  const fn = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    const path = url.split("?")[0];
    calls.push({ method, path, body: init.body ? JSON.parse(String(init.body)) : undefined, headers: (init.headers ?? {}) as Record<string, string> });
    const queue = queues.get(`${method} ${path}`);
    const a = (queue && queue.length > 1 ? queue.shift() : queue?.[0]) ?? { status: 500, body: { message: `no route ${method} ${path}` } };
    if (a.wait) await a.wait;
    if (a.network) throw new TypeError("Failed to fetch");
    return new Response(JSON.stringify(a.body ?? {}), {
      status: a.status ?? 200,
      headers: { "Content-Type": "application/json", ...(a.headers ?? {}) },
    });
  });
  vi.stubGlobal("fetch", fn);
  return {
    calls,
    /** The calls to one route. */
    to: (route: string) => calls.filter((c) => `${c.method} ${c.path}` === route),
    /** Replaces a route's answers. */
    set: (route: string, answers: Answer | Answer[]) => queues.set(route, Array.isArray(answers) ? [...answers] : [answers]),
  };
}

/** Lets work settle until `done()` holds (dynamic imports and timers need a few rounds). */
export async function until(done: () => boolean, what = "the condition", rounds = 200) {
  for (let i = 0; i < rounds; i++) {
    if (done()) return;
    await settle();
  }
  throw new Error(`never saw ${what}`);
}

/** The `SiteUserInfo` cookie of a signed-in member ("u1"), or its removal. */
export const signedIn = () => cookie(`SiteUserInfo=${encodeURIComponent(JSON.stringify({ authenticated: true, siteUserId: "u1" }))}; path=/`);
export const signedOut = () => cookie("SiteUserInfo=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/");

/** The one element `selector` finds (the test fails on a missing one when it uses it). */
export const $ = <T extends Element = HTMLElement>(selector: string) => document.querySelector<T>(selector)!;
export const click = (selector: string) => $(selector).dispatchEvent(new MouseEvent("click", { bubbles: true }));
/** Submits the page's (first) form as a press of its button would. */
export const submit = () => $("form").dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
