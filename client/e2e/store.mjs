// End-to-end: the storefront a visitor clicks through, in Debian's Chromium, against the
// real `tessera serve` — once on the embedded store and once on a throwaway PostgreSQL.
//
// usage: node e2e/store.mjs [--tessera BIN] [--fixtures DIR] [--chromium PATH]
//        [--backend embedded|postgres|both] (default both)
// Each scenario runs in a fresh browser context (its own cookies, so its own cart) on a
// server of its own backend; a failure names the backend, the scenario and what differed.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, option, startPostgres, startServer, watchCsp } from "./harness.mjs";
import { accessScenarios } from "./access-scenarios.mjs";
import { checkoutScenarios } from "./checkout-scenarios.mjs";
import { CAPTCHA_DIFFICULTY, formScenarios, OWNER_TOKEN } from "./forms-scenarios.mjs";
import { analyticsScenarios } from "./analytics-scenarios.mjs";
import { memberScenarios } from "./member-scenarios.mjs";
import { scenarios as productScenarios } from "./store-scenarios.mjs";

const scenarios = [...productScenarios, ...checkoutScenarios, ...accessScenarios, ...formScenarios, ...memberScenarios, ...analyticsScenarios];

/** What a failed scenario's pages showed: a screenshot of each, and the problems they named. */
async function leaveEvidence(context, label) {
  const dir = path.join(tmpdir(), "tessera-e2e-failures");
  mkdirSync(dir, { recursive: true });
  for (const [i, page] of context.pages().entries()) {
    const file = path.join(dir, `${label}-${i}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => {});
    const shown = await page.locator(".tessera-error, .tessera-modal").allInnerTexts().catch(() => []);
    console.log(`       page ${i}: ${page.url()} -> ${file}${shown.length ? `; shows: ${shown.join(" | ")}` : ""}`);
  }
}

async function runBackend(browser, backend) {
  let pg;
  let server;
  const failures = [];
  try {
    if (backend === "postgres") pg = await startPostgres();
    // Every scenario comes from 127.0.0.1, so one client to the rate limits: raise them (the
    // limits themselves are tested over HTTP in api/tests).
    const generous = [
      "--checkouts-per-minute", "600", "--cart-writes-per-minute", "6000", "--gift-card-lookups-per-minute", "600",
      "--form-submissions-per-minute", "600",
    ];
    // The form scenarios: a quick captcha (still solved by hashing in the page) and the
    // loam-lantern owner's token, to see the restock sign-ups the visitor made.
    const forms = ["--captcha-difficulty", CAPTCHA_DIFFICULTY, "--owner-token", `loam-lantern=${OWNER_TOKEN}`];
    server = await startServer({ databaseUrl: pg?.url, args: [...generous, ...forms] });
    for (const [name, run] of scenarios) {
      const only = process.env.E2E_ONLY;
      if (only && !name.includes(only)) continue;
      const context = await browser.newContext();
      const problems = [];
      await watchCsp(context, problems);
      context.on("weberror", (e) => problems.push(`uncaught exception: ${e.error().message}`));
      context.on("console", (msg) => {
        if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
      });
      const started = Date.now();
      try {
        await run({ context, server, assert });
        // A scenario's own expected failures answer 4xx from the API; the browser logs those
        // as console errors ("Failed to load resource"), so only script errors count here.
        const real = problems.filter((p) => !/Failed to load resource/.test(p));
        assert.deepEqual(real, [], "the pages logged errors");
        console.log(`  ok   ${backend}: ${name} (${Date.now() - started} ms)`);
      } catch (e) {
        failures.push(name);
        console.log(`  FAIL ${backend}: ${name}\n${String(e.stack || e).replace(/^/gm, "       ")}`);
        await leaveEvidence(context, `${backend}-${failures.length}`);
      } finally {
        await context.close();
      }
    }
  } finally {
    server?.stop();
    pg?.stop();
  }
  return failures;
}

async function main() {
  const which = option("backend", "both");
  const backends = which === "both" ? ["embedded", "postgres"] : [which];
  const browser = await launch();
  let failed = 0;
  try {
    for (const backend of backends) {
      console.log(`== store in Chromium, ${backend} store`);
      failed += (await runBackend(browser, backend)).length;
    }
  } finally {
    await browser.close();
  }
  if (failed > 0) {
    console.log(`store e2e: ${failed} scenario(s) FAILED`);
    process.exit(1);
  }
  console.log("store e2e: every scenario passed");
}

main().catch((e) => {
  console.error(`store e2e: ${e.stack || e}`);
  process.exit(1);
});
