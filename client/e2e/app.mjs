// End-to-end: the owner's app at /config in Debian's Chromium, served by the real `tessera
// serve` (its shell, its policy, its files), with the owner routes answered by this script
// (page.route) while they are being built on other branches: the screens as a browser draws
// them, axe-core on each (no serious or critical violations), no console error or CSP
// violation, and keyboard-only passes through sign-in and an order action.
//
// usage: node e2e/app.mjs [--tessera BIN] [--fixtures DIR] [--chromium PATH]
// (The server's data does not matter here, so it runs on the embedded store only; the
// same scenarios on both backends with the real routes come when the routes land.)

import assert from "node:assert/strict";
import { axe } from "./access-scenarios.mjs";
import { launch, startServer, watchCsp } from "./harness.mjs";

const money = (minor) => ({ minor, currency: "EUR", formatted: `€${(minor / 100).toFixed(2)}` });
const AREAS = Object.fromEntries(
  ["content", "design", "store", "orders", "forms", "analytics", "comments", "languages", "access"].map((a) => [a, "write"]),
);
const ME = {
  account: { id: "a1", email: "owner@loam-lantern.example", role: 1, roleName: "Administrator" },
  csrf: "csrf-e2e",
  site: { identifier: "loam-lantern", title: "Loam & Lantern", currency: "EUR" },
  areas: AREAS,
};
const period = (v, o) => ({ visits: v, pageViews: 3 * v, orders: o, revenue: money(4200 * o), conversion: v ? o / v : 0 });
const DASHBOARD = {
  periods: { today: period(14, 1), days7: period(120, 5), days30: period(610, 21) },
  daily: Array.from({ length: 30 }, (_, i) => ({ dayMs: Date.UTC(2026, 9, 30 + i), visits: 10 + (i % 7) * 4, pageViews: 40 + i, orders: i % 3, revenueMinor: 4200 * (i % 3) })),
  todo: { toFulfil: 2, unpaid: 1, lowStock: 3, restockWaiting: 4 },
};
const SUMMARY = (n, extra = {}) => ({
  id: `o${n}`,
  number: n,
  placedMs: Date.UTC(2026, 10, 27, 9, n),
  email: `buyer${n}@example.com`,
  name: `Buyer ${n}`,
  total: money(5060),
  payment: "paid",
  fulfilment: "unfulfilled",
  cancelled: false,
  itemCount: 1,
  testMode: n === 1001,
  ...extra,
});
const LINE = {
  position: 0,
  itemId: "apron",
  sku: "LPA-L-OAT",
  productName: "Linen potting apron",
  productType: "physical",
  attributes: { Size: "L", Colour: "Oat" },
  quantity: 1,
  fulfilledQuantity: 0,
  refundedQuantity: 0,
  unitPrice: money(4200),
  lineTotal: money(4200),
  additionalFields: [{ label: "Initials", value: "AL" }],
};
const DETAIL = {
  ...SUMMARY(1002),
  lines: [LINE],
  subtotal: money(4200),
  discount: money(0),
  shipping: money(860),
  tax: money(0),
  taxIncluded: true,
  giftCardPaid: money(0),
  charged: money(5060),
  refunded: money(0),
  coupons: [],
  shippingAddress: { firstName: "Ada", lastName: "Lovelace", address1: "12 St James's Square", city: "London", postalCode: "SW1Y 4JH", countryCode: "GB" },
  billingAddress: null,
  shippingOption: { name: "Standard" },
  paymentMethod: "Card (test)",
  notes: null,
  giftCards: [],
  downloads: [],
  fulfilments: [],
  history: [{ atMs: Date.UTC(2026, 10, 27, 9, 2), kind: "placed", actor: "", text: "Order placed" }],
  actions: ["fulfil", "cancel", "refund", "resend-confirmation"],
};
const VARIANTS = ["S", "M", "L"].map((size, i) => ({
  itemId: "apron",
  sku: `LPA-${size}-OAT`,
  productTitle: "Linen potting apron",
  attributes: { Size: size },
  stock: i === 2 ? null : i * 2,
  restockWaiting: i === 1 ? 4 : 0,
}));
const PRODUCTS = [
  { id: "apron", title: "Linen potting apron", type: "physical", image: null, price: money(4200), onSale: false, stock: 2, visible: true },
  { id: "card", title: "Gift card", type: "gift-card", image: null, price: money(2500), onSale: true, stock: null, visible: false },
];

