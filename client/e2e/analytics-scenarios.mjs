// Scenarios `store.mjs` runs on each backend for analytics (issue 28): pages a visitor
// opens in Chromium and a cart add show up in `tessera analytics`.

import { execFileSync } from "node:child_process";
import { tessera } from "./harness.mjs";
import { eventually } from "./store-scenarios.mjs";

const LOAM = "loam-lantern";

/** `tessera analytics loam-lantern --format json` against the server's store. */
function summary(server) {
  const out = execFileSync(tessera, ["analytics", LOAM, "--days", "1", "--format", "json", ...server.storeArgs], {
    env: { ...process.env, DATABASE_URL: "" },
  });
  return JSON.parse(String(out));
}

export const analyticsScenarios = [
  [
    "analytics: three pages (one visit) and a cart add show up in tessera analytics",
    async ({ context, server, assert }) => {
      // Other scenarios visit the same store: count what this one adds.
      const before = summary(server);
      const origin = server.origin(LOAM);
      const page = await context.newPage();
      for (const path of ["/", "/shop", "/shop/fern-terracotta-pot"]) {
        const r = await page.goto(origin + path);
        assert.equal(r?.status(), 200, path);
      }
      await page.waitForSelector(".sqs-add-to-cart-button[data-tessera-mounted]");
      await page.selectOption('select[data-variant-option-name="Size"]', "Small, 10 cm");
      await page.click(".sqs-add-to-cart-button");
      // Written in batches off the request path: the numbers arrive within moments.
      const after = await eventually(
        async () => summary(server),
        (s) => s.pageViews >= before.pageViews + 3 && s.addToCarts >= before.addToCarts + 1,
        "the page views and the cart add in tessera analytics",
      );
      assert.equal(after.pageViews - before.pageViews, 3, "a page view per page opened");
      assert.equal(after.visits - before.visits, 1, "the three pages are one visit");
      assert.equal(after.addToCarts - before.addToCarts, 1);
      assert.equal(after.uniqueVisitors - before.uniqueVisitors, 1, "one new visitor");
    },
  ],
];
