// The owner app's test bench: the shell's markup, a fake server that answers by method and
// path (recording what was sent), and the app rendered at a path under /config.
import { act, cleanup, configure, render, screen, waitFor } from "@testing-library/preact";
import { vi } from "vitest";
import { setCsrf } from "../../src/admin/api/client";
import type { Me } from "../../src/admin/api/types";
import { App } from "../../src/admin/app";
import { announce, resetNavigations } from "../../src/admin/ui/page";

// Each screen is a chunk the test loads on first use, which on a busy machine takes more
// than the default second.
configure({ asyncUtilTimeout: 5000 });

export interface Reply {
  status?: number;
  body?: unknown;
}
export type Handler = Reply | ((call: Sent) => Reply);

export interface Sent {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: any;
}

/** Installs a fetch answering `routes` ("METHOD /path", query ignored; a handler may look at
 *  it); anything else is a 404. Returns every call made. */
export function server(routes: Record<string, Handler>) {
  const calls: Sent[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const u = new URL(url, "http://shop.test");
      const sent: Sent = {
        method: init.method ?? "GET",
        url,
        path: u.pathname,
        query: u.searchParams,
        headers: (init.headers ?? {}) as Record<string, string>,
        body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      };
      calls.push(sent);
      const h = routes[`${sent.method} ${sent.path}`];
      const reply: Reply = h === undefined ? { status: 404, body: { message: "Not Found" } } : typeof h === "function" ? h(sent) : h;
      const status = reply.status ?? 200;
      return new Response(status === 204 ? null : JSON.stringify(reply.body ?? {}), {
        status,
        headers: { "Content-Type": "application/json" },
      });
    }),
  );
  return calls;
}

export const ALL_AREAS: Me["areas"] = {
  content: "write",
  design: "write",
  store: "write",
  orders: "write",
  forms: "write",
  analytics: "read",
  comments: "write",
  languages: "write",
  access: "write",
};

export function me(areas: Partial<Me["areas"]> = ALL_AREAS): Me {
  const none = Object.fromEntries(Object.keys(ALL_AREAS).map((k) => [k, null])) as Me["areas"];
  return {
    account: { id: "a1", email: "owner@loam.example", role: 1, roleName: "Administrator" },
    csrf: "csrf-123",
    site: { identifier: "loam-lantern", title: "Loam & Lantern", currency: "EUR" },
    areas: { ...none, ...areas },
  };
}

/** Renders the app at `path` (under /config), in the shell the server serves. */
export function open(path: string) {
  cleanup();
  resetNavigations();
  announce("");
  setCsrf(null);
  document.body.innerHTML = "";
  const root = document.createElement("div");
  root.id = "app";
  root.dataset.siteTitle = "Loam & Lantern";
  document.body.appendChild(root);
  window.history.replaceState(null, "", path);
  return render(<App />, { container: root });
}

/** Waits for the screen's h1 to read `name`. */
export async function heading(name: string | RegExp) {
  return await screen.findByRole("heading", { level: 1, name }, { timeout: 3000 });
}

export const money = (minor: number, currency = "EUR") => ({
  minor,
  currency,
  formatted: `€${(minor / 100).toFixed(2)}`,
});

/** Picks `value` in the select labelled `label`, as a browser does (input, then change). */
export function choose(label: string, value: string) {
  const select = screen.getByLabelText(label) as HTMLSelectElement;
  act(() => {
    select.value = value;
    select.dispatchEvent(new Event("input", { bubbles: true }));
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

export { screen, waitFor };