/** Answers the owner routes for `page`; records what the app sent. */
export async function fakeOwnerApi(page, { signedIn }) {
  const sent = [];
  let session = signedIn;
  let fulfilled = false;
  await page.route("**/api/owner/**", async (route) => {
    const req = route.request();
    const url = new URL(req.url());
    const key = `${req.method()} ${url.pathname}`;
    sent.push({ key, headers: req.headers(), body: req.postData() });
    const json = (status, body) => route.fulfill({ status, contentType: "application/json", body: JSON.stringify(body) });
    switch (key) {
      case "GET /api/owner/session":
        return session ? json(200, ME) : json(401, { message: "Sign in first." });
      case "POST /api/owner/session": {
        const { password } = JSON.parse(req.postData());
        if (password !== "demo-password") return json(401, { message: "Your email or password is incorrect." });
        session = true;
        return json(200, ME);
      }
      case "DELETE /api/owner/session":
        session = false;
        return route.fulfill({ status: 204 });
      case "GET /api/owner/dashboard":
        return json(200, DASHBOARD);
      case "GET /api/owner/orders":
        return json(200, { orders: [SUMMARY(1002), SUMMARY(1001, { payment: "awaiting-payment" })], next: "c2" });
      case "GET /api/owner/orders/o1002":
        return json(200, fulfilled ? { ...DETAIL, fulfilment: "fulfilled", actions: [] } : DETAIL);
      case "POST /api/owner/orders/o1002/fulfilments":
        fulfilled = true;
        return json(200, {});
      case "GET /api/owner/inventory":
        return json(200, { variants: VARIANTS, next: null });
      case "GET /api/owner/products":
        return json(200, { products: PRODUCTS, next: null });
      case "GET /api/owner/customers":
        return json(200, {
          customers: [
            { email: "ada@example.com", name: "Ada Lovelace", orders: 2, spent: money(10120), lastOrderMs: Date.UTC(2026, 10, 27), member: true, subscriber: false },
            { email: "news@example.com", name: "", orders: 0, spent: money(0), lastOrderMs: null, member: false, subscriber: true },
          ],
          next: null,
        });
      case "GET /api/owner/collections":
        return json(200, { collections: [{ id: "shop", title: "Shop", type: 13 }] });
      case "GET /api/owner/collections/shop/items":
        return json(200, {
          items: [
            {
              id: "apron",
              title: "Linen potting apron",
              urlId: "linen-potting-apron",
              body: "<p>Sturdy.</p>",
              productType: 1,
              variants: VARIANTS.map((v) => ({ sku: v.sku, attributes: v.attributes, currency: "EUR", priceMinor: 4200, qtyInStock: v.stock ?? 0, unlimited: v.stock === null })),
            },
          ],
        });
      case "POST /api/owner/collections/shop/items":
        return json(201, { ...JSON.parse(req.postData()), id: "new1" });
      case "GET /api/owner/accounts":
        return json(200, {
          accounts: [
            { id: "a1", email: ME.account.email, role: 1, roleName: "admin", createdMs: Date.UTC(2026, 10, 1), passwordSet: true },
            { id: "a2", email: "sam@example.com", role: 8, roleName: "store-manager", createdMs: Date.UTC(2026, 10, 2), passwordSet: false },
          ],
          invites: [{ id: "i1", email: "kim@example.com", role: 4, roleName: "editor", expiresMs: Date.UTC(2026, 11, 4) }],
        });
      case "GET /api/owner/tokens":
        return json(200, { tokens: [{ id: "t1", name: "stock sync", role: 8, roleName: "store-manager", createdMs: Date.UTC(2026, 10, 3), lastUsedMs: null }] });
      case "GET /api/owner/analytics":
        return json(200, {
          daily: DASHBOARD.daily,
          topPages: [{ path: "/shop", views: 320 }, { path: "/", views: 210 }],
          referrers: [{ host: "duckduckgo.com", visits: 41 }],
          funnel: { pageViews: 1830, addToCart: 96, checkout: 40, purchase: 21 },
        });
      default:
        return json(404, { message: "Not Found" });
    }
  });
  return sent;
}

