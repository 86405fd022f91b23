import { afterEach, describe, expect, it, vi } from "vitest";
import { mount } from "../src/islands/cart/index";
import { cart, changed, ENGRAVING, entry } from "./fixtures";
import { fakeFetch, page, settle } from "./helpers";

afterEach(() => {
  vi.unstubAllGlobals();
  document.querySelectorAll(".tessera-modal-host").forEach((h) => h.remove());
});

async function cartPage(...answers: Parameters<typeof fakeFetch>) {
  page('<div id="sqs-cart-root"><p>server list</p></div>');
  const calls = fakeFetch(...answers);
  await mount();
  await settle();
  return calls;
}

const dialog = () => {
  const box = document.querySelector(".tessera-modal");
  return box && [box.querySelector(".tessera-modal-title")?.textContent, box.querySelector(".tessera-modal-message")?.textContent];
};
const ok = () => document.querySelector<HTMLButtonElement>(".tessera-modal .tessera-button")!.click();

/** Types into the entry's quantity and commits it as the browser does (a change event). */
async function changeQuantity(value: string) {
  const input = document.querySelector<HTMLInputElement>("input.tessera-quantity")!;
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
  await settle();
}

describe("the cart page", () => {
  it("lists entries with image, link, variant, price and the totals", async () => {
    await cartPage({ body: cart() });
    expect(document.querySelector("#sqs-cart-root p")?.textContent).not.toBe("server list");
    const row = document.querySelector(".tessera-cart-entry")!;
    expect(row.querySelector("a")!.getAttribute("href")).toBe("/shop/fern-pot");
    expect(row.querySelector("img")!.getAttribute("src")).toBe("/assets/fern.jpg");
    expect(row.querySelector(".tessera-cart-entry-variant")!.textContent).toBe("Size: M");
    expect(document.querySelector(".tessera-subtotal")!.textContent).toBe("€14.00");
    expect(document.querySelector<HTMLAnchorElement>(".cart-checkout-button")!.getAttribute("href")).toBe("/checkout");
  });

  it("an empty cart says so", async () => {
    await cartPage({ body: cart({ entries: [] }) });
    expect(document.querySelector(".cart-empty")!.textContent).toBe("You have nothing in your shopping cart.");
  });

  it("keeps the server's list when the cart cannot load", async () => {
    await cartPage({ network: true });
    expect(document.querySelector("#sqs-cart-root p")!.textContent).toBe("server list");
  });

  it("changes a quantity on the change event only, not while typing", async () => {
    const calls = await cartPage({ body: cart() }, changed(cart({ entries: [entry({ quantity: 3 })] })));
    const input = document.querySelector<HTMLInputElement>("input.tessera-quantity")!;
    input.value = "3";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    expect(calls).toHaveLength(1);
    await changeQuantity("3");
    expect(calls[1].url).toBe("/api/commerce/shopping-cart/entries/e1");
    expect(calls[1].init.method).toBe("PUT");
    expect(JSON.parse(String(calls[1].init.body))).toEqual({ quantity: 3 });
    expect(document.querySelector(".tessera-subtotal")!.textContent).toBe("€42.00");
  });

  it("a refused quantity: Unable to update quantity with the server's message; the field goes back", async () => {
    await cartPage({ body: cart() }, { status: 409, body: { message: "Sorry, we do not have enough of that item available." } });
    await changeQuantity("40");
    expect(dialog()).toEqual(["Unable to update quantity", "Sorry, we do not have enough of that item available."]);
    ok();
    await settle();
    expect(document.querySelector<HTMLInputElement>("input.tessera-quantity")!.value).toBe("1");
  });

  it("a quantity that is no whole number is named before any call", async () => {
    const calls = await cartPage({ body: cart() });
    await changeQuantity("1.5");
    expect(dialog()).toEqual(["Unable to update quantity", "Quantity must be a whole number"]);
    expect(calls).toHaveLength(1);
  });

  it("offline: Please check your internet connection.", async () => {
    await cartPage({ body: cart() }, { network: true });
    await changeQuantity("2");
    expect(dialog()).toEqual(["Unable to update quantity", "Please check your internet connection."]);
  });

  it("removes an entry, or says Unable to remove item", async () => {
    const calls = await cartPage({ body: cart() }, { status: 500, body: {} }, changed(cart({ entries: [] })));
    const remove = () => document.querySelector<HTMLButtonElement>('button[aria-label="Remove Fern Pot"]')!.click();
    remove();
    await settle();
    expect(dialog()).toEqual(["Unable to remove item", "Please try again."]);
    ok();
    await settle();
    remove();
    await settle();
    expect(calls[2].init.method).toBe("DELETE");
    expect(document.querySelector(".cart-empty")).not.toBeNull();
  });

  it("below the minimum: the message, and no way to checkout", async () => {
    const message = "To check out, your order subtotal must be €20.00 or more.";
    await cartPage({ body: cart({ minimumSubtotalCents: 2000, checkoutMessage: message }) });
    expect(document.querySelector(".cart-minimum")!.textContent).toBe(message);
    const button = document.querySelector<HTMLButtonElement>(".cart-checkout-button")!;
    expect(button.tagName).toBe("BUTTON");
    expect(button.disabled).toBe(true);
  });
});

