import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ADDED_MS, ADDING_DELAY_MS, ButtonMachine, FAILURE_RESET_MS } from "../src/islands/add-to-cart/machine";
import { mount, navigate } from "../src/islands/add-to-cart/index";
import * as m from "../src/shared/messages";
import { cookie, fakeFetch, page } from "./helpers";

describe("the button's states", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("adding, then Added! a second after success, then idle two seconds later", () => {
    const seen: string[] = [];
    const b = new ButtonMachine((s) => seen.push(s));
    expect(b.click()).toBe(true);
    b.succeed();
    vi.advanceTimersByTime(ADDING_DELAY_MS - 1);
    expect(b.state).toBe("adding");
    vi.advanceTimersByTime(1);
    expect(b.state).toBe("added");
    // An added button ignores clicks.
    expect(b.click()).toBe(false);
    vi.advanceTimersByTime(ADDED_MS - 1);
    expect(b.state).toBe("added");
    vi.advanceTimersByTime(1);
    expect(b.state).toBe("idle");
    expect(seen).toEqual(["adding", "added", "idle"]);
    expect([ADDING_DELAY_MS, ADDED_MS, FAILURE_RESET_MS]).toEqual([1000, 2000, 1000]);
  });

  it("a failure is idle again after a second; a busy button takes no click", () => {
    const b = new ButtonMachine(() => {});
    b.click();
    expect(b.click()).toBe(false);
    b.fail();
    vi.advanceTimersByTime(FAILURE_RESET_MS - 1);
    expect(b.state).toBe("adding");
    vi.advanceTimersByTime(1);
    expect(b.state).toBe("idle");
  });
});

const product = (attrs = "", variants = true) => `
  <article class="product">
    <div class="product-price">€14.00</div>
    ${variants ? `<div class="product-variants" data-item-id="i1" data-variants='[
      {"sku":"S","attributes":{"Size":"Small"},"qtyInStock":3,"priceMoney":{"currency":"EUR","value":"14.00"}},
      {"sku":"L","attributes":{"Size":"Large"},"qtyInStock":0,"priceMoney":{"currency":"EUR","value":"34.00"}}]'>
      <select data-variant-option-name="Size"><option value="">Select Size</option><option>Small</option><option>Large</option></select>
    </div>` : ""}
    <div class="product-quantity-input" data-item-id="i1"><input type="number" value="1"></div>
    <div class="sqs-add-to-cart-button" role="button" tabindex="0" data-item-id="i1" data-product-type="1" ${attrs}>
      <div class="sqs-add-to-cart-button-inner">Add To Cart</div>
    </div>
  </article>`;

const cartAnswer = { body: { shoppingCart: { id: "c", totalQuantity: 1, subtotalCents: 1400, currency: "EUR", entries: [] }, newlyAdded: {} } };

async function flush() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function button() {
  return document.querySelector<HTMLElement>(".sqs-add-to-cart-button")!;
}

function label() {
  return document.querySelector(".sqs-add-to-cart-button-inner")!.textContent;
}

function alertText() {
  return document.querySelector(".tessera-modal")?.textContent ?? "";
}

