// End-to-end: the storefront a visitor clicks through, in Debian's Chromium, against the
// real `tessera serve` — once on the embedded store and once on a throwaway PostgreSQL.
//
// usage: node e2e/store.mjs [--tessera BIN] [--fixtures DIR] [--chromium PATH]
//        [--backend embedded|postgres|both] (default both)
// Each scenario runs in a fresh browser context (its own cookies, so its own cart) on a
// server of its own backend; a failure names the backend, the scenario and what differed.

import assert from "node:assert/strict";
import { launch, option, startPostgres, startServer } from "./harness.mjs";
import { scenarios } from "./store-scenarios.mjs";

async function runBackend(browser, backend) {
  let pg;
  let server;
  const failures = [];
  try {
    if (backend === "postgres") pg = await startPostgres();
    server = await startServer({ databaseUrl: pg?.url });
    for (const [name, run] of scenarios) {
      const only = process.env.E2E_ONLY;
      if (only && !name.includes(only)) continue;
      const context = await browser.newContext();
      const problems = [];
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