const focusedText = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el ? `${el.tagName.toLowerCase()}:${el.getAttribute("aria-label") ?? el.textContent?.trim().slice(0, 40)}` : "none";
  });

async function tabTo(page, locator, limit = 40) {
  const seen = [];
  for (let i = 0; i < limit; i++) {
    if (await locator.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press("Tab");
    seen.push(await focusedText(page));
  }
  throw new Error(`Tab never reached it; focus went: ${seen.join(" → ")}`);
}

async function h1Focused(page, name) {
  await page.getByRole("heading", { level: 1, name }).waitFor();
  await page.waitForFunction((n) => document.activeElement?.tagName === "H1" && document.activeElement.textContent === n, name, { timeout: 5000 });
}

const scenarios = [
  [
    "keyboard only: sign in (a wrong password first), then the dashboard's heading has the focus",
    async ({ page, origin, sent }) => {
      await page.goto(`${origin}/config`);
      const email = page.getByLabel("Email");
      await email.waitFor();
      assert.deepEqual(await axe(page), [], "the sign-in screen");
      await tabTo(page, email);
      await page.keyboard.type("owner@loam-lantern.example");
      await page.keyboard.press("Tab");
      await page.keyboard.type("wrong");
      await page.keyboard.press("Enter");
      await page.getByRole("alert").filter({ hasText: "Your email or password is incorrect." }).waitFor();
      assert.deepEqual(await axe(page), [], "the sign-in screen with its error");
      await page.getByLabel("Password").fill("");
      await page.getByLabel("Password").focus();
      await page.keyboard.type("demo-password");
      await page.keyboard.press("Enter");
      await h1Focused(page, "Dashboard");
      const post = sent.filter((s) => s.key === "POST /api/owner/session").at(-1);
      assert.deepEqual(JSON.parse(post.body), { email: "owner@loam-lantern.example", password: "demo-password" });
    },
  ],
  [
    "every screen: axe-clean, charts drawn under the shell's policy, nav names",
    async ({ page, origin }) => {
      await page.goto(`${origin}/config`);
      await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
      await page.locator(".sparkline canvas").first().waitFor();
      assert.equal(await page.locator(".sparkline canvas").count(), 5, "one chart per measure");
      assert.deepEqual(
        await page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts(),
        ["Dashboard", "Orders", "Products", "Inventory", "Customers", "Analytics", "Settings"],
      );
      assert.deepEqual(await axe(page), [], "dashboard");
      for (const [link, heading, ready] of [
        ["Orders", "Orders", "Order #1002"],
        ["Inventory", "Inventory", "LPA-M-OAT"],
        ["Products", "Products", "Gift card"],
        ["Customers", "Customers", "ada@example.com"],
        ["Analytics", "Analytics", "duckduckgo.com"],
        ["Settings", "Settings", null],
      ]) {
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link }).click();
        await h1Focused(page, heading);
        if (ready) await page.getByText(ready, { exact: true }).first().waitFor();
        if (heading === "Analytics") {
          await page.locator(".chart canvas").nth(1).waitFor();
          // The numbers per day, opened.
          await page.getByText("Numbers per day").click();
        }
        assert.deepEqual(await axe(page), [], heading);
      }
      await page.getByRole("link", { name: "Access" }).click();
      await h1Focused(page, "Access");
      await page.getByText("stock sync", { exact: true }).waitFor();
      assert.deepEqual(await axe(page), [], "Settings → Access");
      await page.goto(`${origin}/config/orders/o1002`);
      await page.getByRole("heading", { level: 1, name: "Order #1002" }).waitFor();
      assert.deepEqual(await axe(page), [], "an order");
      await page.goto(`${origin}/config/products/apron`);
      await page.getByRole("heading", { level: 1, name: "Linen potting apron" }).waitFor();
      await page.getByRole("group", { name: "Variant 3" }).waitFor();
      assert.deepEqual(await axe(page), [], "the product form");
    },
  ],
  [
    "keyboard only: fulfil an order with a tracking number from its page",
    async ({ page, origin, sent }) => {
      await page.goto(`${origin}/config/orders/o1002`);
      const fulfil = page.getByRole("button", { name: "Mark as fulfilled" });
      await fulfil.waitFor();
      await tabTo(page, fulfil);
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Mark as fulfilled: order #1002" });
      await dialog.waitFor();
      assert.deepEqual(await axe(page), [], "the fulfil dialog");
      // Escape closes it and the focus is back on the button; open it again.
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      assert.equal(await fulfil.evaluate((el) => el === document.activeElement), true);
      await page.keyboard.press("Enter");
      await dialog.waitFor();
      await tabTo(page, dialog.getByLabel("Tracking number"));
      await page.keyboard.type("RM123456789GB");
      await page.keyboard.press("Enter");
      await dialog.waitFor({ state: "detached" });
      await page.getByText("Fulfilment saved.").waitFor({ state: "attached" });
      const post = sent.find((s) => s.key === "POST /api/owner/orders/o1002/fulfilments");
      assert.deepEqual(JSON.parse(post.body), { lines: [{ lineId: 0, quantity: 1 }], carrier: "", trackingNumber: "RM123456789GB" });
      assert.equal(post.headers["x-csrf-token"], "csrf-e2e");
    },
  ],
  [
    "keyboard only: add a product from the products list",
    async ({ page, origin, sent }) => {
      await page.goto(`${origin}/config/products`);
      const add = page.getByRole("link", { name: "Add product" });
      await add.waitFor();
      await tabTo(page, add);
      await page.keyboard.press("Enter");
      await h1Focused(page, "Add product");
      await tabTo(page, page.getByLabel("Title", { exact: true }));
      await page.keyboard.type("Rain gauge");
      await tabTo(page, page.getByRole("group", { name: "Variant 1" }).getByLabel("SKU", { exact: true }));
      await page.keyboard.type("RG-1");
      await tabTo(page, page.getByRole("group", { name: "Variant 1" }).getByLabel("Price (EUR)", { exact: true }));
      await page.keyboard.type("12.50");
      await tabTo(page, page.getByRole("group", { name: "Variant 1" }).getByLabel("Unlimited stock", { exact: true }));
      await page.keyboard.press("Space");
      await tabTo(page, page.getByRole("button", { name: "Add product" }));
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => location.pathname === "/config/products/new1");
      const post = sent.find((s) => s.key === "POST /api/owner/collections/shop/items");
      assert.deepEqual(JSON.parse(post.body), {
        title: "Rain gauge",
        urlId: "rain-gauge",
        body: "",
        productType: 1,
        variants: [{ sku: "RG-1", attributes: {}, price: "12.50", onSale: false, unlimited: true }],
      });
      assert.equal(post.headers["x-csrf-token"], "csrf-e2e");
    },
  ],
];

