// The cart page and checkout scenarios `store.mjs` runs on each backend: a visitor changes
// the cart, checks out with the test card and lands on the order confirmed page; the
// declined card; a subscription; a gift card bought then spent; a digital good's download.

import http from "node:http";
import { choose, eventually, open } from "./store-scenarios.mjs";

const LOAM = "loam-lantern";
const CANDLE = "/shop/beeswax-pillar-candle"; // Height 10 cm: SKU BPC-10, €16, 240 g, 24 in stock
const CAN = "/shop/brass-watering-can"; // one variant, €58
const GUIDE = "/shop/houseplant-care-guide"; // digital, with a download
const PLANNER = "/shop/balcony-garden-planner"; // digital, €4 on sale
const BOX = "/shop/monthly-plant-box"; // a subscription, Size: Small plant €29
const GIFT = "/shop/loam-lantern-gift-card";
export const APPROVED = "4242 4242 4242 4242";
export const DECLINED = "4000 0000 0000 0002";

/** A call from inside `page` (its cookies, its crumb): { status, body }. */
export function inPage(page, method, path, body) {
  return page.evaluate(
    async ([method, path, body]) => {
      const crumb = document.cookie.split("; ").find((c) => c.startsWith("crumb="))?.slice(6) ?? "";
      const headers = { "X-CSRF-Token": crumb };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      let parsed = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: r.status, body: parsed, length: text.length };
    },
    [method, path, body],
  );
}

/** A GET as a visitor with no cookies (so no cart of their own), straight to the server. */
export function apiGet(server, tenant, path) {
  const { hostname, port } = new URL(server.origin(tenant));
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, headers: { host: `${hostname}:${port}` } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode, body: JSON.parse(body) });
        } catch {
          resolve({ status: res.statusCode, body });
        }
      });
    });
    req.on("error", reject);
  });
}

/** Units left of one SKU of a product, as the store sees them. */
export async function stockOf(server, tenant, itemId, sku) {
  const r = await apiGet(server, tenant, `/api/commerce/inventory/stock/?itemId=${encodeURIComponent(itemId)}`);
  const level = r.body.results.find((l) => l.sku === sku);
  if (!level) throw new Error(`no SKU ${sku} in ${JSON.stringify(r.body)}`);
  return level.qtyInStock;
}

const text = (page, selector) => page.locator(selector).first().innerText().then((t) => t.trim());

export async function add(context, server, path, options = {}) {
  const page = await open(context, server, LOAM, path);
  await choose(page, options);
  const added = page.waitForResponse((r) => /\/api\/commerce\/shopping-cart\/entries$|\/api\/3\/commerce\/cart/.test(r.url()));
  await page.click(".sqs-add-to-cart-button");
  const answer = await added;
  if (answer.status() >= 300) throw new Error(`adding ${path} answered ${answer.status()}: ${await answer.text()}`);
  return page;
}

/** Fills the checkout form: contact, a Dutch address, the parcel option, a card. */
export async function fillCheckout(page, { card = APPROVED, shipping = true, email = "ada@example.com" } = {}) {
  await page.fill("#checkout-email", email);
  if (shipping) {
    await page.fill("#checkout-firstName", "Ada");
    await page.fill("#checkout-lastName", "de Vries");
    await page.fill("#checkout-line1", "Lindengracht 12");
    await page.fill("#checkout-city", "Amsterdam");
    await page.fill("#checkout-postalCode", "1015 KD");
    await page.selectOption("#checkout-country", "NL");
    await page.selectOption("#checkout-region", "NH");
    await page.locator("#checkout-postalCode").blur();
    await page.locator(".tessera-shipping-options input[value=parcel]").check();
    await page.locator(".tessera-shipping-options input[value=parcel]:checked").waitFor();
    // The shipping line is there from the start ("Calculated from your address"); wait until
    // it shows the chosen option's price: the quote for the address and option just chosen.
    const chosen = await page.locator(".tessera-shipping-options label:has(input[value=parcel])").innerText();
    const price = chosen.split("—").pop().trim();
    await eventually(() => text(page, ".tessera-shipping").catch(() => ""), (t) => t === price, "the shipping line's price");
  }
  if (card) {
    await page.fill("#checkout-cardNumber", card);
    await page.fill("#checkout-cardExpiry", "12 / 30");
    await page.fill("#checkout-cardCvc", "123");
  }
}