describe("the add-to-cart island", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    cookie("crumb=tok");
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    document.querySelectorAll(".tessera-modal-host").forEach((h) => h.remove());
  });

  it("adds the chosen variant and walks through Adding… and Added!", async () => {
    page(product());
    const calls = fakeFetch(cartAnswer);
    mount();
    expect(label()).toBe("Add To Cart");
    document.querySelector<HTMLSelectElement>("select")!.value = "Small";
    button().click();
    await flush();
    expect(label()).toBe(m.ADDING);
    expect(JSON.parse(calls[0].init.body as string)).toEqual({ itemId: "i1", sku: "S", quantity: 1 });
    expect((calls[0].init.headers as Record<string, string>)["X-CSRF-Token"]).toBe("tok");
    vi.advanceTimersByTime(1000);
    await flush();
    expect(label()).toBe(m.ADDED);
    button().click();
    await flush();
    expect(calls.length).toBe(1);
    vi.advanceTimersByTime(2000);
    await flush();
    expect(label()).toBe("Add To Cart");
  });

  it("enhances the server's form post: a click or a key adds in place, the form is never sent", async () => {
    // As the server writes it for a page without JavaScript (api/src/pages/cart_forms.rs).
    page(`
      <div class="product-variants" data-item-id="i1" data-variants='[{"sku":"S","attributes":{"Size":"Small"},"qtyInStock":3}]'>
        <select data-variant-option-name="Size" name="variant-option-Size" form="f1"><option value="">Select Size</option><option>Small</option></select>
      </div>
      <div class="product-quantity-input" data-item-id="i1"><input type="number" value="1" name="quantity" form="f1"></div>
      <div class="sqs-add-to-cart-button-wrapper">
        <form id="f1" method="post" action="/api/commerce/shopping-cart/form/add" hidden>
          <input type="hidden" name="crumb" value="tok"><input type="hidden" name="itemId" value="i1">
        </form>
        <button type="submit" form="f1" class="sqs-add-to-cart-button" role="button" tabindex="0" data-item-id="i1" data-product-type="1">
          <div class="sqs-add-to-cart-button-inner">Add To Cart</div>
        </button>
      </div>`);
    const sent: string[] = [];
    document.getElementById("f1")!.addEventListener("submit", (e) => {
      sent.push("submit");
      e.preventDefault();
    });
    const calls = fakeFetch(cartAnswer, cartAnswer);
    mount();
    document.querySelector<HTMLSelectElement>("select")!.value = "Small";
    button().click();
    await flush();
    expect(JSON.parse(calls[0].init.body as string)).toEqual({ itemId: "i1", sku: "S", quantity: 1 });
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(3000);
    await flush();
    const enter = new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true });
    button().dispatchEvent(enter);
    await flush();
    expect(enter.defaultPrevented).toBe(true);
    expect(calls.length).toBe(2);
    expect(sent).toEqual([]);
    expect(label()).toBe(m.ADDING);
  });

  it("asks for every option and a good quantity before adding", async () => {
    page(product());
    const calls = fakeFetch();
    mount();
    button().click();
    await flush();
    expect(alertText()).toContain("Unable to Add Item");
    expect(alertText()).toContain("Please select the Size option.");
    document.querySelector<HTMLSelectElement>("select")!.value = "Small";
    document.querySelector<HTMLInputElement>(".product-quantity-input input")!.value = "1.5";
    document.querySelectorAll(".tessera-modal-host").forEach((h) => h.remove());
    button().click();
    await flush();
    expect(alertText()).toContain("Quantity must be a whole number");
    document.querySelector<HTMLInputElement>(".product-quantity-input input")!.value = "0";
    document.querySelectorAll(".tessera-modal-host").forEach((h) => h.remove());
    vi.advanceTimersByTime(1000);
    button().click();
    await flush();
    expect(alertText()).toContain("Quantity must be between 1 and 9999.");
    expect(calls.length).toBe(0);
    expect(label()).toBe("Add To Cart");
  });

  it("shows failures, and is idle again a second later", async () => {
    for (const [answer, text] of [
      [{ status: 403, body: { crumbFail: true, message: "x" } }, m.SESSION_EXPIRED],
      [{ status: 429, body: { message: "whatever" } }, m.TRY_AGAIN_SOON],
      [{ status: 409, body: { message: m.NOT_ENOUGH_STOCK } }, m.NOT_ENOUGH_STOCK],
      [{ network: true }, m.CHECK_CONNECTION],
    ] as const) {
      page(product("", false));
      fakeFetch(answer);
      mount();
      button().click();
      await flush();
      expect(alertText()).toContain(m.UNABLE_TO_ADD);
      expect(alertText()).toContain(text);
      vi.advanceTimersByTime(999);
      await flush();
      expect(label()).toBe(m.ADDING);
      vi.advanceTimersByTime(1);
      await flush();
      expect(label()).toBe("Add To Cart");
      document.querySelectorAll(".tessera-modal-host").forEach((h) => h.remove());
    }
  });

  it("subscriptions say Subscribe and go to subscription checkout with the cart token", async () => {
    page(product('data-is-subscription="true"', false));
    const calls = fakeFetch({ body: { cartToken: "t.s", checkoutUrl: "/checkout/subscription?cartToken=t.s" } });
    const go = vi.spyOn(navigate, "to").mockImplementation(() => {});
    mount();
    expect(label()).toBe(m.SUBSCRIBE);
    button().click();
    await flush();
    expect(calls[0].url).toBe("/api/3/commerce/cart/subscription");
    expect(go).toHaveBeenCalledWith("/checkout/subscription?cartToken=t.s");
  });

  it("gift cards go to the gift-card page with the chosen denomination", async () => {
    page(product("", true).replace('data-product-type="1"', 'data-product-type="4"'));
    const calls = fakeFetch({ body: { cartToken: "t.g", checkoutUrl: "/checkout/gift-card?cartToken=t.g" } });
    const go = vi.spyOn(navigate, "to").mockImplementation(() => {});
    mount();
    const select = document.querySelector("select")!;
    select.value = "Small";
    button().click();
    await flush();
    expect(calls[0].url).toBe("/api/3/commerce/cart/gift-card");
    expect(JSON.parse(String(calls[0].init.body))).toEqual({ itemId: "i1", sku: "S", quantity: 1 });
    expect(go).toHaveBeenCalledWith("/checkout/gift-card?cartToken=t.g");
  });

  it("express checkout goes on to checkout; failures have their titles", async () => {
    page(product("", false), { expressCheckout: true });
    fakeFetch(cartAnswer, { status: 400, body: { message: "no" } });
    const go = vi.spyOn(navigate, "to").mockImplementation(() => {});
    mount();
    button().click();
    await flush();
    expect(go).toHaveBeenCalledWith("/checkout");
    vi.advanceTimersByTime(5000);
    page(product("", false), { expressCheckout: true });
    fakeFetch({ status: 400, body: { message: "no" } });
    mount();
    button().click();
    await flush();
    expect(alertText()).toContain(m.UNABLE_TO_PURCHASE);
    document.querySelectorAll(".tessera-modal-host").forEach((h) => h.remove());

    page(product('data-product-type="4"'.replace('data-product-type="4"', ""), true).replace('data-product-type="1"', 'data-product-type="4"'));
    fakeFetch();
    mount();
    button().click();
    await flush();
    expect(alertText()).toContain(m.UNABLE_TO_PURCHASE_GIFT_CARD);
    expect(alertText()).toContain("Select a denomination for the Gift Card");
  });

  it("the merchant's label wins", () => {
    page(product('data-original-label="Reserve one"', false));
    mount();
    expect(label()).toBe("Reserve one");
  });
});
