// Scenarios `store.mjs` runs on each backend for people who use the keyboard alone or a
// screen reader: the additional-fields lightbox and checkout by keyboard only, and axe-core
// on the product, cart and checkout pages (no serious or critical violations).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { eventually, open } from "./store-scenarios.mjs";

const LOAM = "loam-lantern";
const TRIMMER = "/shop/copper-wick-trimmer"; // an engraving form: initials (required, ≤ 4), note, wrapping
const CANDLE = "/shop/beeswax-pillar-candle";
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** What has focus: "tag#id.class" with its name, enough to say where focus went. */
const focused = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return "body";
    return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}[${el.getAttribute("name") ?? el.textContent?.trim().slice(0, 30) ?? ""}]`;
  });

/** Presses Tab until `selector` has focus (at most `limit` times); fails naming where focus went. */
async function tabTo(page, selector, limit = 80) {
  const seen = [];
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press("Tab");
    seen.push(await focused(page));
  }
  throw new Error(`Tab never reached ${selector}; focus went: ${seen.join(" → ")}`);
}

const inModal = (page) => page.evaluate(() => !!document.activeElement?.closest(".tessera-modal"));

/** axe-core on the page as it is (or on `context`, axe's include/exclude): the serious and
 *  critical violations, one line each. */
export async function axe(page, context = null) {
  // Evaluated, not added as a <script>: the site's security policy rightly refuses inline
  // script, and an evaluation from the test is outside it.
  await page.evaluate(AXE);
  const result = await page.evaluate(async (context) =>
    // biome-ignore lint: axe is the injected global
    window.axe.run(context ?? document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } }),
    context,
  );
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

export const accessScenarios = [
  [
    "keyboard only: the additional-fields lightbox on the product page and in the cart",
    async ({ context, server, assert }) => {
      const page = await open(context, server, LOAM, TRIMMER);
      await tabTo(page, ".sqs-add-to-cart-button");
      await page.keyboard.press("Enter");
      await page.locator(".tessera-form-modal").waitFor();
      assert.equal(await page.locator(".tessera-form-modal .tessera-modal-title").innerText(), "Engraving");
      assert.ok(await inModal(page), "focus moves into the lightbox");
      // Escape closes it and focus goes back to the button.
      await page.keyboard.press("Escape");
      await eventually(() => page.locator(".tessera-form-modal").count(), (n) => n === 0, "the lightbox closing");
      assert.ok(
        await page.evaluate(() => document.activeElement?.matches(".sqs-add-to-cart-button") ?? false),
        `focus back on the add-to-cart button, not ${await focused(page)}`,
      );
      await page.keyboard.press("Enter");
      await page.locator(".tessera-form-modal").waitFor();
      // Focus stays inside however far one tabs, both ways.
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press("Tab");
        assert.ok(await inModal(page), `Tab ${i + 1} left the lightbox for ${await focused(page)}`);
      }
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press("Shift+Tab");
        assert.ok(await inModal(page), `Shift+Tab ${i + 1} left the lightbox for ${await focused(page)}`);
      }
      // Fill it in by keyboard: too many letters first.
      await tabTo(page, ".tessera-form-modal input[name=initials]");
      await page.keyboard.type("ABCDE");
      await tabTo(page, ".tessera-form-modal textarea");
      await page.keyboard.type("For the candle shelf");
      await tabTo(page, ".tessera-form-modal input[type=radio]");
      await page.keyboard.press("ArrowDown");
      await tabTo(page, ".tessera-form-modal button[type=submit]");
      await page.keyboard.press("Enter");
      await page.locator(".tessera-form-modal .tessera-form-message").waitFor();
      assert.equal(
        await page.locator(".tessera-form-modal .tessera-form-message").innerText(),
        "One or more fields is invalid, please check your entries.",
      );
      assert.equal(await page.locator(".tessera-form-modal .tessera-field .tessera-error").first().innerText(), "You have exceeded the character limit.");
      // Tabbing into a field selects its text: End, then one letter off.
      await tabTo(page, ".tessera-form-modal input[name=initials]");
      await page.keyboard.press("End");
      await page.keyboard.press("Backspace");
      await page.keyboard.press("Enter");
      await eventually(() => page.locator(".tessera-form-modal").count(), (n) => n === 0, "the lightbox closing after the add");
      await eventually(() => page.locator(".sqs-cart-quantity").first().innerText(), (t) => t.trim() === "1", "the header count");

      // In the cart: the answers, and Edit by keyboard.
      await page.goto(server.origin(LOAM) + "/cart", { waitUntil: "load" });
      await page.locator(".tessera-cart").waitFor();
      const answers = () => page.locator(".tessera-cart-entry-fields dd").allInnerTexts();
      assert.deepEqual(await answers(), ["ABCD", "For the candle shelf", "Linen pouch"]);
      await tabTo(page, ".tessera-cart-entry-fields button");
      await page.keyboard.press("Enter");
      await page.locator(".tessera-form-modal").waitFor();
      await tabTo(page, ".tessera-form-modal input[name=initials]");
      // Tabbing in selected the old answer: typing replaces it.
      await page.keyboard.type("ZZ");
      await page.keyboard.press("Enter");
      await eventually(() => page.locator(".tessera-form-modal").count(), (n) => n === 0, "the lightbox closing after saving");
      assert.deepEqual(await answers(), ["ZZ", "For the candle shelf", "Linen pouch"]);
    },
  ],
  [
    "keyboard only: checkout from the first field to the order confirmed page",
    async ({ context, server, assert }) => {
      const product = await open(context, server, LOAM, CANDLE);
      await product.selectOption('select[data-variant-option-name="Height"]', "15 cm");
      await product.click(".sqs-add-to-cart-button");
      await eventually(() => product.locator(".sqs-cart-quantity").first().innerText(), (t) => t.trim() === "1", "the header count");

      const page = await context.newPage();
      await page.goto(server.origin(LOAM) + "/checkout", { waitUntil: "load" });
      await page.locator(".tessera-checkout-form").waitFor();
      const fields = [
        ["#checkout-email", "ada@example.com"],
        ["#checkout-firstName", "Ada"],
        ["#checkout-lastName", "de Vries"],
        ["#checkout-line1", "Lindengracht 12"],
        ["#checkout-city", "Amsterdam"],
        ["#checkout-postalCode", "1015 KD"],
      ];
      for (const [selector, value] of fields) {
        await tabTo(page, selector);
        await page.keyboard.type(value);
      }
      // The country list: typed letters choose, as in any select.
      await tabTo(page, "#checkout-country");
      await page.keyboard.type("Netherlands");
      // The province list, as the country has them.
      await tabTo(page, "#checkout-region");
      await page.keyboard.type("Noord-Holland");
      await eventually(() => page.locator("#checkout-region").inputValue(), (v) => v === "NH", "the province");
      await eventually(() => page.locator(".tessera-shipping-options input").count(), (n) => n > 0, "the shipping options");
      await tabTo(page, ".tessera-shipping-options input");
      // Arrow keys move through a radio group and choose.
      await page.keyboard.press("ArrowDown");
      await eventually(() => page.locator(".tessera-shipping-options input:checked").count(), (n) => n === 1, "a chosen option");
      await tabTo(page, "#checkout-cardNumber");
      await page.keyboard.type("4242 4242 4242 4242");
      await tabTo(page, "#checkout-cardExpiry");
      await page.keyboard.type("12 / 30");
      await tabTo(page, "#checkout-cardCvc");
      await page.keyboard.type("123");
      await tabTo(page, ".tessera-place-order");
      await page.keyboard.press("Enter");
      await page.waitForURL(/\/commerce\/order-confirmed\//, { timeout: 10000 });
      assert.equal((await page.locator("h1").innerText()).trim(), "Thank you for your order");
    },
  ],
  [
    "axe-core: no serious or critical violations on the product, list (Quick View), cart and checkout pages",
    async ({ context, server, assert }) => {
      const product = await open(context, server, LOAM, "/shop/linen-potting-apron");
      assert.deepEqual(await axe(product), [], "product page");
      // With an alert open too.
      await product.click(".sqs-add-to-cart-button");
      await product.locator(".tessera-modal[role=dialog]").waitFor();
      assert.deepEqual(await axe(product), [], "product page with an alert");
      await product.keyboard.press("Escape");
      await product.selectOption('select[data-variant-option-name="Size"]', "L/XL");
      await product.selectOption('select[data-variant-option-name="Colour"]', "Oat");
      await product.click(".sqs-add-to-cart-button");
      await eventually(() => product.locator(".sqs-cart-quantity").first().innerText(), (t) => t.trim() === "1", "the header count");

      const trimmer = await open(context, server, LOAM, TRIMMER);
      await trimmer.click(".sqs-add-to-cart-button");
      await trimmer.locator(".tessera-form-modal").waitFor();
      await trimmer.click(".tessera-form-modal button[type=submit]");
      await trimmer.locator(".tessera-form-modal .tessera-form-message").waitFor();
      assert.deepEqual(await axe(trimmer), [], "the lightbox with its problems");

      const list = await context.newPage();
      await list.goto(server.origin(LOAM) + "/shop", { waitUntil: "load" });
      await list.locator(".sqs-product-quick-view-button[data-tessera-mounted]").first().waitFor();
      await list.locator(".sqs-product-quick-view-button").first().click();
      await list.locator(".tessera-quick-view .sqs-add-to-cart-button[data-tessera-mounted]").waitFor();
      assert.deepEqual(await axe(list), [], "a product list with Quick View open");

      const cart = await context.newPage();
      await cart.goto(server.origin(LOAM) + "/cart", { waitUntil: "load" });
      await cart.locator(".tessera-cart").waitFor();
      assert.deepEqual(await axe(cart), [], "cart page");

      const checkout = await context.newPage();
      await checkout.goto(server.origin(LOAM) + "/checkout", { waitUntil: "load" });
      await checkout.locator(".tessera-checkout-form").waitFor();
      assert.deepEqual(await axe(checkout), [], "checkout page");
      // With every problem showing.
      await checkout.click(".tessera-place-order");
      await checkout.locator(".tessera-form-message").waitFor();
      assert.deepEqual(await axe(checkout), [], "checkout page with its problems");
    },
  ],
];