describe("an entry's additional fields", () => {
  const withFields = (fields: unknown, form: Record<string, unknown> | null = ENGRAVING) =>
    cart({ entries: [entry({ additionalFields: JSON.stringify(fields), additionalFieldsForm: form })] });

  it("shows each answer under its title, N/A when unanswered", async () => {
    await cartPage({ body: withFields({ initials: "AL", note: "" }) });
    const rows = Array.from(document.querySelectorAll(".tessera-cart-entry-fields dl > div")).map((d) => d.textContent);
    expect(rows).toEqual(["InitialsAL", "Gift noteN/A"]);
  });

  it("Edit opens the form filled in; Saving… while it saves; the answers come back", async () => {
    let release!: () => void;
    const calls = await cartPage({ body: withFields({ initials: "AL" }) });
    const saved = withFields({ initials: "ZZ", note: "" });
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init: RequestInit) => {
        calls.push({ url, init });
        await new Promise<void>((r) => (release = r));
        return new Response(JSON.stringify({ shoppingCart: saved }), { status: 200 });
      }),
    );
    document.querySelector<HTMLButtonElement>('button[aria-label="Edit Fern Pot"]')!.click();
    await settle();
    const modal = document.querySelector(".tessera-form-modal")!;
    expect(modal.querySelector(".tessera-modal-title")!.textContent).toBe("Engraving");
    const initials = modal.querySelector<HTMLInputElement>("input[name=initials]")!;
    expect(initials.value).toBe("AL");
    expect(document.activeElement).toBe(modal.querySelector(".tessera-modal-close"));
    initials.value = "ZZ";
    initials.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    modal.querySelector<HTMLFormElement>("form")!.requestSubmit();
    await settle();
    const submit = modal.querySelector<HTMLButtonElement>("button[type=submit]")!;
    expect(submit.textContent).toBe("Saving…");
    expect(submit.getAttribute("aria-disabled")).toBe("true");
    // While saving there is no way out: no close button.
    expect(modal.querySelector(".tessera-modal-close")).toBeNull();
    release();
    await settle();
    expect(document.querySelector(".tessera-form-modal")).toBeNull();
    expect(calls[1].url).toBe("/api/commerce/shopping-cart/entries/e1/additionalFields");
    expect(JSON.parse(JSON.parse(String(calls[1].init.body)).additionalFields)).toEqual({ initials: "ZZ", note: "" });
    expect(document.querySelector(".tessera-cart-entry-fields dd")!.textContent).toBe("ZZ");
  });

  it("checks the answers first, then says Unable to update form when the save fails", async () => {
    await cartPage({ body: withFields({ initials: "AL" }) }, { status: 500, body: {} });
    document.querySelector<HTMLButtonElement>('button[aria-label="Edit Fern Pot"]')!.click();
    await settle();
    const modal = document.querySelector(".tessera-form-modal")!;
    const initials = modal.querySelector<HTMLInputElement>("input[name=initials]")!;
    initials.value = "TOOLONG";
    initials.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    modal.querySelector<HTMLFormElement>("form")!.requestSubmit();
    await settle();
    expect(modal.querySelector(".tessera-form-message")!.textContent).toBe("One or more fields is invalid, please check your entries.");
    expect(modal.querySelector(".tessera-error")!.textContent).toBe("You have exceeded the character limit.");
    initials.value = "AB";
    initials.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    modal.querySelector<HTMLFormElement>("form")!.requestSubmit();
    await settle();
    expect(modal.querySelector(".tessera-form-message")!.textContent).toBe("Unable to update form. Please try again.");
    expect(modal.querySelector("button[type=submit]")!.textContent).toBe("Save");
  });

  it("Escape closes the lightbox and nothing is saved", async () => {
    const calls = await cartPage({ body: withFields({ initials: "AL" }) });
    document.querySelector<HTMLButtonElement>('button[aria-label="Edit Fern Pot"]')!.click();
    await settle();
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await settle();
    expect(document.querySelector(".tessera-form-modal")).toBeNull();
    expect(calls).toHaveLength(1);
  });

  it("a product without its form any more: Unable to open form, Please try again.", async () => {
    await cartPage({ body: withFields({ initials: "AL" }, null) });
    document.querySelector<HTMLButtonElement>('button[aria-label="Edit Fern Pot"]')!.click();
    await settle();
    expect(dialog()).toEqual(["Unable to open form", "Please try again."]);
  });
});