async function main() {
  const server = await startServer();
  const browser = await launch();
  const origin = server.origin("loam-lantern");
  const failures = [];
  try {
    for (const [name, run] of scenarios) {
      const context = await browser.newContext();
      const problems = [];
      await watchCsp(context, problems);
      const page = await context.newPage();
      page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
      page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
      const sent = await fakeOwnerApi(page, { signedIn: !name.includes("sign in") });
      try {
        await run({ page, origin, sent });
        // The 401s the app asks for on purpose are logged by Chromium as failed loads.
        const real = problems.filter((p) => !/status of 401/.test(p));
        assert.deepEqual(real, [], "console errors or CSP violations");
        console.log(`  ok   ${name}`);
      } catch (e) {
        failures.push(name);
        console.log(`       shows: ${(await page.locator("body").innerText().catch(() => "?")).slice(0, 400).replace(/\n/g, " | ")}`);
        console.log(`       problems: ${problems.join(" ; ")}`);
        console.log(`  FAIL ${name}\n       ${String(e.stack || e).split("\n").slice(0, 6).join("\n       ")}`);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    server.stop();
  }
  if (failures.length > 0) {
    console.log(`app: ${failures.length} of ${scenarios.length} failed`);
    process.exit(1);
  }
  console.log(`app: ${scenarios.length} scenarios passed`);
}

if (import.meta.url === `file://${process.argv[1]}`) main().catch((e) => {
  console.error(`app: ${e.stack || e}`);
  process.exit(1);
});
