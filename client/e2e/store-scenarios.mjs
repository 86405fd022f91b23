// The store scenarios `store.mjs` runs on each backend: what a visitor does and what they
// must see, in SPEC.md's words. Each takes { context, server, assert } and throws on the
// first difference.

// Demo products these scenarios use (fixtures/loam-lantern, fixtures/harbor-lane).
const APRON = "/shop/linen-potting-apron"; // Size × Colour; S/M Charcoal has stock 0
const MUG = "/shop/tidepool-mug"; // one option, Size

/** Polls `read` until it returns something `ok` accepts; fails with what it last read. */
export async function eventually(read, ok, what, timeout = 8000) {
  const until = Date.now() + timeout;
  let last;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    if (Date.now() > until) throw new Error(`${what}: last saw ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The open alert or confirm dialog: { title, message }, or null. */
async function dialog(page) {
  const box = page.locator(".tessera-modal[role=dialog]");
  if ((await box.count()) === 0) return null;
  return {
    title: (await box.locator(".tessera-modal-title").textContent())?.trim(),
    message: (await box.locator(".tessera-modal-message").textContent().catch(() => null))?.trim() ?? null,
  };
}

/** Waits for the dialog saying `title` / `message`, then answers it with its OK button. */
export async function expectAlert(page, assert, title, message) {
  const shown = await eventually(() => dialog(page), (d) => d !== null, "an alert");
  assert.deepEqual(shown, { title, message });
  await page.locator(".tessera-modal button", { hasText: "OK" }).click();
  await eventually(() => dialog(page), (d) => d === null, "the alert closing");
}

const labelOf = (page) => page.locator(".sqs-add-to-cart-button").first().innerText().then((t) => t.trim());
const headerCount = (page) => page.locator(".sqs-cart-quantity").first().innerText().then((t) => t.trim());

export async function open(context, server, tenant, path) {
  const page = await context.newPage();
  const res = await page.goto(server.origin(tenant) + path, { waitUntil: "load" });
  if (!res || res.status() !== 200) throw new Error(`${tenant}${path} answered ${res?.status()}`);
  // The islands are mounted once the button carries its mark.
  await page.waitForSelector(".sqs-add-to-cart-button[data-tessera-mounted]", { timeout: 8000 }).catch(() => {});
  return page;
}

export async function choose(page, options) {
  for (const [name, value] of Object.entries(options)) {
    await page.selectOption(`select[data-variant-option-name="${name}"]`, value);
  }
}

export const scenarios = [
  [
    "variants: an incomplete choice, a sold-out variant, then an add through every label",
    async ({ context, server, assert }) => {
      const page = await open(context, server, "loam-lantern", APRON);
      assert.equal(await labelOf(page), "Add To Cart");
      assert.equal(await headerCount(page), "0");
      // Nothing chosen: both options are named.
      await page.click(".sqs-add-to-cart-button");
      await expectAlert(page, assert, "Unable to Add Item", "Please select the Size and Colour options.");
      // One chosen: the other is named.
      await choose(page, { Size: "S/M" });
      await page.click(".sqs-add-to-cart-button");
      await expectAlert(page, assert, "Unable to Add Item", "Please select the Colour option.");
      // S/M in Charcoal has none left: the page says so, and the server refuses it.
      await choose(page, { Colour: "Charcoal" });
      assert.equal(await page.locator(".tessera-variant-status").innerText(), "Sold Out");
      const refused = page.waitForResponse((r) => r.url().endsWith("/api/commerce/shopping-cart/entries"));
      await page.click(".sqs-add-to-cart-button");
      const answer = await refused;
      assert.ok(answer.status() >= 400, `adding a sold-out variant answered ${answer.status()}`);
      const { message } = await answer.json();
      await expectAlert(page, assert, "Unable to Add Item", message);
      await eventually(() => labelOf(page), (l) => l === "Add To Cart", "the label after a failure");
      // L/XL in Charcoal: Adding…, Added!, back to Add To Cart; the header count follows.
      await choose(page, { Size: "L/XL" });
      assert.equal(await page.locator(".tessera-variant-status").count(), 0);
      await page.click(".sqs-add-to-cart-button");
      assert.equal(await labelOf(page), "Adding…");
      await eventually(() => labelOf(page), (l) => l === "Added!", "the added label");
      // A button showing Added! ignores clicks: still one in the cart afterwards.
      await page.click(".sqs-add-to-cart-button");
      await eventually(() => labelOf(page), (l) => l === "Add To Cart", "the idle label again");
      assert.equal(await headerCount(page), "1");
      // The server's page agrees after a reload.
      await page.reload({ waitUntil: "load" });
      assert.equal(await headerCount(page), "1");
    },
  ],
  [
    "quantity: wrong entries are named, a whole number is added",
    async ({ context, server, assert }) => {
      const page = await open(context, server, "loam-lantern", APRON);
      await choose(page, { Size: "L/XL", Colour: "Oat" });
      const qty = page.locator(".product-quantity-input input");
      // A number input takes what the visitor types; a lone "e" is no number.
      await qty.click({ clickCount: 3 });
      await page.keyboard.type("e");
      assert.equal(await page.locator(".tessera-quantity-error").innerText(), "Quantity must be a number.");
      await page.click(".sqs-add-to-cart-button");
      await expectAlert(page, assert, "Unable to Add Item", "Quantity must be a number.");
      await qty.fill("1.5");
      assert.equal(await page.locator(".tessera-quantity-error").innerText(), "Quantity must be a whole number");
      // 0 is refused, not taken for 1: the message, and nothing added.
      await qty.fill("0");
      assert.equal(await page.locator(".tessera-quantity-error").innerText(), "Quantity must be between 1 and 9999.");
      await page.click(".sqs-add-to-cart-button");
      await expectAlert(page, assert, "Unable to Add Item", "Quantity must be between 1 and 9999.");
      assert.equal(await headerCount(page), "0");
      await qty.fill("3");
      assert.equal(await page.locator(".tessera-quantity-error").count(), 0);
      await page.click(".sqs-add-to-cart-button");
      await eventually(() => headerCount(page), (c) => c === "3", "the header count");
    },
  ],
  [
    "without JavaScript: Add To Cart, the cart's quantity and remove are form posts",
    async ({ context, server, assert }) => {
      // A browser with JavaScript off: the server's forms alone (api/src/pages/cart_forms.rs).
      const nojs = await context.browser().newContext({ javaScriptEnabled: false });
      try {
        const page = await nojs.newPage();
        const go = async (tenant, path) => {
          const res = await page.goto(server.origin(tenant) + path, { waitUntil: "load" });
          assert.equal(res?.status(), 200, `${tenant}${path}`);
        };
        const submitted = async (click) => {
          await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(click)]);
          return new URL(page.url());
        };
        const message = () => page.locator(".tessera-cart-message").innerText().then((t) => t.trim());
        await go("loam-lantern", APRON);
        assert.equal(await page.locator("[data-tessera-mounted]").count(), 0, "no island ran");
        assert.equal((await page.locator("button.sqs-add-to-cart-button").innerText()).trim(), "Add To Cart");
        // One option missing: back on the product, SPEC's message by the button.
        await choose(page, { Size: "S/M" });
        let at = await submitted(".sqs-add-to-cart-button");
        assert.equal(at.pathname, APRON);
        assert.equal(await message(), "Please select the Colour option.");
        // A sold-out variant: the store's message.
        await choose(page, { Size: "S/M", Colour: "Charcoal" });
        at = await submitted(".sqs-add-to-cart-button");
        assert.equal(at.pathname, APRON);
        assert.equal(await message(), "Sorry, we do not have enough of that item available.");
        // Two of L/XL in Oat: on to the cart, which lists them.
        await choose(page, { Size: "L/XL", Colour: "Oat" });
        await page.fill(".product-quantity-input input", "2");
        at = await submitted(".sqs-add-to-cart-button");
        assert.equal(at.pathname, "/cart");
        const qty = page.locator(".cart-entry-quantity-input");
        assert.equal(await qty.count(), 1);
        assert.equal(await qty.inputValue(), "2");
        assert.match(await page.locator(".cart-entry-title").innerText(), /Linen Potting Apron/);
        // The quantity changed and the line removed, each a post and back to the cart.
        await qty.fill("3");
        at = await submitted(".cart-entry-update");
        assert.equal(at.pathname, "/cart");
        assert.equal(await page.locator(".cart-entry-quantity-input").inputValue(), "3");
        assert.equal((await page.locator(".sqs-cart-quantity").first().innerText()).trim(), "3");
        at = await submitted(".cart-entry-remove");
        assert.equal(at.pathname, "/cart");
        assert.equal((await page.locator(".cart-empty").innerText()).trim(), "You have nothing in your shopping cart.");
        // The built-in product view (harbor-lane) posts the same way.
        await go("harbor-lane", MUG);
        await choose(page, { Size: "12 oz" });
        at = await submitted(".sqs-add-to-cart-button");
        assert.equal(at.pathname, "/cart");
        assert.match(await page.locator(".cart-entry-title").innerText(), /Tidepool Mug/);
      } finally {
        await nojs.close();
      }
    },
  ],
  [
    "the built-in product view: prices with their currency, one way to choose, one instalment line, sold out disabled",
    async ({ context, server, assert }) => {
      const list = await context.newPage();
      await list.goto(server.origin("harbor-lane") + "/shop", { waitUntil: "load" });
      const prices = (await list.locator(".list-item .product-price").allInnerTexts()).map((t) => t.trim());
      assert.deepEqual(prices, ["from $32.00", "$96.00", "$65.00"]);
      const page = await open(context, server, "harbor-lane", MUG);
      assert.equal((await page.locator(".product-price").innerText()).trim(), "from $32.00");
      // The selects only: their radio-button twins are in the markup but not shown.
      assert.equal(await page.locator('select[data-variant-option-name="Size"]').isVisible(), true);
      assert.equal(await page.locator(".variant-radiobtn-wrapper").isVisible(), false);
      await page.locator(".tessera-instalments-text").waitFor();
      assert.equal(await page.locator(".product-installments").count(), 0, "the server's line gave way to the pill");
      assert.equal((await page.locator("article").innerText()).match(/with Afterpay/g).length, 1);
      await choose(page, { Size: "12 oz" });
      await eventually(() => page.locator(".product-price").innerText(), (t) => t.trim() === "$34.00", "the chosen price");
      const bowl = await open(context, server, "harbor-lane", "/shop/driftwood-serving-bowl");
      const button = bowl.locator(".product-sold-out-button");
      assert.equal((await button.innerText()).trim(), "Sold Out");
      assert.equal(await button.isDisabled(), true);
      assert.equal(await bowl.locator(".sqs-add-to-cart-button").count(), 0, "no Add To Cart to press");
      assert.equal(await bowl.locator(".tessera-instalments, .product-installments").count(), 0);
    },
  ],
  [
    "the floating cart pill: hidden when empty, shows count and subtotal, never on /cart",
    async ({ context, server, assert }) => {
      const page = await open(context, server, "harbor-lane", MUG);
      assert.equal(await page.locator(".tessera-cart-pill").count(), 0);
      await choose(page, { Size: "12 oz" });
      await page.click(".sqs-add-to-cart-button");
      const pill = page.locator(".tessera-cart-pill");
      await pill.waitFor({ timeout: 8000 });
      assert.equal(await pill.locator(".tessera-cart-pill-count").innerText(), "1");
      const price = (await page.locator(".product-price").first().innerText()).trim();
      assert.equal(await pill.locator(".tessera-cart-pill-subtotal").innerText(), price);
      // Another page shows it from the server's summary, with no call.
      await page.goto(server.origin("harbor-lane") + "/shop", { waitUntil: "load" });
      await page.locator(".tessera-cart-pill").waitFor({ timeout: 8000 });
      assert.equal(await page.getAttribute(".tessera-cart-pill", "href"), "/cart");
      await page.click(".tessera-cart-pill");
      await page.waitForURL(/\/cart$/);
      await page.waitForLoadState("load");
      await page.waitForTimeout(300);
      assert.equal(await page.locator(".tessera-cart-pill").count(), 0, "the pill shows on /cart");
      // A template with its own cart widget (loam-lantern) never gets the pill.
      const loam = await open(context, server, "loam-lantern", APRON);
      await choose(loam, { Size: "L/XL", Colour: "Oat" });
      await loam.click(".sqs-add-to-cart-button");
      await eventually(() => headerCount(loam), (c) => c === "1", "the widget count");
      assert.equal(await loam.locator(".tessera-cart-pill").count(), 0);
      assert.equal(await loam.locator(".sqs-custom-cart.cart-initialized").count() > 0, true);
    },
  ],
  [
    "the instalment pill follows the chosen variant; Quick View adds from the product list",
    async ({ context, server, assert }) => {
      const page = await open(context, server, "loam-lantern", "/shop/beeswax-pillar-candle");
      const pill = page.locator(".tessera-instalments-text");
      await pill.waitFor();
      // From the lowest price (€16) until a variant is chosen.
      assert.equal(await pill.innerText(), "or €4.00 with Afterpay");
      await choose(page, { Height: "15 cm" });
      await eventually(() => pill.innerText(), (t) => t === "or €6.00 with Afterpay", "the pill after choosing");
      await page.click(".tessera-instalments-info");
      const popup = page.locator(".tessera-instalments-about");
      await popup.waitFor();
      assert.match(await popup.innerText(), /Pay in 4 interest-free payments of €6\.00\./);
      await page.keyboard.press("Escape");
      await eventually(() => popup.count(), (n) => n === 0, "the popup closing");
      assert.equal(await page.evaluate(() => document.activeElement?.className), "tessera-instalments-info");
      // Digital goods have none.
      const guide = await open(context, server, "loam-lantern", "/shop/houseplant-care-guide");
      await guide.waitForTimeout(300);
      assert.equal(await guide.locator(".tessera-instalments").count(), 0);

      // Quick View on the shop's list: the product in the lightbox, added from there.
      const list = await context.newPage();
      await list.goto(server.origin("loam-lantern") + "/shop", { waitUntil: "load" });
      const card = list.locator(".product-card", { hasText: "Linen Potting Apron" });
      await card.locator(".sqs-product-quick-view-button[data-tessera-mounted]").waitFor();
      await card.locator(".sqs-product-quick-view-button").click();
      const box = list.locator(".tessera-quick-view");
      await box.locator(".sqs-add-to-cart-button[data-tessera-mounted]").waitFor();
      assert.equal(await box.locator(".tessera-modal-title").innerText(), "Linen Potting Apron");
      assert.match(list.url(), /\/shop$/, "Quick View stays on the list");
      await box.locator('select[data-variant-option-name="Size"]').selectOption("L/XL");
      await box.locator('select[data-variant-option-name="Colour"]').selectOption("Oat");
      await box.locator(".sqs-add-to-cart-button").click();
      await eventually(() => headerCount(list), (c) => c === "1", "the header count after a Quick View add");
      await list.keyboard.press("Escape");
      await eventually(() => box.count(), (n) => n === 0, "Quick View closing");
    },
  ],
  [
    "a crumb failure: the visitor is told the session expired",
    async ({ context, server, assert }) => {
      const page = await open(context, server, "loam-lantern", APRON);
      await choose(page, { Size: "L/XL", Colour: "Oat" });
      await context.clearCookies({ name: "crumb" });
      await page.click(".sqs-add-to-cart-button");
      await expectAlert(
        page,
        assert,
        "Unable to Add Item",
        "Your session has expired. Please reload the page and try again.",
      );
      await eventually(() => labelOf(page), (l) => l === "Add To Cart", "the label after a crumb failure");
      assert.equal(await headerCount(page), "0");
    },
  ],
];
