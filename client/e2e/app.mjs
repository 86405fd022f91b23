// End-to-end: the owner's app at /config in Debian's Chromium against the real `tessera
// serve`, once on the embedded store and once on a throwaway PostgreSQL. A shop owner runs
// loam-lantern from the browser: signs in, finds the order a visitor just placed and
// fulfils it (the tracking number reaches the buyer's email), cancels and refunds, adds a
// product and a visitor buys it, changes stock, reads the analytics; uploads a template
// with an error and reads the problem, then a good one, switches to it and rolls back;
// approves a member's comment on harbor-lane and sees it on the live page; adds a language
// and changes the default one, which the live site's <html lang> then says; uploads an image
// to skyward's gallery with alt text, moves it first by keyboard and by drag, changes the
// gallery's design and images per row and sees the frame and live site follow; writes a blog
// post on harbor-lane with a heading and an uploaded image with alt text, schedules it (the
// live blog does not show it, its page is not found) and publishes it (both show it, the
// image with its alt text); sets a site password, which a fresh visitor meets and enters,
// and turns it off; turns on the announcement bar and the cookie banner, which a visitor
// closes; writes a line in quillback's footer content area, which the frame and a fresh
// visitor then show; axe-core on every
// screen (no serious or critical violations); keyboard alone through sign-in, an order
// action and the product form; a role sees only what it may do, and the server refuses the
// rest.
//
// usage: node e2e/app.mjs [--tessera BIN] [--fixtures DIR] [--chromium PATH]
//        [--backend embedded|postgres|both] (default both)
// The scenarios share one server per backend and run in order (later ones read what earlier
// ones did, as an owner's day does); each has a browser context of its own.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { zipSync } from "fflate";
import { axe } from "./access-scenarios.mjs";
import { add, apiGet, fillCheckout, inPage, placeOrder, stockOf } from "./checkout-scenarios.mjs";
import { fixtures, launch, option, startPostgres, startServer, tessera, watchCsp } from "./harness.mjs";
import { eventually } from "./store-scenarios.mjs";

const LOAM = "loam-lantern";
const CANDLE = "/shop/beeswax-pillar-candle"; // Height 10 cm: SKU BPC-10, €16
const CAN = "/shop/brass-watering-can"; // one variant, €58
const BOX = "/shop/monthly-plant-box"; // a subscription, Size: Small plant
const OWNER = { email: "owner@loam-lantern.example", password: "e2e-owner-password" };
const MANAGER = { email: "stock@loam-lantern.example", password: "e2e-manager-password" };
const NAV = ["Dashboard", "Pages", "Design", "Forms", "Orders", "Products", "Inventory", "Customers", "Analytics", "Templates", "Members", "Settings"];
const HARBOR = "harbor-lane";
const HARBOR_OWNER = { email: "owner@harbor-lane.example", password: "e2e-harbor-password" };
const DESIGNER = { email: "designer@harbor-lane.example", password: "e2e-designer-password" };

/** Adds an owner account to `site` (loam-lantern unless given) with `tessera owner add
 *  --password-stdin`, on the server's own store (the CLI and the running server share it). */
function addOwner(server, { email, password }, role, site = LOAM) {
  execFileSync(tessera, ["owner", "add", site, email, "--role", role, "--password-stdin", ...server.storeArgs], {
    input: `${password}\n`,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

// ---- mail ----

/** Decodes one message's body by its Content-Transfer-Encoding (lettre picks 7bit, quoted-
 *  printable or base64 by content). */
function decodeBody(headers, body) {
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding === "quoted-printable") {
    const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, h) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  return body;
}

/** The site's sent mail (the outbox mbox) to `to`: [{ subject, text }], text being every
 *  text part decoded. */
function mailTo(server, to) {
  const file = path.join(server.dataDir, "outbox", `${LOAM}.mbox`);
  if (!existsSync(file)) return [];
  const messages = readFileSync(file, "utf8").split(/^From .*$/m).filter((m) => m.trim());
  const out = [];
  for (const m of messages) {
    const [head, ...rest] = m.replace(/^\r?\n/, "").split(/\r?\n\r?\n/);
    if (!new RegExp(`^To:.*${to.replace(/[.+]/g, "\\$&")}`, "im").test(head)) continue;
    const subject = /^Subject:\s*(.*)$/im.exec(head)?.[1] ?? "";
    const body = rest.join("\n\n");
    const boundary = /boundary="?([^";\r\n]+)"?/i.exec(head)?.[1];
    let text = "";
    if (boundary) {
      for (const part of body.split(`--${boundary}`)) {
        const [ph, ...pb] = part.replace(/^\r?\n/, "").split(/\r?\n\r?\n/);
        if (/^content-type:\s*text\//im.test(ph)) text += `${decodeBody(ph, pb.join("\n\n"))}\n`;
      }
    } else {
      text = decodeBody(head, body);
    }
    out.push({ subject, text });
  }
  return out;
}

// ---- the keyboard ----

const focusedText = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el ? `${el.tagName.toLowerCase()}:${el.getAttribute("aria-label") ?? el.textContent?.trim().slice(0, 40)}` : "none";
  });

/** Presses Tab until `locator` has the focus (at most `limit` times). */
async function tabTo(page, locator, limit = 60) {
  const seen = [];
  for (let i = 0; i < limit; i++) {
    if (await locator.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press("Tab");
    seen.push(await focusedText(page));
  }
  throw new Error(`Tab never reached it; focus went: ${seen.join(" → ")}`);
}

/** Waits for the screen's heading, which takes the focus when a screen opens. */
async function h1Focused(page, name) {
  await page.getByRole("heading", { level: 1, name }).waitFor();
  await page.waitForFunction((n) => document.activeElement?.tagName === "H1" && document.activeElement.textContent === n, name, { timeout: 5000 });
}

/** Fails when the screen shows what a field the app misread writes: "Invalid Date",
 *  "undefined", "NaN", "null". */
async function sane(page, what) {
  const text = await page.locator("main").innerText();
  const bad = /Invalid Date|\bundefined\b|\bNaN\b|\bnull\b/.exec(text);
  assert.equal(bad, null, `${what} shows "${bad?.[0]}": ${text.slice(Math.max(0, (bad?.index ?? 0) - 80), (bad?.index ?? 0) + 80)}`);
}

// ---- the owner and the visitor ----

async function signIn(context, server, who = OWNER, site = LOAM) {
  const page = await context.newPage();
  await page.goto(`${server.origin(site)}/config`);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
  return page;
}

const nav = (page, name) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).click();

/** A visitor (a context of their own) buys `path` with the test card as `email`. */
async function visitorBuys(browser, server, email, path = CANDLE, options = { Height: "10 cm" }) {
  const context = await browser.newContext();
  try {
    await add(context, server, path, options);
    const page = await context.newPage();
    await page.goto(`${server.origin(LOAM)}/checkout`, { waitUntil: "load" });
    await page.locator(".tessera-checkout").waitFor();
    await fillCheckout(page, { email });
    await placeOrder(page);
  } finally {
    await context.close();
  }
}

/** Opens, from the Orders screen, the order its search finds for `email`. */
async function openOrderOf(page, email) {
  await nav(page, "Orders");
  await h1Focused(page, "Orders");
  await page.getByLabel("Search orders").fill(email);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const rows = page.locator("tbody tr");
  await eventually(() => rows.allInnerTexts(), (r) => r.length === 1 && r[0].includes(email), `one order of ${email}`);
  const link = rows.first().getByRole("link");
  const name = (await link.innerText()).trim();
  await link.click();
  await h1Focused(page, name);
  return name;
}

// ---- the scenarios ----

