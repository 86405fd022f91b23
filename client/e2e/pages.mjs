// End-to-end: every page of every demo tenant, opened in Debian's Chromium.
//
// Starts the real `tessera serve` on a throwaway data directory (which imports the
// fixtures), then, per tenant, crawls from its home page through every same-site link
// and opens each page in headless Chromium. A page fails the run when it:
//   - answers with an error status (a broken link in a demo site is a bug),
//   - logs a console error or throws an uncaught exception,
//   - has a sub-resource (stylesheet, script, image) that fails to load or answers >= 400,
//   - comes without a Content-Security-Policy, or breaks it (a `securitypolicyviolation`
//     event or Chromium's "Refused to …" console error): the islands and the demo
//     templates must live within the policy the server sends.
//
// usage: node e2e/pages.mjs [--tessera BIN] [--fixtures DIR] [--chromium PATH]
//        defaults: ../target/release/tessera, ../fixtures, /usr/bin/chromium
// Exit status 0 only when every page passed; a summary line per tenant is printed.

import { launch, startServer, watchCsp } from "./harness.mjs";

// More pages than any demo tenant has: a crawl that reaches it is following a link loop.
const MAX_PAGES_PER_TENANT = 400;

/** Same-site page links worth visiting from `url` (no assets, fragments or /config/). */
function pageLinks(hrefs, origin) {
  const out = new Set();
  for (const href of hrefs) {
    let u;
    try {
      u = new URL(href, origin);
    } catch {
      continue;
    }
    if (u.origin !== origin) continue;
    if (/^\/(assets|scripts|styles|config)(\/|$)/.test(u.pathname)) continue;
    u.hash = "";
    out.add(u.pathname + u.search);
  }
  return out;
}

/** Opens one page; returns { problems, links }. */
async function visit(context, origin, pathAndQuery) {
  const page = await context.newPage();
  const problems = context.problems;
  problems.length = 0;
  page.on("console", (msg) => {
    if (msg.type() !== "error") return;
    const at = msg.location()?.url;
    problems.push(`console error: ${msg.text()}${at ? ` (${at})` : ""}`);
  });
  page.on("pageerror", (err) => problems.push(`uncaught exception: ${err.message}`));
  page.on("requestfailed", (req) =>
    problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`),
  );
  page.on("response", (res) => {
    if (res.status() >= 400 && res.request().resourceType() !== "document") {
      problems.push(`sub-resource ${res.url()} answered ${res.status()}`);
    }
  });
  let links = new Set();
  try {
    const res = await page.goto(origin + pathAndQuery, { waitUntil: "load", timeout: 30000 });
    const status = res ? res.status() : 0;
    if (status >= 400) problems.push(`the page answered ${status}`);
    if (res && !res.headers()["content-security-policy"]) problems.push("no Content-Security-Policy");
    const hrefs = await page.$$eval("a[href]", (as) => as.map((a) => a.getAttribute("href")));
    links = pageLinks(hrefs, origin);
  } catch (e) {
    problems.push(`navigation failed: ${e.message}`);
  } finally {
    await page.close();
  }
  return { problems: [...problems], links };
}

// Where every crawl starts: the home page, and the system pages a visitor reaches from
// forms and scripts rather than links (search results, cart, checkout).
const SEEDS = ["/", "/search?q=the", "/cart", "/checkout"];

async function crawl(browser, tenant) {
  const context = await browser.newContext();
  // The page being visited's problems (one page at a time): its CSP violations land here.
  context.problems = [];
  await watchCsp(context, context.problems);
  const seen = new Set(SEEDS);
  const queue = [...SEEDS];
  const failures = [];
  let visited = 0;
  while (queue.length > 0) {
    if (visited >= MAX_PAGES_PER_TENANT) {
      failures.push(`more than ${MAX_PAGES_PER_TENANT} pages: is a link generating new URLs?`);
      break;
    }
    const p = queue.shift();
    if (process.env.E2E_VERBOSE) console.log(`  visiting ${tenant.origin}${p}`);
    const { problems, links } = await visit(context, tenant.origin, p);
    visited += 1;
    for (const problem of problems) failures.push(`${p}: ${problem}`);
    for (const l of links) {
      if (!seen.has(l)) {
        seen.add(l);
        queue.push(l);
      }
    }
  }
  await context.close();
  return { visited, failures };
}

async function main() {
  let server;
  let browser;
  let failed = false;
  try {
    server = await startServer();
    browser = await launch();
    if (server.tenants.length === 0) throw new Error("the server listed no tenants");
    for (const tenant of server.tenants) {
      const { visited, failures } = await crawl(browser, tenant);
      const verdict = failures.length === 0 ? "ok" : `${failures.length} problem(s)`;
      console.log(`${tenant.identifier}: ${visited} pages in Chromium, ${verdict}`);
      for (const f of failures) console.log(`  ${tenant.origin}${f}`);
      // Every demo tenant has more than its home page; one page means links are broken.
      if (visited < 2) {
        console.log(`  ${tenant.identifier}: only the home page was reachable`);
        failed = true;
      }
      failed ||= failures.length > 0;
    }
  } finally {
    if (browser) await browser.close();
    if (server) server.stop();
  }
  if (failed) {
    console.log("e2e: FAILED");
    process.exit(1);
  }
  console.log("e2e: every page passed");
}

main().catch((e) => {
  console.error(`e2e: ${e.stack || e}`);
  process.exit(1);
});
