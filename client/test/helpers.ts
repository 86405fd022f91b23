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
