// End-to-end: every page of every demo tenant, opened in Debian's Chromium.
//
// Starts the real `tessera serve` on a throwaway data directory (which imports the
// fixtures), then, per tenant, crawls from its home page through every same-site link
// and opens each page in headless Chromium. A page fails the run when it:
//   - answers with an error status (a broken link in a demo site is a bug),
//   - logs a console error or throws an uncaught exception,
//   - has a sub-resource (stylesheet, script, image) that fails to load or answers >= 400.
//
// usage: node e2e/pages.mjs [--tessera BIN] [--fixtures DIR] [--chromium PATH]
//        defaults: ../target/release/tessera, ../fixtures, /usr/bin/chromium
// Exit status 0 only when every page passed; a summary line per tenant is printed.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const tessera = option("tessera", path.join(root, "target", "release", "tessera"));
const fixtures = option("fixtures", path.join(root, "fixtures"));
const chromiumPath = option("chromium", "/usr/bin/chromium");

// The flags DESIGN.md gives: the machine has no internet, and without these Chromium keeps
// trying to reach it.
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

// More pages than any demo tenant has: a crawl that reaches it is following a link loop.
const MAX_PAGES_PER_TENANT = 400;

/** Starts the server; resolves with { child, tenants: [{ identifier, origin }] }. */
function startServer(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      tessera,
      ["serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--fixtures", fixtures],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RUST_LOG: "warn" } },
    );
    const tenants = [];
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("exit", (code) => reject(new Error(`tessera serve exited (${code}):\n${stderr}`)));
    // One line per tenant: `identifier: http://host:port/`. The server is listening by then.
    createInterface({ input: child.stdout }).on("line", (line) => {
      const m = /^([a-z0-9-]+): (http:\/\/[^/]+)\/$/.exec(line.trim());
      if (m) tenants.push({ identifier: m[1], origin: m[2] });
    });
    const poll = setInterval(async () => {
      if (tenants.length === 0) return;
      try {
        // Node does not resolve *.localhost names (Chromium does): ask the address itself.
        const r = await fetch(`http://127.0.0.1:${new URL(tenants[0].origin).port}/healthz`);
        if (r.ok) {
          clearInterval(poll);
          child.removeAllListeners("exit");
          resolve({ child, tenants });
        }
      } catch {
        // not up yet
      }
    }, 100);
  });
}

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
  const problems = [];
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
    const hrefs = await page.$$eval("a[href]", (as) => as.map((a) => a.getAttribute("href")));
    links = pageLinks(hrefs, origin);
  } catch (e) {
    problems.push(`navigation failed: ${e.message}`);
  } finally {
    await page.close();
  }
  return { problems, links };
}

// Where every crawl starts: the home page, and the system pages a visitor reaches from
// forms and scripts rather than links (search results, cart, checkout).
const SEEDS = ["/", "/search?q=the", "/cart", "/checkout"];

async function crawl(browser, tenant) {
  const context = await browser.newContext();
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
  const dataDir = mkdtempSync(path.join(tmpdir(), "tessera-e2e-"));
  let server;
  let browser;
  let failed = false;
  try {
    server = await startServer(dataDir);
    browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
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
    if (server) server.child.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
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