const scenarios = [
  [
    "keyboard only: sign in (a wrong password first); the dashboard's heading has the focus",
    async ({ context, server }) => {
      const page = await context.newPage();
      await page.goto(`${server.origin(LOAM)}/config`);
      const email = page.getByLabel("Email");
      await email.waitFor();
      assert.deepEqual(await axe(page), [], "the sign-in screen");
      await tabTo(page, email);
      await page.keyboard.type(OWNER.email);
      await page.keyboard.press("Tab");
      await page.keyboard.type("not-the-password");
      await page.keyboard.press("Enter");
      await page.getByRole("alert").filter({ hasText: "Your email or password is incorrect." }).waitFor();
      assert.deepEqual(await axe(page), [], "the sign-in screen with its error");
      await page.getByLabel("Password").fill("");
      await page.getByLabel("Password").focus();
      await page.keyboard.type(OWNER.password);
      await page.keyboard.press("Enter");
      await h1Focused(page, "Dashboard");
      assert.deepEqual(await page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts(), NAV);
      // The session is a cookie the page's script cannot read.
      const cookie = (await context.cookies()).find((c) => c.name === "tessera-owner");
      assert.ok(cookie?.httpOnly && cookie.sameSite === "Strict", `the session cookie: ${JSON.stringify(cookie)}`);
    },
  ],
  [
    "a visitor's order: found by email, fulfilled by keyboard with a tracking number the buyer's email carries",
    async ({ browser, context, server, backend }) => {
      const buyer = `fulfil-${backend}@example.com`;
      await visitorBuys(browser, server, buyer);
      const page = await signIn(context, server);
      const title = await openOrderOf(page, buyer);
      await page.getByText("Beeswax Pillar Candle").first().waitFor();
      assert.deepEqual(await axe(page), [], "an order");
      await sane(page, "an order");
      // The buyer's address as they gave it.
      const shipping = await page.locator("section", { has: page.getByRole("heading", { name: "Shipping address" }) }).innerText();
      for (const part of ["Ada de Vries", "Lindengracht 12", "1015 KD Amsterdam", "NL"]) assert.ok(shipping.includes(part), `the address has ${part}: ${shipping}`);
      const fulfil = page.getByRole("button", { name: "Mark as fulfilled" });
      await tabTo(page, fulfil);
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: `Mark as fulfilled: ${title.replace("Order ", "order ")}` });
      await dialog.waitFor();
      assert.deepEqual(await axe(page), [], "the fulfil dialog");
      // Escape closes it and gives the focus back to the button.
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      assert.equal(await fulfil.evaluate((el) => el === document.activeElement), true, "focus back on the action");
      await page.keyboard.press("Enter");
      await dialog.waitFor();
      const tracking = `RM${backend === "postgres" ? 2 : 1}23456789GB`;
      await tabTo(page, dialog.getByLabel("Tracking number"));
      await page.keyboard.type(tracking);
      await page.keyboard.press("Enter");
      await dialog.waitFor({ state: "detached" });
      await page.getByText("Fulfilment saved.").waitFor({ state: "attached" });
      // The order page now says so, and has no fulfil action left.
      await eventually(() => page.getByRole("button", { name: "Mark as fulfilled" }).count(), (n) => n === 0, "the action gone");
      await page.getByText(tracking).first().waitFor();
      const mail = await eventually(
        () => mailTo(server, buyer).filter((m) => m.text.includes(tracking)),
        (m) => m.length === 1,
        "the buyer's shipped email with the tracking number",
      );
      assert.ok(mail[0].text.includes("Beeswax Pillar Candle"), `the shipped email names the line: ${mail[0].text}`);
    },
  ],
  [
    "cancel an order: its stock goes back; refund part of another: the buyer is told how much",
    async ({ browser, context, server, backend }) => {
      const candle = (await apiGet(server, LOAM, `${CANDLE}?format=json`)).body.item.id;
      const before = await stockOf(server, LOAM, candle, "BPC-10");
      const cancelled = `cancel-${backend}@example.com`;
      await visitorBuys(browser, server, cancelled);
      assert.equal(await stockOf(server, LOAM, candle, "BPC-10"), before - 1, "the order took one");
      const page = await signIn(context, server);
      const title = await openOrderOf(page, cancelled);
      await page.getByRole("button", { name: "Cancel order" }).click();
      const dialog = page.getByRole("dialog", { name: `Cancel order: ${title.replace("Order ", "order ")}` });
      await dialog.waitFor();
      assert.deepEqual(await axe(page), [], "the cancel dialog");
      await dialog.getByRole("button", { name: "Cancel order" }).click();
      await dialog.waitFor({ state: "detached" });
      await eventually(() => stockOf(server, LOAM, candle, "BPC-10"), (n) => n === before, "the stock back");
      await eventually(() => mailTo(server, cancelled).map((m) => m.subject), (s) => s.some((x) => /cancel/i.test(x)), "the cancellation email");
      // Cancelling again is not offered.
      await eventually(() => page.getByRole("button", { name: "Cancel order" }).count(), (n) => n === 0, "no cancel action left");

      const refunded = `refund-${backend}@example.com`;
      await visitorBuys(browser, server, refunded);
      await openOrderOf(page, refunded);
      await page.getByRole("button", { name: "Refund" }).click();
      const refund = page.getByRole("dialog", { name: /^Refund: order/ });
      await refund.waitFor();
      await refund.getByLabel("Amount (EUR)").fill("5.00");
      await refund.getByLabel("Reason").fill("A dented candle");
      await refund.getByRole("button", { name: /^Refund/ }).click();
      await refund.waitFor({ state: "detached" });
      const mail = await eventually(
        () => mailTo(server, refunded).filter((m) => /refund/i.test(m.subject)),
        (m) => m.length === 1,
        "the refund email",
      );
      assert.ok(mail[0].text.includes("€5.00"), `the refund email says how much: ${mail[0].text}`);
      assert.ok(mail[0].text.includes("A dented candle"), "and why");
    },
  ],
  [
    "keyboard only: add a product in the app; a visitor buys it on the live site",
    async ({ browser, context, server, backend }) => {
      const page = await signIn(context, server);
      await nav(page, "Products");
      await h1Focused(page, "Products");
      const addLink = page.getByRole("link", { name: "Add product" });
      await tabTo(page, addLink);
      await page.keyboard.press("Enter");
      await h1Focused(page, "Add product");
      assert.deepEqual(await axe(page), [], "the product form");
      const title = `Rain gauge ${backend}`;
      await tabTo(page, page.getByLabel("Title", { exact: true }));
      await page.keyboard.type(title);
      // An option with two values, by keyboard: the form makes a variant of each.
      await tabTo(page, page.getByRole("button", { name: "Add an option" }));
      await page.keyboard.press("Enter");
      await tabTo(page, page.getByLabel("Option name"));
      await page.keyboard.type("Size");
      await tabTo(page, page.getByLabel("Add to Values of Size"));
      for (const value of ["Small", "Large"]) {
        await page.keyboard.type(value);
        await page.keyboard.press("Enter");
      }
      for (const [size, price, stock] of [["Small", "12.50", "3"], ["Large", "19.00", "2"]]) {
        const variant = page.getByRole("group", { name: size, exact: true });
        await tabTo(page, variant.getByLabel("Price (EUR)", { exact: true }));
        await page.keyboard.type(price);
        await tabTo(page, variant.getByLabel("Stock", { exact: true }));
        await page.keyboard.type(stock);
        await tabTo(page, variant.getByLabel("SKU", { exact: true }));
        await page.keyboard.type(`RG-${size[0]}-${backend}`);
      }
      assert.deepEqual(await axe(page), [], "the product form, filled in");
      await tabTo(page, page.getByRole("button", { name: "Add product" }), 120);
      await page.keyboard.press("Enter");
      await h1Focused(page, title);
      const slug = `rain-gauge-${backend}`;
      // The product is on the live site at once, and sells.
      const buyer = `gauge-${backend}@example.com`;
      await visitorBuys(browser, server, buyer, `/shop/${slug}`, { Size: "Large" });
      await openOrderOf(page, buyer);
      await page.getByText(title).first().waitFor();
      await page.getByText("Size: Large").first().waitFor();
      // Hidden again from its form: the live site no longer has it.
      await nav(page, "Products");
      await h1Focused(page, "Products");
      await page.getByRole("link", { name: title, exact: true }).click();
      await h1Focused(page, title);
      await page.getByRole("radio", { name: /^Hidden/ }).check();
      await page.getByRole("button", { name: "Save product" }).click();
      await eventually(async () => (await apiGet(server, LOAM, `/shop/${slug}`)).status, (s) => s === 404, "the hidden product's page");
      await nav(page, "Products");
      await page.locator("tbody tr", { hasText: title }).getByText("Hidden").first().waitFor();
    },
  ],
  [
    "customers: a buyer's page lists their orders; a subscription bought on the site is cancelled from Subscriptions",
    async ({ browser, context, server, backend }) => {
      // A visitor subscribes to the monthly plant box (its own checkout).
      const subscriber = `plants-${backend}@example.com`;
      const visitor = await browser.newContext();
      try {
        const product = await visitor.newPage();
        await product.goto(`${server.origin(LOAM)}${BOX}`, { waitUntil: "load" });
        await product.waitForSelector(".sqs-add-to-cart-button[data-tessera-mounted]");
        await product.selectOption('select[data-variant-option-name="Size"]', "Small plant");
        await product.click(".sqs-add-to-cart-button");
        await product.waitForURL(/\/checkout\/subscription\?cartToken=/);
        await product.locator(".tessera-checkout-form").waitFor();
        await fillCheckout(product, { email: subscriber });
        await placeOrder(product);
      } finally {
        await visitor.close();
      }
      const page = await signIn(context, server);
      await nav(page, "Customers");
      await h1Focused(page, "Customers");
      const buyer = `fulfil-${backend}@example.com`;
      await page.locator("tbody tr", { hasText: buyer }).getByRole("link").first().click();
      await page.waitForURL(new RegExp(`/config/customers/${encodeURIComponent(buyer)}$`));
      await page.getByText(buyer).first().waitFor();
      await page.locator("section[aria-labelledby=customer-orders] tbody tr").first().waitFor();
      assert.deepEqual(await axe(page), [], "a customer's page");
      await sane(page, "a customer's page");
      await page.getByRole("navigation", { name: "Customers section" }).getByRole("link", { name: "Subscriptions" }).click();
      await h1Focused(page, "Subscriptions");
      const cancel = page.getByRole("button", { name: `Cancel subscription to Monthly Plant Box of ${subscriber}` });
      await cancel.waitFor();
      assert.deepEqual(await axe(page), [], "subscriptions");
      await cancel.click();
      const dialog = page.getByRole("dialog", { name: "Cancel subscription" });
      await dialog.getByRole("button", { name: "Cancel subscription" }).click();
      await dialog.waitFor({ state: "detached" });
      await eventually(() => cancel.count(), (n) => n === 0, "no cancel left for it");
      const row = page.locator("tbody tr", { hasText: subscriber });
      assert.match(await row.innerText(), /Cancelled/);
      await page.getByRole("navigation", { name: "Customers section" }).getByRole("link", { name: "Gift cards" }).click();
      await h1Focused(page, "Gift cards");
      await page.locator("main table, main .empty").first().waitFor();
      assert.deepEqual(await axe(page), [], "gift cards");
    },
  ],
  [
    "inventory: stock changed in place is what the store sells",
    async ({ context, server }) => {
      const can = (await apiGet(server, LOAM, `${CAN}?format=json`)).body.item;
      const sku = can.structuredContent.variants[0].sku;
      const page = await signIn(context, server);
      await nav(page, "Inventory");
      await h1Focused(page, "Inventory");
      await page.getByLabel("Search products and SKUs").fill(sku);
      await page.getByRole("button", { name: "Search", exact: true }).click();
      const cell = page.getByLabel(`Stock of Brass Watering Can, ${sku}`, { exact: true });
      await eventually(() => cell.count(), (n) => n === 1, "the watering can's row alone");
      assert.deepEqual(await axe(page), [], "inventory");
      // Its stock is unlimited: counted from now on, 7 of them.
      await page.getByRole("checkbox", { name: `Unlimited stock of Brass Watering Can, ${sku}` }).uncheck();
      await cell.fill("7");
      await page.getByRole("button", { name: "Save changes" }).click();
      await eventually(() => stockOf(server, LOAM, can.id, sku), (n) => n === 7, "the store's stock");
    },
  ],
  [
    "every screen axe-clean under the shell's policy; the analytics charts drawn from the visits made",
    async ({ context, server }) => {
      const page = await signIn(context, server);
      await page.locator(".sparkline canvas").first().waitFor();
      assert.equal(await page.locator(".sparkline canvas").count(), 5, "one chart per measure");
      assert.deepEqual(await axe(page), [], "dashboard");
      for (const [link, ready] of [
        ["Orders", "tbody tr"],
        ["Products", "tbody tr"],
        ["Inventory", "tbody tr"],
        ["Customers", "tbody tr"],
        ["Analytics", ".chart canvas"],
        ["Settings", "main a"],
      ]) {
        await nav(page, link);
        await h1Focused(page, link);
        await page.locator(ready).first().waitFor();
        assert.deepEqual(await axe(page), [], link);
        await sane(page, link);
      }
      // Analytics: the page views and orders the earlier scenarios made, per day and in the
      // funnel, beside the charts.
      await nav(page, "Analytics");
      await h1Focused(page, "Analytics");
      await page.locator(".chart canvas").nth(1).waitFor();
      await page.getByText("Numbers per day").click();
      // The visitors' purchases (four orders so far) and page views are in the funnel.
      const funnel = page.locator("section[aria-labelledby=funnel]");
      const step = async (name) =>
        Number((await funnel.getByRole("rowheader", { name }).locator("xpath=..").getByRole("cell").first().innerText()).replace(/\D/g, ""));
      assert.ok((await step("Purchased")) >= 4, `purchases counted: ${await funnel.innerText()}`);
      assert.ok((await step("Page views")) >= (await step("Purchased")), `page views counted: ${await funnel.innerText()}`);
      assert.deepEqual(await axe(page), [], "analytics, numbers open");
      await nav(page, "Settings");
      await page.getByRole("link", { name: "Access", exact: true }).click();
      await h1Focused(page, "Access");
      await page.getByText(MANAGER.email).first().waitFor();
      assert.deepEqual(await axe(page), [], "Settings → Access");
      await sane(page, "Settings → Access");
      // Both owners set their passwords (on the command line).
      assert.equal(await page.getByText("Has not set a password yet").count(), 0, "every owner has a password");
      // A token made here: its secret shown once, then listed as working, then revoked.
      await page.getByLabel("Token name").fill("stock sync");
      await page.getByRole("button", { name: "Create token" }).click();
      const made = page.getByRole("dialog", { name: /^Token stock sync created/ });
      await made.waitFor();
      assert.match(await made.getByLabel("The token").innerText(), /\S{20,}/);
      await made.getByRole("button", { name: "Done" }).click();
      const tokenRow = page.locator("tbody tr", { hasText: "stock sync" });
      assert.match(await tokenRow.innerText(), /Works/);
      await sane(page, "the tokens");
    },
  ],
  [
    "Settings → Store: a bad value is shown beside its field and nothing is stored; a good one is kept",
    async ({ context, server }) => {
      const page = await signIn(context, server);
      await nav(page, "Settings");
      await page.getByRole("link", { name: "Store settings" }).click();
      await h1Focused(page, "Store settings");
      const minimum = page.getByLabel("Minimum order (EUR)");
      await minimum.waitFor();
      assert.deepEqual(await axe(page), [], "Settings → Store");
      const before = await minimum.inputValue();
      await minimum.fill("a lot");
      await page.getByRole("button", { name: "Save store settings" }).click();
      await eventually(() => minimum.getAttribute("aria-invalid"), (v) => v === "true", "the field marked invalid");
      // The field's description (its hint and its error) says what is wrong.
      const ids = (await minimum.getAttribute("aria-describedby")).split(/\s+/);
      const said = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).innerText()));
      assert.ok(said.some((t) => t.includes("is not a price")), `the field says what is wrong: ${said}`);
      assert.deepEqual(await axe(page), [], "Settings → Store with an error");
      await page.reload();
      await page.getByLabel("Minimum order (EUR)").waitFor();
      assert.equal(await page.getByLabel("Minimum order (EUR)").inputValue(), before, "nothing stored");
      await page.getByLabel("Low stock at").fill("3");
      await page.getByRole("button", { name: "Save store settings" }).click();
      await page.getByText("Store settings saved.").waitFor({ state: "attached" });
      await page.reload();
      await page.getByLabel("Low stock at").waitFor();
      assert.equal(await page.getByLabel("Low stock at").inputValue(), "3", "kept");
    },
  ],
  [
    "a store manager: offered only what the role opens, and refused the rest by the server",
    async ({ context, server, backend }) => {
      const page = await signIn(context, server, MANAGER);
      const buyer = `fulfil-${backend}@example.com`;
      await openOrderOf(page, buyer);
      // Orders are read-only for the role: no actions, and a post from the page is refused.
      assert.equal(await page.getByRole("group", { name: "Order actions" }).count(), 0, "no order actions offered");
      const id = new URL(page.url()).pathname.split("/").pop();
      const csrf = await page.evaluate(() => fetch("/api/owner/session").then((r) => r.json()).then((m) => m.csrf));
      const tried = await page.evaluate(
        ([id, csrf]) =>
          fetch(`/api/owner/orders/${id}/resend-confirmation`, { method: "POST", headers: { "X-CSRF-Token": csrf, "Content-Type": "application/json" }, body: "{}" }).then(
            (r) => r.status,
          ),
        [id, csrf],
      );
      assert.equal(tried, 403, "the server refuses an order action");
      await nav(page, "Settings");
      await h1Focused(page, "Settings");
      assert.equal(await page.getByRole("link", { name: "Access", exact: true }).count(), 0, "Access not offered");
      assert.equal((await inPage(page, "GET", "/api/owner/accounts")).status, 403, "and refused");
    },
  ],
  [
    "Access: an invite sent from the app is taken from the outbox link; a forgotten password is reset by its emailed link",
    async ({ browser, context, server, backend }) => {
      const page = await signIn(context, server);
      await nav(page, "Settings");
      await page.getByRole("link", { name: "Access", exact: true }).click();
      await h1Focused(page, "Access");
      const invitee = `reports-${backend}@example.com`;
      await page.getByLabel("Email", { exact: true }).fill(invitee);
      await page.getByLabel("Role", { exact: true }).selectOption({ label: "Reporting" });
      await page.getByRole("button", { name: "Send invite" }).click();
      await page.getByText(`Invite sent to ${invitee}.`).waitFor({ state: "attached" });
      const link = (who, path) =>
        eventually(
          () => mailTo(server, who).map((m) => new RegExp(`https?://\\S+${path}\\?token=[\\w-]+`).exec(m.text)?.[0]).find(Boolean),
          (l) => !!l,
          `the ${path} link in the mail to ${who}`,
        );
      // The invitee, in a browser of their own, chooses a password from the link.
      const theirs = await browser.newContext();
      try {
        const p = await theirs.newPage();
        await p.goto(await link(invitee, "/config/invite"));
        await p.getByRole("heading", { level: 1, name: "Choose a password" }).waitFor();
        assert.deepEqual(await axe(p), [], "choosing a password");
        await p.getByLabel("New password").fill("reporting-password-1");
        await p.getByLabel("Repeat the password").fill("reporting-password-1");
        await p.getByRole("button", { name: "Save password and sign in" }).click();
        await p.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
        // Reporting reads orders (and so the members), form answers and analytics: that is all it is offered.
        assert.deepEqual(await p.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts(), [
          "Dashboard",
          "Forms",
          "Orders",
          "Customers",
          "Analytics",
          "Members",
        ]);
      } finally {
        await theirs.close();
      }
      // The store manager forgot their password.
      const forgetful = await browser.newContext();
      try {
        const p = await forgetful.newPage();
        await p.goto(`${server.origin(LOAM)}/config`);
        await p.getByRole("link", { name: "Forgot your password?" }).click();
        await p.getByRole("heading", { level: 1, name: "Reset your password" }).waitFor();
        assert.deepEqual(await axe(p), [], "resetting a password");
        await p.getByLabel("Email").fill(MANAGER.email);
        await p.getByRole("button", { name: "Send reset link" }).click();
        await p.goto(await link(MANAGER.email, "/config/reset"));
        await p.getByRole("heading", { level: 1, name: "Choose a password" }).waitFor();
        MANAGER.password = "a-new-manager-password";
        await p.getByLabel("New password").fill(MANAGER.password);
        await p.getByLabel("Repeat the password").fill(MANAGER.password);
        await p.getByRole("button", { name: "Save password and sign in" }).click();
        await p.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
      } finally {
        await forgetful.close();
      }
      // The new password works from a fresh browser.
      const again = await browser.newContext();
      try {
        await signIn(again, server, MANAGER);
      } finally {
        await again.close();
      }
    },
  ],
  [
    "templates: an upload with an error shows its problem and source line, a good one is switched to and rolled back",
    async ({ context, server, backend }) => {
      const page = await signIn(context, server);
      await nav(page, "Templates");
      await h1Focused(page, "Templates");
      await page.getByRole("table").waitFor();
      assert.deepEqual(await axe(page), [], "the Templates screen");
      await sane(page, "the Templates screen");
      const live = async () => {
        const r = await apiGet(server, LOAM, "/about");
        assert.equal(r.status, 200);
        return String(r.body);
      };
      const footerPath = path.join(fixtures, LOAM, "template/regions/footer.region");
      const footer = readFileSync(footerPath, "utf8");

      // A folder with an error, picked with the folder picker: its problem and line.
      const dir = mkdtempSync(path.join(os.tmpdir(), "tessera-e2e-theme-"));
      try {
        const theme = path.join(dir, "broken-theme");
        cpSync(path.join(fixtures, LOAM, "template"), theme, { recursive: true });
        const broken = "  <p>{siteTitle|no-such-formatter}</p>";
        writeFileSync(path.join(theme, "regions/footer.region"), `<footer>\n${broken}\n</footer>\n`);
        await page.getByLabel("Template folder").setInputFiles(theme);
        await page.getByText(/^Chosen: broken-theme: \d+ files$/).waitFor();
        await page.getByRole("button", { name: "Upload and check" }).click();
        const problems = page.getByRole("region", { name: /problems? in this upload$/ });
        await problems.waitFor();
        const text = await problems.innerText();
        assert.match(text, /regions\/footer\.region:2:\d+/, text);
        assert.ok(text.includes("Formatter 'no-such-formatter' is unknown"), text);
        const line = await problems.getByLabel("Line 2 of regions/footer.region").innerText();
        assert.equal(line.split("\n")[0], broken, `the source line: ${line}`);
        assert.equal(line.split("\n")[1].indexOf("^"), broken.indexOf("{"), `the caret under the column: ${line}`);
        assert.ok(text.includes("the site keeps its current version"), text);
        assert.deepEqual(await axe(page), [], "an upload's problems");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const mark = `E2E uploaded footer (${backend})`;
      assert.ok(!(await live()).includes(mark));

      // A good one, as a zip of its folder: stored, not served until switched to.
      const files = {};
      const walk = (d, rel) => {
        for (const name of readdirSync(d)) {
          const full = path.join(d, name);
          if (statSync(full).isDirectory()) walk(full, `${rel}${name}/`);
          else files[`good-theme/${rel}${name}`] = readFileSync(full);
        }
      };
      walk(path.join(fixtures, LOAM, "template"), "");
      files["good-theme/regions/footer.region"] = Buffer.from(`${footer}<p class="e2e-mark">${mark}</p>`);
      await page.getByLabel("Or a zip of the folder").setInputFiles({ name: "good-theme.zip", mimeType: "application/zip", buffer: Buffer.from(zipSync(files)) });
      await page.getByText(/^Chosen: good-theme\.zip: \d+ files$/).waitFor();
      await page.getByRole("button", { name: "Upload and check" }).click();
      const ready = page.getByRole("region", { name: /^Version \d+ is ready$/ });
      await ready.waitFor();
      const stored = Number((await ready.getByRole("heading").innerText()).match(/\d+/)[0]);
      assert.ok((await ready.innerText()).includes("The site still serves the version it had."));
      assert.ok(!(await live()).includes(mark), "stored, not served");
      const active = Number(
        (await page.getByRole("row").filter({ hasText: "Live" }).getByRole("rowheader").innerText()).match(/\d+/)[0],
      );
      // Switched by keyboard: the dialog's first button has the focus.
      await tabTo(page, ready.getByRole("button", { name: `Switch to version ${stored}` }));
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: `Switch to version ${stored}?` });
      await dialog.waitFor();
      assert.deepEqual(await axe(page), [], "the switch dialog");
      await page.keyboard.press("Enter");
      await dialog.waitFor({ state: "hidden" });
      await eventually(() => ready.innerText(), (t) => t.includes("The site serves it now."), "the upload served");
      assert.ok((await live()).includes(mark), "the next page shows the new version");

      // Rolled back to the version it had.
      await page.getByRole("button", { name: `Roll back to version ${active}` }).click();
      const back = page.getByRole("dialog", { name: `Roll back to version ${active}?` });
      await back.getByRole("button", { name: "Roll back" }).click();
      await back.waitFor({ state: "hidden" });
      await page.getByRole("row").filter({ hasText: `Version ${active}` }).getByText("Live").waitFor();
      assert.ok(!(await live()).includes(mark), "rolled back");
    },
  ],
  [
    "paid member area: the owner sells the Kiln Crew with a service product; a member buys it and reads its page",
    async ({ browser, context, server, backend }) => {
      const origin = server.origin(HARBOR);
      const page = await signIn(context, server, HARBOR_OWNER, HARBOR);
      // A service product, one price: what the area will sell.
      await nav(page, "Products");
      await h1Focused(page, "Products");
      await page.getByRole("link", { name: "Add product" }).click();
      await h1Focused(page, "Add product");
      const product = `Kiln Crew pass ${backend}`;
      await page.getByLabel("Title", { exact: true }).fill(product);
      await page.getByRole("radio", { name: /^Service/ }).check();
      await page.getByLabel(/^Price \(/).first().fill("15.00");
      await page.getByLabel("Unlimited stock").first().check();
      await page.getByLabel("SKU", { exact: true }).first().fill(`KCP-${backend}`);
      await page.getByRole("button", { name: "Add product" }).click();
      const invalid = page.locator(".field-error");
      await Promise.race([
        h1Focused(page, product),
        invalid.first().waitFor({ timeout: 20000 }).then(async () => {
          throw new Error(`the product form refused: ${(await invalid.allInnerTexts()).join("; ")}`);
        }),
      ]);

      await page.goto(`${origin}/config/members/areas`);
      await page.getByRole("heading", { level: 1, name: "Member areas" }).waitFor();
      const crew = page.getByRole("region", { name: "Kiln Crew" });
      await crew.getByText("Free to join").waitFor();
      // By keyboard: Edit, Access: Paid, the product, Save.
      await tabTo(page, page.getByRole("button", { name: "Edit Kiln Crew" }));
      await page.keyboard.press("Enter");
      const form = page.getByRole("form", { name: "Edit Kiln Crew" });
      await tabTo(page, form.getByRole("radio", { name: "Free" }));
      await page.keyboard.press("ArrowRight");
      assert.ok(await form.getByRole("radio", { name: "Paid" }).isChecked(), "Paid, by keyboard");
      const picker = form.getByLabel("Product sold to join");
      await picker.waitFor();
      assert.deepEqual(await axe(page), [], "the area's paid access");
      // Saving Paid without a product is said beside the picker.
      await form.getByRole("button", { name: "Save area" }).click();
      await form.getByText("Choose the product that is its price.").waitFor();
      assert.equal(await picker.getAttribute("aria-invalid"), "true");
      const option = (await picker.locator("option").allInnerTexts()).find((t) => t.startsWith(product));
      assert.ok(option && option.includes("$15.00"), `the picker lists the pass with its price: ${option}`);
      await picker.selectOption({ label: option });
      await tabTo(page, form.getByRole("button", { name: "Save area" }));
      await page.keyboard.press("Enter");
      await crew.getByText(`$15.00 (${product})`).waitFor();
      assert.deepEqual(await axe(page), [], "the member areas, one paid");

      // Marin (a member of the Studio Club only) buys her way into the Kiln Crew.
      const member = await browser.newContext();
      try {
        const p = await member.newPage();
        await p.goto(`${origin}/kiln-log`);
        await p.waitForSelector("button.member-area-join");
        assert.match((await p.locator("button.member-area-join").innerText()).trim(), /^Join.* for \$15\.00$/);
        await p.click("button.member-access-switch");
        await p.fill("#member-access-email", "marin@harbor-lane.localhost");
        await p.fill("#member-access-password", "glaze-and-fire-1");
        await Promise.all([p.waitForEvent("load"), p.click("form.member-access-sign-in button[type=submit]")]);
        // Signed in, still the join page: the button sells the pass, on to checkout.
        await p.waitForSelector("button.member-area-join");
        assert.equal(await p.locator("button.member-access-switch").count(), 0);
        await Promise.all([p.waitForURL(/\/checkout$/), p.click("button.member-area-join")]);
        await p.locator(".tessera-checkout").waitFor();
        await fillCheckout(p, { email: "marin@harbor-lane.localhost", shipping: false });
        await placeOrder(p);
        // The paid order opened the area: the page is its content now, not its join page.
        const r = await p.goto(`${origin}/kiln-log`);
        assert.equal(r.headers()["x-page-type"], "105");
        await p.getByText("a 15-minute hold").first().waitFor();
      } finally {
        await member.close();
      }
      // The members list names the order that opened it.
      await page.getByRole("navigation", { name: "Members section" }).getByRole("link", { name: "Members" }).click();
      await h1Focused(page, "Members");
      const marin = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Marin Okafor" }) });
      await marin.getByRole("link", { name: /^order #\d+$/ }).waitFor();
      assert.deepEqual(await axe(page), [], "the members, one paid");
    },
  ],
  [
    "comments: a member's comment waits, the owner approves it and the live page shows it; members and member areas",
    async ({ browser, context, server }) => {
      const origin = server.origin(HARBOR);
      const words = "The celadon is the colour of the sea.";
      // Marin comments on the journal post, from her own browser.
      const member = await browser.newContext();
      try {
        const p = await member.newPage();
        await p.goto(`${origin}/journal/spring-firing`);
        await p.waitForSelector(".tessera-comments-sign-in-start");
        await p.click(".tessera-comments-sign-in-start");
        await p.fill("#tessera-comments-email", "marin@harbor-lane.localhost");
        await p.fill("#tessera-comments-password", "glaze-and-fire-1");
        await Promise.all([p.waitForEvent("load"), p.click("form.tessera-comments-sign-in button[type=submit]")]);
        await p.waitForSelector("textarea[name=body]");
        await p.fill("textarea[name=body]", words);
        await p.click("form.tessera-comments-form button[type=submit]");
        await p.waitForSelector(".tessera-comments-said");
      } finally {
        await member.close();
      }
      const shown = async () => (await apiGet(server, HARBOR, "/api/comments?itemId=718009ccb4328d6c2aa01821")).body;
      assert.ok(!(await shown()).comments.some((c) => c.body === words), "it waits");

      const page = await signIn(context, server, HARBOR_OWNER, HARBOR);
      await nav(page, "Members");
      await h1Focused(page, "Members");
      await page.getByRole("rowheader", { name: "Marin Okafor" }).waitFor();
      assert.deepEqual(await axe(page), [], "the members");
      await sane(page, "the members");
      const section = page.getByRole("navigation", { name: "Members section" });
      await section.getByRole("link", { name: "Member areas" }).click();
      await h1Focused(page, "Member areas");
      const club = page.getByRole("region", { name: "Studio Club" });
      await club.getByText("“Join the Studio Club”").waitFor();
      assert.ok((await club.innerText()).includes("Wheel Course"));
      assert.deepEqual(await axe(page), [], "the member areas");
      // An area's join button, changed: its join page follows.
      await page.getByRole("button", { name: "Edit Kiln Crew" }).click();
      const form = page.getByRole("form", { name: "Edit Kiln Crew" });
      await form.getByLabel("Join button label").fill("Join the kiln crew");
      assert.deepEqual(await axe(page), [], "editing a member area");
      await form.getByLabel("Join button label").press("Enter");
      await page.getByRole("region", { name: "Kiln Crew" }).getByText("“Join the kiln crew”").waitFor();
      assert.ok(String((await apiGet(server, HARBOR, "/kiln-log")).body).includes("Join the kiln crew"), "the join page shows it");

      await section.getByRole("link", { name: "Comments" }).click();
      await h1Focused(page, "Comments");
      const states = page.getByRole("navigation", { name: "Comment states" });
      await states.getByRole("link", { name: /^Pending \(1\)$/ }).waitFor();
      const item = page.getByRole("listitem").filter({ hasText: words });
      await item.waitFor();
      assert.deepEqual(await axe(page), [], "comment moderation");
      await sane(page, "comment moderation");
      // Approved by keyboard.
      await tabTo(page, item.getByRole("button", { name: /^Approve comment by Marin Okafor/ }));
      await page.keyboard.press("Enter");
      await states.getByRole("link", { name: /^Pending \(0\)$/ }).waitFor();
      await page.getByText("No comments are waiting for you.").waitFor();
      assert.ok((await shown()).comments.some((c) => c.body === words), "the live page's comments have it");
      const visitor = await browser.newContext();
      try {
        const p = await visitor.newPage();
        await p.goto(`${origin}/journal/spring-firing`);
        await p.getByText(words).waitFor();
      } finally {
        await visitor.close();
      }
      await states.getByRole("link", { name: /^Approved/ }).click();
      await page.getByRole("list", { name: "Approved comments" }).getByText(words).waitFor();
      assert.deepEqual(await axe(page), [], "approved comments");
    },
  ],
  [
    "Design: a colour changed in the style panel shows in the frame before saving, on the live site after; the phone view narrows the frame; links and the cart pill navigate the frame",
    async ({ browser, context, server }) => {
      execFileSync(tessera, ["owner", "add", HARBOR, DESIGNER.email, "--role", "admin", "--password-stdin", ...server.storeArgs], {
        input: `${DESIGNER.password}\n`,
        stdio: ["pipe", "pipe", "pipe"],
      });
      const page = await context.newPage();
      await page.goto(`${server.origin(HARBOR)}/config`);
      await page.getByLabel("Email").fill(DESIGNER.email);
      await page.getByLabel("Password").fill(DESIGNER.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
      await nav(page, "Design");
      await h1Focused(page, "Design");
      const colour = page.getByLabel("Text color", { exact: true });
      await colour.waitFor();
      await sane(page, "the design screen");
      // The frame shows the live site, on its own host.
      const frameEl = page.locator('iframe[title="Site preview"]');
      const site = async () => {
        const handle = await frameEl.elementHandle();
        const f = await handle.contentFrame();
        await f.waitForFunction(() => document.readyState === "complete" && !!document.body);
        return f;
      };
      const bodyColour = async (f) => f.evaluate(() => getComputedStyle(document.body).color);
      // A read of the frame while it navigates fails: it is read again.
      const safe = (read) => async () => {
        try {
          return await read();
        } catch (e) {
          return `unreadable: ${String(e.message).slice(0, 80)}`;
        }
      };
      await eventually(safe(async () => bodyColour(await site())), (c) => c === "rgb(29, 42, 48)", "the site's own text colour in the frame");
      assert.deepEqual(await axe(page, { include: [["main"]], exclude: [[".site-frame-stage"]] }), [], "the design screen");

      // A colour typed in the panel: the frame shows it before anything is saved.
      assert.equal(await colour.inputValue(), "#1d2a30");
      await colour.fill("#aa0000");
      const typed = Date.now();
      const f = await site();
      await f.waitForFunction(() => getComputedStyle(document.body).color === "rgb(170, 0, 0)", null, { timeout: 10000 });
      console.log(`       the preview showed ${Date.now() - typed} ms after the change (80 ms of it the debounce)`);
      await page.getByText("Previewing unsaved changes.").waitFor();
      // Visitors still see the saved design.
      const visitor = await browser.newContext();
      try {
        const v = await visitor.newPage();
        await v.goto(`${server.origin(HARBOR)}/`);
        assert.equal(await v.evaluate(() => getComputedStyle(document.body).color), "rgb(29, 42, 48)", "visitors see the saved colour");
        // Saved: the frame (reloaded from the server) and every visitor's next page show it.
        await page.getByRole("button", { name: "Save", exact: true }).click();
        await page.getByText("Design saved. Visitors see it now.").waitFor({ state: "attached" });
        await eventually(safe(async () => bodyColour(await site())), (c) => c === "rgb(170, 0, 0)", "the saved colour in the frame");
        await v.reload();
        assert.equal(await v.evaluate(() => getComputedStyle(document.body).color), "rgb(170, 0, 0)", "visitors see the new colour");
      } finally {
        await visitor.close();
      }

      // The phone view, by keyboard: the frame narrows under the mobile breakpoint.
      const phone = page.getByRole("group", { name: "Device view" }).getByRole("button", { name: "Phone" });
      await tabTo(page, phone);
      await page.keyboard.press("Enter");
      assert.equal(await phone.getAttribute("aria-pressed"), "true");
      const width = await eventually(safe(async () => (await site()).evaluate(() => window.innerWidth)), (w) => w <= 432, "the phone view's width");
      assert.ok(width <= 432 && width > 300, `phone width ${width}`);
      await page.getByRole("group", { name: "Device view" }).getByRole("button", { name: "Desktop" }).click();
      await eventually(safe(async () => (await site()).evaluate(() => window.innerWidth)), (w) => w > 432, "the desktop width");

      // A link clicked in the frame navigates the frame; the app stays.
      const shop = (await site()).locator('a[href="/shop"]').first();
      await shop.click();
      await eventually(safe(async () => (await site()).evaluate(() => location.pathname)), (p) => p === "/shop", "the frame on /shop");
      assert.equal(new URL(page.url()).pathname, "/config/design", "the app stays where it was");
      await page.getByText("The frame shows /shop.").waitFor({ state: "attached" });
      // The floating cart pill inside the frame sets the frame's address (SPEC.md §2).
      const product = (await site()).locator('a[href="/shop/tidepool-mug"]').first();
      await product.click();
      await eventually(safe(async () => (await site()).evaluate(() => location.pathname)), (p) => p === "/shop/tidepool-mug", "the frame on the mug");
      const mug = await site();
      // The cart island must be mounted first: a click before it is is lost (a loaded machine
      // mounts it late).
      await mug.waitForSelector(".sqs-add-to-cart-button[data-tessera-mounted]");
      await mug.selectOption('select[data-variant-option-name="Size"]', "12 oz");
      await mug.click(".sqs-add-to-cart-button");
      const pill = (await site()).locator("a.tessera-cart-pill");
      await pill.waitFor();
      await pill.click();
      await eventually(safe(async () => (await site()).evaluate(() => location.pathname)), (p) => p === "/cart", "the pill opened /cart in the frame");
      assert.equal(new URL(page.url()).pathname, "/config/design", "the pill did not leave the app");

      // The editor's page kinds: checkout in the frame.
      await page.getByLabel("Page kind to preview").selectOption({ label: "Checkout" });
      await eventually(safe(async () => (await site()).evaluate(() => location.pathname)), (p) => p === "/checkout", "the frame on /checkout");

      // Reset to defaults (previewed), then saved: the template's colour again.
      await page.getByRole("button", { name: "Reset to defaults" }).click();
      assert.equal(await colour.inputValue(), "#1d2a30");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByText("Design saved. Visitors see it now.").waitFor({ state: "attached" });
      const again = await browser.newContext();
      try {
        const v = await again.newPage();
        await v.goto(`${server.origin(HARBOR)}/`);
        assert.equal(await v.evaluate(() => getComputedStyle(document.body).color), "rgb(29, 42, 48)", "back to the template's colour");
      } finally {
        await again.close();
      }
    },
  ],
];

// ---- Pages (issue 44) ----

/** The titles of the live site's main navigation (a fresh visitor's page). */
async function liveNav(browser, server) {
  const visitor = await browser.newContext();
  try {
    const p = await visitor.newPage();
    await p.goto(`${server.origin(LOAM)}/`, { waitUntil: "load" });
    return (await p.locator("header .nav__list > li > a").allInnerTexts()).map((t) => t.trim());
  } finally {
    await visitor.close();
  }
}

scenarios.push([
  "pages: add a page and see it in the live site's navigation; reorder it by keyboard; errors by field; axe",
  async ({ browser, context, server }) => {
    const page = await signIn(context, server);
    await nav(page, "Pages");
    await h1Focused(page, "Pages");
    const main = page.getByRole("region", { name: "Main Navigation" });
    await main.getByRole("button", { name: "Settings of Welcome" }).waitFor();
    assert.deepEqual(await axe(page), [], "the Pages screen");
    await sane(page, "the Pages screen");
    const before = await liveNav(browser, server);
    assert.deepEqual(before, ["Welcome", "Shop", "Workshops", "About"]);

    // Add a page to the main navigation, by keyboard.
    await tabTo(page, page.getByRole("button", { name: "Add page" }));
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Add a page" });
    await dialog.waitFor();
    assert.deepEqual(await axe(page), [], "adding a page");
    await dialog.getByLabel("Title").fill("Open studio");
    await dialog.getByLabel("URL").fill("cart");
    await dialog.getByRole("button", { name: "Add page" }).click();
    const url = dialog.getByLabel("URL");
    await dialog.getByText("cart is not a valid page URL").waitFor();
    assert.equal(await url.getAttribute("aria-invalid"), "true");
    assert.deepEqual(await axe(page), [], "adding a page, with an error");
    await url.fill("");
    await dialog.getByRole("button", { name: "Add page" }).click();
    await page.getByTestId("live").filter({ hasText: "Open studio added." }).waitFor();
    await main.getByRole("button", { name: "Settings of Open studio" }).waitFor();
    await eventually(() => liveNav(browser, server), (n) => n.join() === "Welcome,Shop,Workshops,About,Open studio", "the new page last in the live navigation");
    // The live site in the frame beside the panel shows the page just added, and reloads
    // after each change (a read while it navigates fails and is read again).
    const framed = async () => {
      try {
        const f = await (await page.locator('iframe[title="Site preview"]').elementHandle()).contentFrame();
        const nav = (await f.locator("header .nav__list > li > a").allInnerTexts()).map((t) => t.trim());
        return { path: await f.evaluate(() => location.pathname), nav: nav.join() };
      } catch {
        return null;
      }
    };
    await eventually(framed, (s) => s?.path === "/open-studio" && s.nav.endsWith("Open studio"), "the new page in the frame");
    await main.locator("li", { hasText: "Open studio" }).first().getByText("In the preview").waitFor();
    const visitor = await browser.newContext();
    try {
      const p = await visitor.newPage();
      const r = await p.goto(`${server.origin(LOAM)}/open-studio`);
      assert.equal(r.status(), 200, "the new page is on the site");
    } finally {
      await visitor.close();
    }

    // Reorder by keyboard: Alt+Up twice on the new row; the position is announced and the
    // focus stays on the row.
    const settings = main.getByRole("button", { name: "Settings of Open studio" });
    await tabTo(page, settings, 80);
    await page.keyboard.press("Alt+ArrowUp");
    await page.getByTestId("live").filter({ hasText: "Open studio moved to position 4 of 5 in Main Navigation." }).waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Settings of Open studio");
    await page.keyboard.press("Alt+ArrowUp");
    await page.getByTestId("live").filter({ hasText: "Open studio moved to position 3 of 5 in Main Navigation." }).waitFor();
    await eventually(() => liveNav(browser, server), (n) => n.join() === "Welcome,Shop,Open studio,Workshops,About", "the new order on the live site");
    await eventually(framed, (s) => s?.nav === "Welcome,Shop,Open studio,Workshops,About", "the new order in the frame");
    // The Move button does it too.
    await main.getByRole("button", { name: "Move Open studio down" }).click();
    await page.getByTestId("live").filter({ hasText: "Open studio moved to position 4 of 5 in Main Navigation." }).waitFor();
    await eventually(() => liveNav(browser, server), (n) => n.join() === "Welcome,Shop,Workshops,Open studio,About", "moved down on the live site");
    // And by dragging: the row dropped on Shop's goes before it.
    await main.locator("li", { hasText: "Open studio" }).first().dragTo(main.locator("li", { hasText: "Shop" }).first());
    await page.getByTestId("live").filter({ hasText: "Open studio moved to position 2 of 5 in Main Navigation." }).waitFor();
    await eventually(() => liveNav(browser, server), (n) => n.join() === "Welcome,Open studio,Shop,Workshops,About", "dragged on the live site");
    assert.deepEqual(await axe(page), [], "the Pages screen after moves");

    // Its settings: a navigation title the live site shows; then deleted after asking.
    await main.getByRole("button", { name: "Settings of Open studio" }).click();
    const settingsDialog = page.getByRole("dialog", { name: "Settings of Open studio" });
    await settingsDialog.waitFor();
    assert.deepEqual(await axe(page), [], "a page's settings");
    await settingsDialog.getByLabel("Navigation title").fill("Studio");
    await settingsDialog.getByRole("button", { name: "Save" }).click();
    await page.getByTestId("live").filter({ hasText: "Open studio saved." }).waitFor();
    await eventually(() => liveNav(browser, server), (n) => n.includes("Studio"), "the navigation title on the live site");
    await main.getByRole("button", { name: "Settings of Studio" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete page" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete Open studio?" });
    await confirm.waitFor();
    assert.deepEqual(await axe(page), [], "the delete confirmation");
    await confirm.getByRole("button", { name: "Delete" }).click();
    await page.getByTestId("live").filter({ hasText: "Open studio deleted." }).waitFor();
    await eventually(() => liveNav(browser, server), (n) => n.join() === before.join(), "gone from the live site");
  },
]);

// ---- Forms (issue 44) ----

const QUILL = "quillback"; // its /contact page shows the "Book a repair" form
const QUILL_OWNER = { email: "owner@quillback.example", password: "e2e-quill-password" };

{
  scenarios.push([
    "forms: build a form in the app, submit it on the site, see the answer in the table; keyboard; axe",
    async ({ browser, context, server }) => {
      execFileSync(tessera, ["owner", "add", QUILL, QUILL_OWNER.email, "--role", "admin", "--password-stdin", ...server.storeArgs], {
        input: `${QUILL_OWNER.password}\n`,
      });
      const page = await context.newPage();
      await page.goto(`${server.origin(QUILL)}/config`);
      await page.getByLabel("Email").fill(QUILL_OWNER.email);
      await page.getByLabel("Password").fill(QUILL_OWNER.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
      await nav(page, "Forms");
      await h1Focused(page, "Forms");
      await page.getByRole("rowheader", { name: "Book a repair" }).waitFor();
      assert.deepEqual(await axe(page), [], "the forms list");
      await sane(page, "the forms list");

      // A new form, by keyboard: its name, then a field added and moved up.
      await tabTo(page, page.getByRole("button", { name: "Add form" }));
      await page.keyboard.press("Enter");
      const add = page.getByRole("dialog", { name: "Add form" });
      await add.waitFor();
      assert.deepEqual(await axe(page), [], "adding a form");
      await page.keyboard.type("Ride sign-up");
      await page.keyboard.press("Enter");
      await h1Focused(page, "Ride sign-up");
      await page.getByLabel("Kind of field").selectOption("checkbox");
      await page.getByRole("button", { name: "Add field" }).click();
      const extras = page.getByRole("group", { name: "2. Checkboxes" });
      await extras.getByLabel("Label").fill("Rides");
      const up = page.getByRole("button", { name: "Move Rides up" });
      await tabTo(page, up, 80);
      await page.keyboard.press("Enter");
      await page.getByTestId("live").filter({ hasText: "Rides moved to position 1." }).waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Move Rides down");
      // A recipient that is no address: refused beside its field.
      await page.getByRole("button", { name: "Add email address" }).click();
      await page.getByLabel("Email address 1", { exact: true }).fill("bench at quillback");
      await page.getByRole("button", { name: "Save form" }).click();
      await page.getByText("Emails must be formatted as name@example.com").waitFor();
      assert.equal(await page.getByLabel("Email address 1", { exact: true }).getAttribute("aria-invalid"), "true");
      assert.deepEqual(await axe(page), [], "the form builder, with an error");
      await page.getByLabel("Email address 1", { exact: true }).fill("rides@quillback.example");
      await page.getByRole("button", { name: "Save form" }).click();
      await page.getByTestId("live").filter({ hasText: "Form saved. The site shows it now." }).waitFor();

      // The site's booking form: a 20-character limit on the details and a new message.
      await nav(page, "Forms");
      await page.getByRole("link", { name: "Book a repair", exact: true }).click();
      await h1Focused(page, "Book a repair");
      assert.deepEqual(await axe(page), [], "the form builder");
      await sane(page, "the form builder");
      const details = page.getByRole("group", { name: "7. Paragraph" });
      await details.getByLabel("Character limit").fill("20");
      await page.getByLabel("Message", { exact: true }).fill("See you at the bench.");
      await page.getByRole("button", { name: "Save form" }).click();
      await page.getByTestId("live").filter({ hasText: "Form saved. The site shows it now." }).waitFor();

      // A visitor submits it on the site: the saved limit applies, then the saved message.
      const visitor = await browser.newContext();
      try {
        const v = await visitor.newPage();
        await v.goto(`${server.origin(QUILL)}/contact`, { waitUntil: "load" });
        await v.locator("#fname").fill("Ada");
        await v.locator("#lname").fill("Lovelace");
        await v.locator("#email").fill("ada@example.com");
        await v.locator("#bike").selectOption("Road");
        await v.getByLabel("Full overhaul").check();
        await v.locator("#details").fill("It creaks on every climb, loudly.");
        await v.getByRole("button", { name: "Send request" }).click();
        await v.getByText("You have exceeded the character limit.").first().waitFor();
        await v.locator("#details").fill("Creaks on climbs.");
        await v.getByRole("button", { name: "Send request" }).click();
        await v.getByText("See you at the bench.").waitFor();
      } finally {
        await visitor.close();
      }

      // The answer in the table, with the CSV export.
      await page.getByRole("link", { name: /^Submissions/ }).click();
      await h1Focused(page, "Submissions to Book a repair");
      const row = page.getByRole("row").filter({ hasText: "ada@example.com" });
      await row.waitFor();
      assert.match(await row.innerText(), /Ada Lovelace[\s\S]*Road[\s\S]*Full overhaul[\s\S]*Creaks on climbs\./);
      const csv = await page.getByRole("link", { name: "Export submissions as CSV" }).getAttribute("href");
      const body = await page.evaluate((u) => fetch(u).then((r) => r.text()), csv);
      assert.match(body, /^submitted,page,Name,Email,/);
      assert.match(body, /Ada Lovelace,ada@example\.com,/);
      assert.deepEqual(await axe(page), [], "a form's submissions");
      await sane(page, "a form's submissions");
      await page.getByRole("link", { name: "All forms" }).click();
      await page.getByRole("link", { name: "Newsletter subscribers" }).click();
      await h1Focused(page, "Newsletter subscribers");
      assert.deepEqual(await axe(page), [], "the subscribers");
    },
  ]);
}

/** The live site's `<html lang>` for a visitor of their own. */
async function liveLang(browser, server) {
  const visitor = await browser.newContext();
  try {
    const p = await visitor.newPage();
    await p.goto(`${server.origin(LOAM)}/`, { waitUntil: "load" });
    return await p.evaluate(() => document.documentElement.lang);
  } finally {
    await visitor.close();
  }
}

scenarios.push([
  "Settings → Languages: add a language by keyboard and see it listed; change the default and see it on the live site; axe",
  async ({ browser, context, server }) => {
    const page = await signIn(context, server);
    await nav(page, "Settings");
    await page.getByRole("link", { name: "Languages", exact: true }).click();
    await h1Focused(page, "Languages");
    const picker = page.getByLabel("Add a language");
    await picker.waitFor();
    assert.deepEqual(await axe(page), [], "Settings → Languages");
    await sane(page, "Settings → Languages");
    // By keyboard: to the picker, choose, to the button, Enter.
    await tabTo(page, picker);
    await picker.selectOption("nl-NL");
    await tabTo(page, page.getByRole("button", { name: "Add language" }));
    await page.keyboard.press("Enter");
    await page.getByTestId("live").filter({ hasText: "Nederlands (Nederland) added." }).waitFor();
    const row = page.getByRole("row", { name: /Nederlands \(Nederland\)/ });
    await row.waitFor();
    assert.equal(await row.getByRole("checkbox").isChecked(), true, "a new language is enabled");
    // Stored: there after a reload, and no longer offered.
    await page.reload();
    await page.getByRole("row", { name: /Nederlands \(Nederland\)/ }).waitFor();
    const offered = await page.getByLabel("Add a language").locator("option").evaluateAll((os) => os.map((o) => o.value));
    assert.ok(!offered.includes("nl-NL"), "a language the site has is not offered again");
    // The same language again, through the API, is refused with SPEC's words.
    const r = await page.evaluate(async () => {
      const me = await (await fetch("/api/owner/session")).json();
      const res = await fetch("/api/multilingual/languages", {
        method: "PUT",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf },
        body: JSON.stringify({ languages: ["nl-NL", "nl-nl"] }),
      });
      return { status: res.status, body: await res.json() };
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.errors["languages[1]"], "This language already exists");
    // The default language, on the live site from the next page.
    assert.equal(await liveLang(browser, server), "en-US");
    await page.getByLabel("Language of the site").selectOption("nl-NL");
    await page.getByRole("button", { name: "Save default language" }).click();
    await page.getByTestId("live").filter({ hasText: "The default language is now Nederlands (Nederland)." }).waitFor();
    assert.deepEqual(await axe(page), [], "Settings → Languages after changes");
    await eventually(() => liveLang(browser, server), (l) => l === "nl-NL", "the live site in the new default");
    // Back as it was, for the scenarios after.
    await page.getByLabel("Language of the site").selectOption("en-US");
    await page.getByRole("button", { name: "Save default language" }).click();
    await page.getByTestId("live").filter({ hasText: "The default language is now English (United States)." }).waitFor();
    await eventually(() => liveLang(browser, server), (l) => l === "en-US", "the live site in English again");
  },
]);

// ---- Galleries (issue 44) ----

const SKY = "skyward"; // its /gallery page is a gallery of 12 images
const SKY_OWNER = { email: "owner@skyward.example", password: "e2e-skyward-password" };

/** The live gallery as a visitor sees it: the list's classes and the images'
 *  alt texts in order. */
async function liveGallery(browser, server) {
  const visitor = await browser.newContext();
  try {
    const p = await visitor.newPage();
    await p.goto(`${server.origin(SKY)}/gallery`, { waitUntil: "load" });
    const list = p.locator("ul.gallery__grid");
    return {
      classes: (await list.getAttribute("class")) ?? "",
      alts: await list.locator("img").evaluateAll((imgs) => imgs.map((i) => i.getAttribute("alt"))),
    };
  } finally {
    await visitor.close();
  }
}

scenarios.push([
  "galleries: upload an image with alt text, move it first by keyboard, change the design and images per row; the frame and the live site follow; axe",
  async ({ browser, context, server }) => {
    addOwner(server, SKY_OWNER, "admin", SKY);
    const page = await signIn(context, server, SKY_OWNER, SKY);
    await nav(page, "Pages");
    await h1Focused(page, "Pages");
    await page.getByRole("link", { name: "Edit gallery Gallery" }).click();
    await h1Focused(page, "Gallery: Gallery");
    const images = page.getByRole("list", { name: "Images" });
    await images.getByRole("listitem").first().waitFor();
    assert.equal(await images.getByRole("listitem").count(), 12);
    assert.deepEqual(await axe(page), [], "the gallery screen");
    await sane(page, "the gallery screen");
    const before = await liveGallery(browser, server);
    assert.equal(before.alts.length, 12);
    assert.match(before.classes, /gallery--grid/);

    // Upload one image: alt text is asked for first, beside the file.
    await page.getByLabel("Choose images").setInputFiles(path.join(fixtures, "skyward/template/assets/gallery/comet-tail.jpg"));
    const staged = page.getByRole("group", { name: "comet-tail.jpg" });
    await staged.waitFor();
    await page.getByRole("button", { name: "Upload 1 image" }).click();
    const alt = staged.getByLabel("Alt text", { exact: true });
    await staged.getByText("Please enter alt text, or mark the image as decorative.").waitFor();
    assert.equal(await alt.getAttribute("aria-invalid"), "true");
    assert.deepEqual(await axe(page), [], "a file without alt text");
    await alt.fill("A comet's tail over the fell at dusk");
    await staged.getByLabel("Title").fill("Comet at dusk");
    await page.getByRole("button", { name: "Upload 1 image" }).click();
    await page.getByTestId("live").filter({ hasText: "1 image added." }).waitFor();
    await images.getByRole("button", { name: "Edit Comet at dusk" }).waitFor();
    await eventually(() => liveGallery(browser, server), (g) => g.alts.at(-1) === "A comet's tail over the fell at dusk", "the new image last on the live site");

    // Move it first by keyboard: Alt+Up once (announced, focus kept), then Alt+Home.
    await tabTo(page, images.getByRole("button", { name: "Edit Comet at dusk" }), 120);
    await page.keyboard.press("Alt+ArrowUp");
    await page.getByTestId("live").filter({ hasText: "Comet at dusk moved to position 12 of 13." }).waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Edit Comet at dusk");
    await page.keyboard.press("Alt+Home");
    await page.getByTestId("live").filter({ hasText: "Comet at dusk moved to position 1 of 13." }).waitFor();
    await eventually(() => liveGallery(browser, server), (g) => g.alts[0] === "A comet's tail over the fell at dusk", "the image first on the live site");
    // By dragging: dropped on the second image, it goes to its place; Alt+Home brings it back.
    await images.getByRole("listitem").first().dragTo(images.getByRole("listitem").nth(1));
    await page.getByTestId("live").filter({ hasText: "Comet at dusk moved to position 2 of 13." }).waitFor();
    await eventually(() => liveGallery(browser, server), (g) => g.alts[1] === "A comet's tail over the fell at dusk", "dragged on the live site");
    await images.getByRole("button", { name: "Edit Comet at dusk" }).focus();
    await page.keyboard.press("Alt+Home");
    await page.getByTestId("live").filter({ hasText: "Comet at dusk moved to position 1 of 13." }).waitFor();
    // The frame beside the panel shows the gallery, reloaded after the change.
    const framed = async () => {
      try {
        const f = await (await page.locator('iframe[title="Site preview"]').elementHandle()).contentFrame();
        return await f.evaluate(() => {
          const list = document.querySelector("ul.gallery__grid");
          const first = list?.querySelector("img");
          return { alt: first?.getAttribute("alt"), columns: list ? getComputedStyle(list).gridTemplateColumns.split(" ").length : 0, classes: list?.className ?? "" };
        });
      } catch {
        return null;
      }
    };
    await eventually(framed, (s) => s?.alt === "A comet's tail over the fell at dusk", "the image first in the frame");

    // Options: images per row 2 (grid); the frame's grid has two columns after saving.
    const perRow = page.getByLabel("Images per row");
    await perRow.fill("11");
    await page.getByRole("button", { name: "Save options" }).click();
    await page.getByText("This is a whole number from 1 to 10.").waitFor();
    assert.equal(await perRow.getAttribute("aria-invalid"), "true");
    assert.deepEqual(await axe(page), [], "an option out of range");
    await perRow.fill("2");
    await page.getByRole("button", { name: "Save options" }).click();
    await page.getByTestId("live").filter({ hasText: "Gallery options saved." }).waitFor();
    await eventually(() => liveGallery(browser, server), (g) => /\bgallery--columns-2\b/.test(g.classes), "two per row on the live site");
    await eventually(framed, (s) => s?.columns === 2 && s.alt === "A comet's tail over the fell at dusk", "two columns in the frame");
    // Another design: its own options only (Images per row is the grid's).
    await page.getByLabel("Design").selectOption("slideshow");
    await page.getByLabel("Autoplay", { exact: true }).waitFor();
    assert.equal(await page.getByLabel("Images per row").count(), 0);
    assert.deepEqual(await axe(page), [], "the slideshow's options");
    await page.getByRole("button", { name: "Save options" }).click();
    await page.getByTestId("live").filter({ hasText: "Gallery options saved." }).waitFor();
    await eventually(framed, (s) => /gallery--slideshow/.test(s?.classes ?? ""), "the slideshow in the frame");
    await eventually(() => liveGallery(browser, server), (g) => /gallery--slideshow/.test(g.classes), "the slideshow on the live site");

    // Edit and remove (asked first): back to the twelve.
    await images.getByRole("button", { name: "Edit Comet at dusk" }).click();
    const edit = page.getByRole("dialog", { name: "Edit Comet at dusk" });
    await edit.waitFor();
    assert.deepEqual(await axe(page), [], "editing an image");
    await edit.getByRole("button", { name: "Cancel" }).click();
    await images.getByRole("button", { name: "Remove Comet at dusk" }).click();
    const confirm = page.getByRole("dialog", { name: "Remove Comet at dusk?" });
    await confirm.waitFor();
    assert.deepEqual(await axe(page), [], "removing an image");
    await confirm.getByRole("button", { name: "Remove" }).click();
    await page.getByTestId("live").filter({ hasText: "Comet at dusk removed." }).waitFor();
    await eventually(() => liveGallery(browser, server), (g) => g.alts.join() === before.alts.join(), "the live gallery as it was");
    // The options back to the defaults, for anyone after.
    await page.getByLabel("Design").selectOption("grid");
    await page.getByLabel("Images per row").fill("4");
    await page.getByRole("button", { name: "Save options" }).click();
    await page.getByTestId("live").filter({ hasText: "Gallery options saved." }).waitFor();
  },
]);

scenarios.push(
  [
    "content: write and schedule a blog post with an image (keyboard in the editor), then publish it; axe on the content panels",
    async ({ browser, context, server }) => {
      const origin = server.origin(HARBOR);
      const visitor = await browser.newContext();
      const visit = async (path) => {
        const p = await visitor.newPage();
        const r = await p.goto(`${origin}${path}`);
        const out = { status: r.status(), html: await p.content(), alts: await p.locator("article img").evaluateAll((els) => els.map((e) => e.getAttribute("alt"))) };
        await p.close();
        return out;
      };
      try {
        const page = await signIn(context, server, HARBOR_OWNER, HARBOR);
        await nav(page, "Pages");
        await page.getByRole("link", { name: "Content of Journal" }).click();
        await h1Focused(page, "Journal");
        assert.deepEqual(await axe(page), [], "axe on the post list");
        await page.getByRole("link", { name: "New post" }).click();
        await h1Focused(page, "New post");
        await page.getByLabel("Title", { exact: true }).fill("Kiln day");
        assert.equal(await page.getByLabel("URL id").inputValue(), "kiln-day");

        // The text, by keyboard: Tab from the URL id reaches the toolbar's first button
        // (Heading), Enter makes the paragraph a heading; then the text box.
        const text = page.getByRole("textbox", { name: "Text", exact: true });
        await text.waitFor();
        await text.click();
        await page.keyboard.type("Forty-one pieces went in");
        await page.getByLabel("URL id").focus();
        const heading = page.getByRole("toolbar", { name: "Formatting: Text" }).getByRole("button", { name: "Heading", exact: true });
        await tabTo(page, heading, 5);
        await page.keyboard.press("Enter");
        assert.equal(await heading.getAttribute("aria-pressed"), "true");
        await text.press("End");
        await text.press("Enter");
        await page.keyboard.type("The cone packs bent early, so the ");
        await page.keyboard.press("Control+b");
        await page.keyboard.type("Oat glaze");
        await page.keyboard.press("Control+b");
        await page.keyboard.type(" came out glossy.");
        assert.match(await text.innerHTML(), /<h2>Forty-one pieces went in<\/h2><p>The cone packs bent early, so the <strong>Oat glaze<\/strong> came out glossy\.<\/p>/);

        // An image: uploaded, alt text required.
        await page.getByRole("toolbar", { name: "Formatting: Text" }).getByRole("button", { name: "Image" }).click();
        const dialog = page.getByRole("dialog", { name: "Add an image" });
        const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
        await dialog.getByLabel("Image file").setInputFiles({ name: "kiln.png", mimeType: "image/png", buffer: png });
        await dialog.getByRole("button", { name: "Add image" }).click();
        await dialog.getByText("Please describe the image, or mark it as decorative.").waitFor();
        assert.deepEqual(await axe(page), [], "axe on the image dialog");
        await dialog.getByLabel("Alt text", { exact: true }).fill("The kiln, open after the firing");
        await dialog.getByRole("button", { name: "Add image" }).click();
        await dialog.waitFor({ state: "detached" });
        await text.locator('img[alt="The kiln, open after the firing"]').waitFor();

        // Tags: a duplicate is refused.
        const tags = page.getByLabel("Tags", { exact: true });
        await tags.fill("kiln");
        await tags.press("Enter");
        await tags.fill("Kiln");
        await tags.press("Enter");
        await page.getByText("This tag already exists").waitFor();
        await tags.fill("");
        await page.getByLabel("Author").fill("Mara Lind");

        // Scheduled for a year ahead, in the site's time zone.
        await page.getByRole("radio", { name: /^Scheduled/ }).check();
        const next = new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString().slice(0, 10);
        await page.getByLabel(/^Publish on \(/).fill(`${next}T09:00`);
        assert.deepEqual(await axe(page), [], "axe on the post editor");
        await page.getByRole("button", { name: "Schedule" }).click();
        await page.getByTestId("live").filter({ hasText: "Kiln day saved." }).waitFor();
        await page.getByText("Scheduled", { exact: true }).first().waitFor();
        assert.equal((await visit("/journal/kiln-day")).status, 404, "a scheduled post is not found by visitors");
        assert.ok(!(await visit("/journal")).html.includes("Kiln day"), "nor listed on the blog");

        // Published now: the blog lists it, the post shows the image with its alt text.
        await page.getByRole("radio", { name: /^Published/ }).check();
        await page.getByRole("button", { name: "Publish" }).click();
        await page.getByText("Published", { exact: true }).first().waitFor();
        await eventually(async () => (await visit("/journal")).html.includes("Kiln day"), (x) => x, "the blog lists it");
        const post = await visit("/journal/kiln-day");
        assert.equal(post.status, 200);
        assert.deepEqual(post.alts, ["The kiln, open after the firing"]);
        assert.match(post.html, /<strong>Oat glaze<\/strong>/);
        await page.getByRole("link", { name: "Back to Journal" }).click();
        await h1Focused(page, "Journal");
        const row = page.getByRole("row", { name: /Kiln day/ });
        await row.getByText("Published").waitFor();
      } finally {
        await visitor.close();
      }
    },
  ]
);
/** What a visitor of their own sees on the live site's `path`: its h1 and whether the page
 *  is the site's lock screen. */
async function liveVisit(browser, server, path = "/") {
  const visitor = await browser.newContext();
  try {
    const p = await visitor.newPage();
    await p.goto(`${server.origin(LOAM)}${path}`, { waitUntil: "load" });
    return { locked: (await p.locator('input[name="lock"][value="site"]').count()) === 1, h1: await p.locator("h1").first().innerText() };
  } finally {
    await visitor.close();
  }
}

scenarios.push([
  "Settings → Site access: set a site password by keyboard; a fresh visitor sees the lock screen and unlocks it; the owner's frame is open; turn it off; axe",
  async ({ browser, context, server }) => {
    const page = await signIn(context, server);
    await nav(page, "Settings");
    await page.getByRole("link", { name: "Site access", exact: true }).click();
    await h1Focused(page, "Site access");
    await page.getByText("No password.").waitFor();
    assert.deepEqual(await axe(page), [], "Settings → Site access");
    await sane(page, "Settings → Site access");
    // An empty password is refused beside its field.
    const field = page.getByLabel("Site password", { exact: true }).and(page.locator("input"));
    await tabTo(page, page.getByRole("button", { name: "Turn on site password" }));
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector('input[type="password"]')?.getAttribute("aria-invalid") === "true");
    assert.deepEqual(await axe(page), [], "Settings → Site access with an error");
    // By keyboard: the password, the lock screen's heading, saved.
    await tabTo(page, field);
    await page.keyboard.type("lantern light");
    await page.keyboard.press("Enter");
    await page.getByTestId("live").filter({ hasText: "The site password is on." }).waitFor();
    await page.getByText("Password set.").waitFor();
    assert.equal(await page.getByLabel("New site password").inputValue(), "", "the password is never shown back");
    await page.getByLabel("Heading").fill("Opening soon");
    await page.getByRole("button", { name: "Save lock screen" }).click();
    await page.getByTestId("live").filter({ hasText: "The lock screen is saved." }).waitFor();
    assert.deepEqual(await axe(page), [], "Settings → Site access, password set");
    // A visitor in a fresh browser context: the lock screen on every page.
    await eventually(() => liveVisit(browser, server, "/shop"), (v) => v.locked && v.h1 === "Opening soon", "the lock screen on the live site");
    const visitor = await browser.newContext();
    const violations = [];
    await watchCsp(visitor, violations);
    try {
      const p = await visitor.newPage();
      await p.goto(`${server.origin(LOAM)}${CANDLE}`, { waitUntil: "load" });
      assert.deepEqual(await axe(p), [], "the site's lock screen");
      // Its own stylesheet applies (allowed by the policy's hash).
      assert.equal(await p.locator("body").evaluate((b) => getComputedStyle(b).display), "flex", "the lock screen's style");
      assert.equal(await p.locator("text=Beeswax").count(), 0, "nothing of the page shows");
      await p.getByLabel("Password").fill("not it");
      await p.getByRole("button", { name: "Unlock" }).click();
      await p.getByRole("alert").filter({ hasText: "Incorrect password. Please try again." }).waitFor();
      await p.getByLabel("Password").fill("lantern light");
      await p.keyboard.press("Enter");
      await p.waitForURL((u) => u.pathname === CANDLE && !u.search.includes("lock-error"));
      assert.equal(await p.locator('input[name="lock"][value="site"]').count(), 0, "unlocked");
      await p.getByRole("heading", { level: 1, name: /Beeswax/ }).waitFor();
      await p.goto(`${server.origin(LOAM)}/`, { waitUntil: "load" });
      assert.equal(await p.locator('input[name="lock"][value="site"]').count(), 0, "the whole site is unlocked");
      assert.deepEqual(violations, [], "CSP violations on the lock screen");
    } finally {
      await visitor.close();
    }
    // The owner, signed in, sees the site itself (the editor's frame).
    const own = await context.newPage();
    await own.goto(`${server.origin(LOAM)}/shop`, { waitUntil: "load" });
    assert.equal(await own.locator('input[name="lock"][value="site"]').count(), 0, "the owner's view is open");
    await own.close();
    // Off: open to everyone again.
    await page.getByRole("button", { name: "Turn off site password" }).click();
    await page.getByText("No password.").waitFor();
    await page.getByTestId("live").filter({ hasText: "The site password is off" }).waitFor();
    await eventually(() => liveVisit(browser, server, "/shop"), (v) => !v.locked, "the live site open again");
  },
]);

scenarios.push([
  "Design → announcement bar and cookie banner: turn both on by keyboard, see them on the live site, dismiss each (a form, no script); axe",
  async ({ browser, context, server }) => {
    // harbor-lane: its template does not place the bar itself, so the server does.
    const page = await signIn(context, server, HARBOR_OWNER, HARBOR);
    await nav(page, "Design");
    await h1Focused(page, "Design");
    const group = page.getByRole("group", { name: "Announcement bar" });
    await group.waitFor();
    assert.deepEqual(await axe(page, { include: [["main"]], exclude: [[".site-frame-stage"]] }), [], "the notices panel");
    // By keyboard: the switch, the text, then save.
    const toggle = page.getByRole("checkbox", { name: "Show the announcement bar" });
    await tabTo(page, toggle, 120);
    await page.keyboard.press("Space");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Spring market on Saturday");
    await page.getByRole("checkbox", { name: "Show the cookie banner" }).check();
    await page.getByLabel("Link (optional)").fill("not a link");
    await page.getByRole("button", { name: "Save announcement bar and cookie banner" }).click();
    await page.getByText("Links must be formatted as www.example.com or https://www.example.com").waitFor();
    assert.deepEqual(await axe(page, { include: [["main"]], exclude: [[".site-frame-stage"]] }), [], "the notices panel with an error");
    await page.getByLabel("Link (optional)").fill("/shop");
    await page.getByRole("button", { name: "Save announcement bar and cookie banner" }).click();
    await page.getByTestId("live").filter({ hasText: "Announcement bar and cookie banner saved." }).waitFor();
    // A visitor of their own: both on the live site, no script needed to close them.
    const visitor = await browser.newContext();
    const violations = [];
    await watchCsp(visitor, violations);
    try {
      const p = await visitor.newPage();
      await eventually(
        async () => {
          await p.goto(`${server.origin(HARBOR)}/`, { waitUntil: "load" });
          return await p.getByRole("region", { name: "Announcement" }).count();
        },
        (n) => n === 1,
        "the bar on the live site",
      );
      const bar = p.getByRole("region", { name: "Announcement" });
      assert.equal(await bar.getByRole("link", { name: "Spring market on Saturday" }).getAttribute("href"), "/shop");
      const banner = p.getByRole("region", { name: "Cookie notice" });
      await banner.waitFor();
      assert.deepEqual(await axe(p), [], "a page with the bar and the banner");
      await banner.getByRole("button", { name: "Accept" }).click();
      await p.waitForLoadState("load");
      assert.equal(await p.getByRole("region", { name: "Cookie notice" }).count(), 0, "accepted");
      assert.equal(await p.getByRole("region", { name: "Announcement" }).count(), 1, "the bar stays");
      await p.getByRole("button", { name: "Dismiss the announcement" }).click();
      await p.waitForLoadState("load");
      assert.equal(await p.getByRole("region", { name: "Announcement" }).count(), 0, "dismissed");
      await p.goto(`${server.origin(HARBOR)}/shop`, { waitUntil: "load" });
      assert.equal(await p.getByRole("region", { name: "Announcement" }).count(), 0, "dismissed on every page");
      assert.deepEqual(violations, [], "CSP violations");
    } finally {
      await visitor.close();
    }
    // Off again, for the scenarios after.
    await page.getByRole("checkbox", { name: "Show the announcement bar" }).uncheck();
    await page.getByRole("checkbox", { name: "Show the cookie banner" }).uncheck();
    await page.getByRole("button", { name: "Save announcement bar and cookie banner" }).click();
    await page.getByTestId("live").filter({ hasText: "Announcement bar and cookie banner saved." }).waitFor();
  },
]);

scenarios.push([
  "formblock: build a form, place it on a page with the editor's Form button, submit it on the live page, see it in Forms; axe on the dialog",
  async ({ browser, context, server }) => {
    const page = await signIn(context, server, HARBOR_OWNER, HARBOR);
    // A form of the site, built in the app.
    await nav(page, "Forms");
    await h1Focused(page, "Forms");
    await page.getByRole("button", { name: "Add form" }).click();
    const add = page.getByRole("dialog", { name: "Add form" });
    await add.waitFor();
    await add.getByRole("textbox").fill("Studio visit");
    await add.getByRole("button", { name: "Add form" }).click();
    await h1Focused(page, "Studio visit");
    await page.getByLabel("Message", { exact: true }).fill("See you in the studio.");
    await page.getByRole("button", { name: "Save form" }).click();
    await page.getByTestId("live").filter({ hasText: "Form saved. The site shows it now." }).waitFor();

    // Placed on the homepage's text with the editor.
    await nav(page, "Pages");
    await page.getByRole("link", { name: "Content of Studio" }).click();
    await h1Focused(page, "Studio");
    const text = page.getByRole("textbox", { name: "Page text", exact: true });
    await text.waitFor();
    await text.click();
    await text.press("Control+End");
    const button = page.getByRole("toolbar", { name: "Formatting: Page text" }).getByRole("button", { name: "Form", exact: true });
    await button.click();
    const dialog = page.getByRole("dialog", { name: "Add a form" });
    await dialog.getByLabel("Form", { exact: true }).waitFor();
    assert.deepEqual(await axe(page), [], "axe on the form dialog");
    await dialog.getByLabel("Form", { exact: true }).selectOption({ label: "Studio visit" });
    await dialog.getByRole("button", { name: "Add form" }).click();
    await dialog.waitFor({ state: "detached" });
    await text.getByRole("group", { name: "Form: Studio visit" }).waitFor();
    assert.deepEqual(await axe(page), [], "axe on the page text with a form block");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByTestId("live").filter({ hasText: "Studio saved." }).waitFor();

    // A visitor of their own sends it from the live page.
    const visitor = await browser.newContext();
    try {
      const v = await visitor.newPage();
      await v.goto(`${server.origin(HARBOR)}/`, { waitUntil: "load" });
      const form = v.locator("form.contact-form[data-form-id]");
      await form.waitFor();
      await form.getByLabel("Email").fill("visitor@example.com");
      await form.getByRole("button", { name: "Submit" }).click();
      await v.getByText("See you in the studio.").waitFor();
    } finally {
      await visitor.close();
    }

    // The answer in the Forms screen.
    await nav(page, "Forms");
    await page.getByRole("link", { name: "Studio visit", exact: true }).click();
    await h1Focused(page, "Studio visit");
    await page.getByRole("link", { name: /^Submissions/ }).click();
    await h1Focused(page, "Submissions to Studio visit");
    await page.getByRole("row").filter({ hasText: "visitor@example.com" }).waitFor();
  },
]);

// ---- Header and footer (issue 44) ----

scenarios.push([
  "header and footer: write a line in quillback's footer content area, save, see it in the frame and on the live site; axe",
  async ({ browser, context, server }) => {
    // The forms scenario adds quillback's owner; run alone (E2E_ONLY), this one does.
    try {
      addOwner(server, QUILL_OWNER, "admin", QUILL);
    } catch {
      // already added
    }
    const page = await signIn(context, server, QUILL_OWNER, QUILL);
    await nav(page, "Design");
    await h1Focused(page, "Design");
    const panel = page.getByRole("region", { name: "Header and footer" });
    const box = panel.getByRole("textbox", { name: "Footer content" });
    await box.waitFor();
    assert.deepEqual(await axe(page), [], "the header and footer panel");
    await sane(page, "the header and footer panel");
    const line = "Open late on Thursdays until 21:00";
    await box.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type(line);
    await panel.getByRole("button", { name: "Save header and footer" }).click();
    await page.getByTestId("live").filter({ hasText: "Header and footer saved. Visitors see them now." }).waitFor();
    // The frame beside the panel reloads and shows it in the footer.
    const framed = async () => {
      try {
        const f = await (await page.locator('iframe[title="Site preview"]').elementHandle()).contentFrame();
        return await f.evaluate(() => document.querySelector("footer")?.textContent ?? "");
      } catch {
        return null;
      }
    };
    await eventually(framed, (t) => !!t && t.includes(line), "the footer line in the frame");
    assert.deepEqual(await axe(page), [], "the header and footer panel, saved");
    // A visitor of their own sees it on the live site, and the footer's other text stays.
    const visitor = await browser.newContext();
    try {
      const v = await visitor.newPage();
      await v.goto(`${server.origin(QUILL)}/`, { waitUntil: "load" });
      const footer = await v.locator("footer").innerText();
      assert.ok(footer.includes(line), `the live footer: ${footer}`);
    } finally {
      await visitor.close();
    }
  },
]);

async function runBackend(browser, backend) {
  let pg;
  let server;
  const failures = [];
  try {
    if (backend === "postgres") pg = await startPostgres();
    // Every scenario comes from 127.0.0.1 and signs in again: raise the limits (they are
    // tested over HTTP in api/tests).
    const generous = ["--checkouts-per-minute", "600", "--cart-writes-per-minute", "6000", "--sign-ins-per-minute", "600"];
    server = await startServer({ databaseUrl: pg?.url, args: generous });
    addOwner(server, OWNER, "admin");
    addOwner(server, MANAGER, "store-manager");
    addOwner(server, HARBOR_OWNER, "admin", HARBOR);
    for (const [name, run] of scenarios) {
      const only = process.env.E2E_ONLY;
      if (only && !name.includes(only)) continue;
      const context = await browser.newContext();
      const problems = [];
      await watchCsp(context, problems);
      context.on("weberror", (e) => problems.push(`uncaught: ${e.error().message}`));
      context.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
      const started = Date.now();
      try {
        await run({ browser, context, server, backend });
        // The refusals asked for on purpose (a wrong password, a role's 403) are logged by
        // Chromium as failed loads; only script errors and policy violations count.
        const real = problems.filter((p) => !/Failed to load resource/.test(p));
        assert.deepEqual(real, [], "console errors or CSP violations");
        console.log(`  ok   ${backend}: ${name} (${Date.now() - started} ms)`);
      } catch (e) {
        failures.push(name);
        for (const p of context.pages()) {
          console.log(`       ${p.url()} shows: ${(await p.locator("body").innerText().catch(() => "?")).slice(0, 600).replace(/\n/g, " | ")}`);
        }
        console.log(`       problems: ${problems.join(" ; ")}`);
        console.log(`  FAIL ${backend}: ${name}\n${String(e.stack || e).split("\n").slice(0, 8).join("\n").replace(/^/gm, "       ")}`);
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
      console.log(`== the owner app in Chromium, ${backend} store`);
      failed += (await runBackend(browser, backend)).length;
    }
  } finally {
    await browser.close();
  }
  if (failed > 0) {
    console.log(`app e2e: ${failed} scenario(s) FAILED`);
    process.exit(1);
  }
  console.log("app e2e: every scenario passed");
}

main().catch((e) => {
  console.error(`app e2e: ${e.stack || e}`);
  process.exit(1);
});
