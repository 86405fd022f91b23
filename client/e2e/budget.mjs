// The JavaScript budget, measured from what Chromium actually fetches: every product page
// of every demo store loads at most 20 KB of gzipped JavaScript (with an empty cart, and with
// a cart, which brings the cart pill or widget), no render-blocking script, and a page with
// no island markup and no cart loads no script at all.
//
// The owner's app at /config has a budget of its own: its first screen (signed out, the
// sign-in form) loads at most 120 KB of gzipped JavaScript — the entry and the chunks the
// sign-in screen needs — and none of it is the storefront's (nor is the app's on the
// storefront's pages).
//
// usage: node e2e/budget.mjs [--tessera BIN] [--fixtures DIR] [--chromium PATH]
// Prints each page's script bytes (compressed, as sent) and exits 1 on any breach.

import { launch, startServer } from "./harness.mjs";

const BUDGET_BYTES = 20 * 1024;
const APP_BUDGET_BYTES = 120 * 1024;

/** Loads `url` in a fresh context (no cache) and returns what its scripts cost. */
async function measure(browser, url, { storageState, setup, ready } = {}) {
  // The budget is in gzip: ask for gzip only (Chromium would take brotli, which is smaller).
  const context = await browser.newContext({ storageState, extraHTTPHeaders: { "Accept-Encoding": "gzip" } });
  try {
    const page = await context.newPage();
    const scripts = [];
    page.on("requestfinished", async (req) => {
      if (req.resourceType() !== "script") return;
      scripts.push(
        (async () => {
          const res = await req.response();
          const sizes = await req.sizes();
          // A script from the cache (negative size) was not fetched: there is none in a
          // fresh context, so say so rather than count it as free.
          if (sizes.responseBodySize < 0) throw new Error(`${req.url()} came from a cache`);
          return {
            url: req.url(),
            bytes: sizes.responseBodySize,
            encoding: (await res?.headerValue("content-encoding")) ?? "identity",
          };
        })(),
      );
    });
    if (setup) await setup(page);
    await page.goto(url, { waitUntil: "networkidle" });
    if (ready) await ready(page);
    // Scripts a parser has to stop for: classic external scripts without async or defer.
    const blocking = await page.$$eval("script[src]", (els) =>
      els
        .filter((s) => s.type !== "module" && !s.async && !s.defer)
        .map((s) => s.getAttribute("src")),
    );
    const fetched = await Promise.all(scripts);
    return { fetched, blocking, total: fetched.reduce((n, s) => n + s.bytes, 0), page };
  } finally {
    await context.close();
  }
}

async function productPages(browser, origin) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/shop`, { waitUntil: "load" });
  const hrefs = await page.$$eval("a[href^='/shop/']", (as) => as.map((a) => a.getAttribute("href")));
  await context.close();
  return [...new Set(hrefs.filter((h) => /^\/shop\/[^/?#]+$/.test(h)))];
}

/** The cookies of a visitor with one thing in their cart, put there in a context of its own
 *  (so the measured context starts with a cold cache). */
async function visitorWithCart(browser, origin, itemId, sku) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/`, { waitUntil: "load" });
    const status = await page.evaluate(
      async ([itemId, sku]) => {
        const crumb = document.cookie.match(/(?:^|; )crumb=([^;]+)/)?.[1] ?? "";
        const r = await fetch("/api/commerce/shopping-cart/entries", {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": crumb },
          body: JSON.stringify({ itemId, sku, quantity: 1 }),
        });
        return r.status;
      },
      [itemId, sku],
    );
    if (status !== 200) throw new Error(`adding to the cart answered ${status}`);
    return await context.storageState();
  } finally {
    await context.close();
  }
}

async function main() {
  const server = await startServer();
  const browser = await launch();
  const breaches = [];
  const report = (label, m, budget = BUDGET_BYTES) => {
    const kb = (m.total / 1024).toFixed(1);
    console.log(`  ${label}: ${m.fetched.length} script(s), ${kb} KB as sent`);
    if (m.total > budget) breaches.push(`${label}: ${kb} KB of JavaScript (budget ${budget / 1024} KB)`);
    if (budget === BUDGET_BYTES && m.fetched.some((s) => s.url.includes("/_tessera/islands/admin/"))) {
      breaches.push(`${label}: loads the owner app's code`);
    }
    for (const s of m.fetched) {
      if (s.encoding !== "gzip" && s.bytes > 1024) breaches.push(`${label}: ${s.url} is sent as ${s.encoding}, not gzip`);
    }
    for (const b of m.blocking) breaches.push(`${label}: render-blocking script ${b}`);
  };
  try {
    // Stores: every product page, then the heaviest case (a cart, so the pill or widget too).
    const carts = {
      "loam-lantern": ["514ce70d040182ce153a055b", "LPA-L-OAT"],
      "harbor-lane": ["20c64d617a76ef9ac8050fa0", "TPM-12"],
    };
    for (const [tenant, [itemId, sku]] of Object.entries(carts)) {
      const origin = server.origin(tenant);
      const pages = await productPages(browser, origin);
      if (pages.length === 0) breaches.push(`${tenant}: no product pages found under /shop`);
      console.log(`== ${tenant}: ${pages.length} product pages`);
      let islandsSeen = false;
      for (const p of pages) {
        const m = await measure(browser, origin + p);
        islandsSeen ||= m.fetched.some((s) => s.url.includes("/_tessera/islands/"));
        report(p, m);
      }
      if (!islandsSeen) breaches.push(`${tenant}: no product page loaded the islands`);
      report(`${pages[0]} with a cart`, await measure(browser, origin + pages[0], {
          storageState: await visitorWithCart(browser, origin, itemId, sku),
        }));
    }
    // A page with no island markup and no cart: no script at all.
    const plain = await measure(browser, `${server.origin("skyward")}/`);
    report("skyward / (no islands)", plain);
    if (plain.fetched.length > 0) breaches.push(`skyward /: loaded ${plain.fetched.map((s) => s.url).join(", ")}`);

    // The owner app's first screen: signed out, so the sign-in form. (The session route
    // answers 401 to a visitor without a session; it is answered here so the check does
    // not depend on the accounts branch.)
    console.log("== owner app");
    const app = await measure(browser, `${server.origin("loam-lantern")}/config`, {
      setup: (page) =>
        page.route("**/api/owner/session", (route) =>
          route.fulfill({ status: 401, contentType: "application/json", body: '{"message":"Sign in first."}' }),
        ),
      ready: (page) => page.getByRole("button", { name: "Sign in" }).waitFor({ timeout: 10000 }),
    });
    for (const s of app.fetched) console.log(`    ${s.url.replace(/^.*\/_tessera\/islands\//, "")}: ${(s.bytes / 1024).toFixed(1)} KB (${s.encoding})`);
    report("/config (sign in)", app, APP_BUDGET_BYTES);
    if (!app.fetched.some((s) => /\/admin\/chunks\/sign-in-/.test(s.url))) breaches.push("/config: the sign-in screen's chunk was not loaded");
    if (app.fetched.some((s) => !s.url.includes("/_tessera/islands/admin/"))) breaches.push("/config: loaded scripts that are not the app's");
  } finally {
    await browser.close();
    server.stop();
  }
  if (breaches.length > 0) {
    for (const b of breaches) console.log(`  BREACH ${b}`);
    console.log("budget: FAILED");
    process.exit(1);
  }
  console.log("budget: every store page within 20 KB and the owner app's first screen within 120 KB of gzipped JavaScript, nothing render-blocking");
}

main().catch((e) => {
  console.error(`budget: ${e.stack || e}`);
  process.exit(1);
});