export async function placeOrder(page) {
  await page.click(".tessera-place-order");
  await page.waitForURL(/\/commerce\/order-confirmed\//, { timeout: 10000 });
  await page.waitForLoadState("load");
}

export const checkoutScenarios = [
  [
    "harbor-lane: the state from its list, Maine's sales tax collected, the studio's order notes",
    async ({ context, server, assert }) => {
      const product = await open(context, server, "harbor-lane", "/shop/tidepool-mug");
      await choose(product, { Size: "12 oz" });
      await product.click(".sqs-add-to-cart-button");
      await product.locator(".tessera-cart-pill").waitFor({ timeout: 8000 });
      const page = await context.newPage();
      await page.goto(server.origin("harbor-lane") + "/checkout", { waitUntil: "load" });
      await page.locator(".tessera-checkout").waitFor();
      // The one country the studio ships to is chosen; its states are a labelled list.
      assert.equal(await page.locator("select#checkout-country").inputValue(), "US");
      const state = page.getByLabel("State or region");
      assert.equal(await state.evaluate((el) => el.tagName), "SELECT");
      assert.equal(await state.evaluate((el) => el.required), true);
      assert.ok((await state.locator("option").allInnerTexts()).includes("Maine"));
      await page.fill("#checkout-email", "ada@example.com");
      await page.fill("#checkout-firstName", "Ada");
      await page.fill("#checkout-lastName", "Lovelace");
      await page.fill("#checkout-line1", "12 Fore St");
      await page.fill("#checkout-city", "Portland");
      await page.fill("#checkout-postalCode", "04101");
      // Placing without a state says so at the state.
      await page.click(".tessera-place-order");
      await eventually(() => text(page, "#checkout-region-problem").catch(() => ""), (t) => t === "Required", "the state's problem");
      await state.selectOption({ label: "Maine" });
      // 5.5% of $34.00.
      await eventually(() => text(page, ".tessera-tax").catch(() => ""), (t) => t === "$1.87", "Maine's tax");
      await page.locator(".tessera-shipping-options input:checked").waitFor();
      await page.fill("#checkout-cardNumber", APPROVED);
      await page.fill("#checkout-cardExpiry", "12 / 30");
      await page.fill("#checkout-cardCvc", "123");
      // The studio asks for order notes under its own label.
      await page.getByLabel("Notes for the studio").fill("Gift wrap <please>");
      await placeOrder(page);
      assert.match(await page.locator("body").innerText(), /\$1\.87/);
      assert.equal((await page.locator(".order-notes h2").innerText()).trim(), "Notes for the studio");
      assert.equal((await page.locator(".order-notes p").innerText()).trim(), "Gift wrap <please>");
    },
  ],
  [
    "the cart page: change a quantity, remove an entry, a coupon; checkout with the test card",
    async ({ context, server, assert }) => {
      const product = await apiGet(server, LOAM, `${CANDLE}?format=json`);
      const candleId = product.body.item.id;
      const before = await stockOf(server, LOAM, candleId, "BPC-10");
      await add(context, server, CANDLE, { Height: "10 cm" });
      await add(context, server, CAN);

      const page = await context.newPage();
      await page.goto(server.origin(LOAM) + "/cart", { waitUntil: "load" });
      await page.locator(".tessera-cart").waitFor();
      const entries = page.locator(".tessera-cart-entry");
      assert.equal(await entries.count(), 2);
      assert.equal(await text(page, ".tessera-subtotal"), "€74.00");
      // Images and links to the products come with the entries.
      assert.equal(await entries.first().locator("a").getAttribute("href"), CANDLE);
      assert.ok(await entries.first().locator("img.tessera-cart-entry-image").count(), "an entry has its image");
      assert.equal(await text(entries.first(), ".tessera-cart-entry-variant"), "Height: 10 cm");

      // Two candles.
      const qty = entries.first().locator("input.tessera-quantity");
      await qty.fill("2");
      await qty.press("Enter");
      await eventually(() => text(page, ".tessera-subtotal"), (t) => t === "€90.00", "the subtotal after a change");
      // A quantity past the stock is refused in the server's words and the field goes back.
      await entries.first().locator("input.tessera-quantity").fill("500");
      await entries.first().locator("input.tessera-quantity").press("Enter");
      const alert = page.locator(".tessera-modal[role=dialog]");
      await alert.waitFor();
      assert.equal(await text(alert, ".tessera-modal-title"), "Unable to update quantity");
      await alert.locator("button", { hasText: "OK" }).click();
      assert.equal(await entries.first().locator("input.tessera-quantity").inputValue(), "2");

      // The watering can goes.
      await page.click('button[aria-label="Remove Brass Watering Can"]');
      await eventually(() => entries.count(), (n) => n === 1, "one entry left");
      assert.equal(await text(page, ".tessera-subtotal"), "€32.00");

      // A coupon that does not exist, then WELCOME10.
      await page.fill(".tessera-coupon-form input", "NOPE");
      await page.click(".tessera-coupon-form button[type=submit]");
      await page.locator(".tessera-coupon-form .tessera-error").waitFor();
      await page.fill(".tessera-coupon-form input", "WELCOME10");
      await page.click(".tessera-coupon-form button[type=submit]");
      await eventually(() => page.locator(".tessera-discount").count(), (n) => n === 1, "the discount line");
      assert.equal(await text(page, ".tessera-discount"), "−€3.20");
      assert.equal(await text(page, ".tessera-total"), "€28.80");

      await page.click(".cart-checkout-button");
      await page.waitForURL(/\/checkout$/);
      await page.locator(".tessera-checkout-form").waitFor();
      // Placing with nothing filled in names every missing field and sends nothing.
      await page.click(".tessera-place-order");
      assert.equal(await text(page, ".tessera-form-message"), "One or more fields is invalid, please check your entries.");
      assert.equal(await text(page, "#checkout-email-problem"), "Required");
      await fillCheckout(page);
      // Parcel post for 480 g is €6.95; prices include VAT, so nothing is added for tax.
      const due = await text(page, ".tessera-total");
      assert.equal(due, "€35.75");
      assert.equal(await text(page, ".tessera-shipping"), "€6.95");
      await placeOrder(page);

      assert.equal(await text(page, "h1"), "Thank you for your order");
      assert.equal(await text(page, ".order-grand-total"), due);
      assert.equal(await page.locator(".order-item").count(), 1);
      assert.match(await text(page, ".order-item"), /Beeswax Pillar Candle/);
      assert.match(await text(page, ".order-test-mode"), /test mode/);
      assert.equal(await stockOf(server, LOAM, candleId, "BPC-10"), before - 2, "stock after the order");
      // The cart is spent: the header shows none and /cart is empty.
      await page.goto(server.origin(LOAM) + "/cart", { waitUntil: "load" });
      await page.locator(".cart-empty").waitFor();
    },
  ],
  [
    "checkout: the declined card is named at the payment fields, and nothing is ordered",
    async ({ context, server, assert }) => {
      await add(context, server, CANDLE, { Height: "10 cm" });
      const page = await context.newPage();
      await page.goto(server.origin(LOAM) + "/checkout", { waitUntil: "load" });
      await page.locator(".tessera-checkout-form").waitFor();
      await fillCheckout(page, { card: DECLINED });
      const answer = page.waitForResponse((r) => r.url().endsWith("/api/commerce/checkout"));
      await page.click(".tessera-place-order");
      assert.equal((await answer).status(), 402);
      await eventually(() => text(page, ".tessera-payment-problem").catch(() => ""), (t) => t !== "", "the payment problem");
      assert.equal(await text(page, ".tessera-payment-problem"), "Your card was declined.");
      assert.equal(await text(page, ".tessera-place-order"), "Place Order");
      assert.match(page.url(), /\/checkout$/);
      // Another card goes through from the same form.
      await page.fill("#checkout-cardNumber", APPROVED);
      await placeOrder(page);
      assert.equal(await text(page, "h1"), "Thank you for your order");
    },
  ],
  [
    "a subscription: Subscribe goes to subscription checkout with its cart token",
    async ({ context, server, assert }) => {
      const page = await open(context, server, LOAM, BOX);
      assert.equal(await text(page, ".sqs-add-to-cart-button"), "Subscribe");
      await choose(page, { Size: "Small plant" });
      await page.click(".sqs-add-to-cart-button");
      await page.waitForURL(/\/checkout\/subscription\?cartToken=/);
      await page.locator(".tessera-checkout-form").waitFor();
      assert.equal(await page.locator("#sqs-checkout-root").getAttribute("data-checkout-kind"), "subscription");
      assert.match(await text(page, ".tessera-order-summary"), /Monthly Plant Box/);
      await fillCheckout(page);
      await placeOrder(page);
      assert.equal(await text(page, "h1"), "Your subscription has started");
      assert.match(await text(page, ".order-subscription"), /^Billed/);
      // The shopping cart was never touched.
      const cart = await inPage(page, "GET", "/api/commerce/shopping-cart");
      assert.equal(cart.status, 200);
      assert.equal(cart.body.entries.length, 0);
    },
  ],
  [
    "a gift card bought on its page, then spent at checkout; a digital good's download",
    async ({ context, server, assert }) => {
      // Buy a €25 gift card: its own checkout, no shipping.
      const page = await open(context, server, LOAM, GIFT);
      await choose(page, { Amount: "€25" });
      await page.click(".sqs-add-to-cart-button");
      await page.waitForURL(/\/checkout\/gift-card\?cartToken=/);
      await page.locator(".tessera-checkout-form").waitFor();
      assert.equal(await page.locator("#checkout-line1").count(), 0, "a gift card asks for no address");
      await fillCheckout(page, { shipping: false });
      await placeOrder(page);
      const code = (await text(page, ".order-gift-card-codes code")).trim();
      assert.match(code, /^[A-Z0-9-]{8,}$/);

      // Spend it on two digital goods (€13, over the €10 minimum): no address, and the card
      // pays it all.
      await add(context, server, GUIDE);
      await add(context, server, PLANNER);
      const checkout = await context.newPage();
      await checkout.goto(server.origin(LOAM) + "/checkout", { waitUntil: "load" });
      await checkout.locator(".tessera-checkout-form").waitFor();
      assert.equal(await checkout.locator("#checkout-line1").count(), 0, "a digital cart asks for no address");
      await checkout.fill("#checkout-email", "ada@example.com");
      await checkout.fill("#checkout-gift-card", code);
      await checkout.click(".tessera-gift-card-apply");
      await checkout.locator(".tessera-gift-card-amount").waitFor();
      assert.equal(await checkout.locator("#checkout-cardNumber").count(), 0, "nothing is left to pay by card");
      await placeOrder(checkout);
      assert.match(await text(checkout, ".order-totals"), /Paid with a gift card/);
      // The download link fetches the file.
      const href = await checkout.locator(".order-download").first().getAttribute("href");
      const file = await inPage(checkout, "GET", href);
      assert.equal(file.status, 200);
      assert.ok(file.length > 0, "the download has content");
      // What is left on the card is what the two did not use: €25 - €13.
      const balance = await inPage(checkout, "POST", "/api/commerce/gift-cards/balance", { code });
      assert.equal(balance.status, 200);
      assert.equal(balance.body.giftCard.balanceCents, 1200);
    },
  ],
];
