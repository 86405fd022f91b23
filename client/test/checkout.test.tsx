import { afterEach, describe, expect, it, vi } from "vitest";
import { mount, navigate } from "../src/islands/checkout/index";
import { SHIPPING_LATER } from "../src/shared/totals";
import { type Details, EMPTY_DETAILS, EXPIRY_FORMAT, amountDue, checkoutBody, fieldOf, localProblems, parseExpiry } from "../src/islands/checkout/model";
import { cart, changed } from "./fixtures";
import { fakeFetch, page, settle } from "./helpers";

afterEach(() => vi.unstubAllGlobals());

const filled: Details = {
  ...EMPTY_DETAILS,
  email: "ada@example.com",
  firstName: "Ada",
  lastName: "de Vries",
  line1: "Lindengracht 12",
  city: "Amsterdam",
  postalCode: "1015 KD",
  country: "nl",
  cardNumber: "4242 4242 4242 4242",
  cardExpiry: "12 / 30",
  cardCvc: "123",
};

describe("the checkout form's own checks", () => {
  it("names every missing field, the email format and the expiry format", () => {
    const all = localProblems(EMPTY_DETAILS, true, true);
    expect(all).toEqual({
      email: "Required",
      firstName: "Required",
      lastName: "Required",
      line1: "Required",
      city: "Required",
      postalCode: "Required",
      country: "Required",
      cardNumber: "Required",
      cardExpiry: "Required",
      cardCvc: "Required",
    });
    expect(localProblems({ ...filled, email: "ada@" }, true, true)).toEqual({
      email: "Email is not valid. Email addresses should follow the format user@domain.com.",
    });
    expect(localProblems({ ...filled, cardExpiry: "13/30" }, true, true)).toEqual({ cardExpiry: EXPIRY_FORMAT });
  });

  it("asks for no address when nothing ships and no card when nothing is due or paid later", () => {
    const contactOnly = { ...EMPTY_DETAILS, email: "a@b.co" };
    expect(localProblems(contactOnly, false, false)).toEqual({});
    expect(localProblems({ ...contactOnly, method: "manual" }, false, true)).toEqual({});
  });

  it("reads the expiry as people write it", () => {
    expect(parseExpiry("12 / 30")).toEqual({ month: 12, year: 2030 });
    expect(parseExpiry("0130")).toEqual({ month: 1, year: 2030 });
    expect(parseExpiry("3/2031")).toEqual({ month: 3, year: 2031 });
    expect(parseExpiry("00/30")).toBeNull();
    expect(parseExpiry("soon")).toBeNull();
  });

  it("sends the address, the option, the gift card and the card as the API takes them", () => {
    const c = cart({ selectedShippingOption: { id: "parcel", name: "Parcel", costCents: 695, cost: { currency: "EUR", value: "6.95" } }, grandTotalCents: 2095 });
    const body = checkoutBody(filled, c, { token: "tok", gift: { code: "GC-ABCD", balanceCents: 500 } });
    expect(body).toEqual({
      email: "ada@example.com",
      expectedGrandTotalCents: 2095,
      cartToken: "tok",
      shippingAddress: { firstName: "Ada", lastName: "de Vries", line1: "Lindengracht 12", city: "Amsterdam", postalCode: "1015 KD", country: "NL" },
      shippingOptionId: "parcel",
      giftCardCode: "GC-ABCD",
      payment: { method: "card", card: { number: "4242424242424242", expMonth: 12, expYear: 2030, cvc: "123" } },
    });
    // A gift card that covers it all: no payment.
    const covered = checkoutBody(filled, c, { gift: { code: "GC-BIG", balanceCents: 9999 } });
    expect(covered.payment).toBeUndefined();
    expect(amountDue(c, { code: "GC-BIG", balanceCents: 9999 })).toBe(0);
    expect(amountDue(c, { code: "GC-ABCD", balanceCents: 500 })).toBe(1595);
    // Paying later.
    expect(checkoutBody({ ...filled, method: "manual" }, c, { gift: null }).payment).toEqual({ method: "manual" });
  });

  it("puts the server's field problems by their fields", () => {
    expect(fieldOf("shippingAddress.postalCode")).toBe("postalCode");
    expect(fieldOf("card.expYear")).toBe("cardExpiry");
    expect(fieldOf("giftCardCode")).toBe("giftCard");
    expect(fieldOf("shippingOptionId")).toBe("shippingOption");
    expect(fieldOf("shippingAddress.planet")).toBeNull();
    expect(fieldOf("somethingElse")).toBeNull();
  });
});

function type(id: string, value: string) {
  const el = document.getElementById(id) as HTMLInputElement;
  el.value = value;
  el.dispatchEvent(new Event("input", { bubbles: true }));
}

async function fillIn() {
  for (const [f, v] of Object.entries(filled)) {
    if (f === "method" || f === "country" || !v) continue;
    type(`checkout-${f}`, v);
  }
  await settle();
}

const placeButton = () => document.querySelector<HTMLButtonElement>(".tessera-place-order")!;

async function checkoutPage(c: ReturnType<typeof cart>, ...answers: Parameters<typeof fakeFetch>) {
  page('<div id="sqs-checkout-root"></div>');
  const calls = fakeFetch({ body: c }, ...answers);
  await mount();
  await settle();
  return calls;
}

describe("checkout", () => {
  const option = { id: "parcel", name: "Parcel post", costCents: 695, cost: { currency: "EUR", value: "6.95" } };
  const ready = cart({ shippingLocation: { country: "NL" }, shippingOptions: [option], selectedShippingOption: option, shippingCostCents: 695, grandTotalCents: 2095 });

  it("says Required by each empty field and sends nothing", async () => {
    const calls = await checkoutPage(ready);
    placeButton().click();
    await settle();
    expect(document.querySelector(".tessera-form-message")!.textContent).toBe("One or more fields is invalid, please check your entries.");
    expect(document.getElementById("checkout-email-problem")!.textContent).toBe("Required");
    expect(document.getElementById("checkout-email")!.getAttribute("aria-invalid")).toBe("true");
    expect(calls).toHaveLength(1);
    // Filling a field in takes its problem away at once; the others stay until checked.
    type("checkout-email", "ada@example.com");
    await settle();
    expect(document.getElementById("checkout-email-problem")).toBeNull();
    expect(document.getElementById("checkout-email")!.getAttribute("aria-invalid")).toBeNull();
    expect(document.getElementById("checkout-firstName-problem")!.textContent).toBe("Required");
  });

  it("shows the test card note, places the order (Placing Order…) and goes to the confirmation", async () => {
    const to = vi.spyOn(navigate, "to").mockImplementation(() => {});
    let release!: () => void;
    const calls = await checkoutPage(ready);
    expect(document.querySelector(".tessera-card .tessera-note")!.textContent).toMatch(/4242 4242 4242 4242/);
    await fillIn();
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init: RequestInit) => {
        calls.push({ url, init });
        await new Promise<void>((r) => (release = r));
        return new Response(JSON.stringify({ confirmationUrl: "/commerce/order-confirmed/o1?token=t" }), { status: 200 });
      }),
    );
    placeButton().click();
    await settle();
    expect(placeButton().textContent).toBe("Placing Order…");
    expect(placeButton().getAttribute("aria-disabled")).toBe("true");
    // A second click while placing sends nothing more.
    placeButton().click();
    release();
    await settle();
    expect(calls.filter((c) => c.url === "/api/commerce/checkout")).toHaveLength(1);
    const body = JSON.parse(String(calls[1].init.body));
    expect(body.shippingOptionId).toBe("parcel");
    expect(body.expectedGrandTotalCents).toBe(2095);
    expect(to).toHaveBeenCalledWith("/commerce/order-confirmed/o1?token=t");
  });

  it("prices no shipping before the buyer gives a country", async () => {
    await checkoutPage(cart({ requiresShipping: true, shippingOptions: [option], selectedShippingOption: null, shippingLocation: null, shippingCostCents: 0 }));
    expect(document.querySelector(".tessera-shipping")!.textContent).toBe(SHIPPING_LATER);
    expect(document.querySelector(".tessera-shipping-options")).toBeNull();
  });

  it("a declined card shows at the payment fields, and the button comes back", async () => {
    await checkoutPage(ready, { status: 402, body: { message: "Your card was declined." } });
    await fillIn();
    placeButton().click();
    await settle();
    expect(document.querySelector(".tessera-payment-problem")!.textContent).toBe("Your card was declined.");
    // Said once, at the payment fields: not again above the button.
    const said = document.querySelector(".tessera-checkout")!.textContent!.split("Your card was declined.").length - 1;
    expect(said).toBe(1);
    expect(placeButton().textContent).toBe("Place Order");
  });

  it("the server's field problems show by their fields", async () => {
    await checkoutPage(ready, {
      status: 400,
      body: { message: "One or more fields is invalid, please check your entries.", errors: { "shippingAddress.postalCode": "Enter a postal code." } },
    });
    await fillIn();
    placeButton().click();
    await settle();
    expect(document.getElementById("checkout-postalCode-problem")!.textContent).toBe("Enter a postal code.");
  });

  it("a moved total (409) fetches the cart again to show the new one", async () => {
    const moved = { ...ready, grandTotalCents: 2595, shippingCostCents: 1195 };
    const calls = await checkoutPage(ready, { status: 409, body: { message: "The total has changed.", grandTotalCents: 2595 } }, { body: moved });
    await fillIn();
    placeButton().click();
    await settle();
    expect(calls[2].url).toBe("/api/commerce/shopping-cart");
    expect(document.querySelector(".tessera-form-message")!.textContent).toBe("The total has changed.");
    expect(document.querySelector(".tessera-total")!.textContent).toBe("€25.95");
  });

  it("a gift card that covers the order leaves nothing to pay by card", async () => {
    const calls = await checkoutPage(ready, { body: { giftCard: { code: "GC-1234-WXYZ", balanceCents: 5000 } } });
    type("checkout-gift-card", "gc-1234-wxyz");
    await settle();
    document.querySelector<HTMLButtonElement>(".tessera-gift-card-apply")!.click();
    await settle();
    expect(JSON.parse(String(calls[1].init.body))).toEqual({ code: "gc-1234-wxyz" });
    expect(document.querySelector(".tessera-gift-card-applied")!.textContent).toMatch(/^Gift card ending WXYZ: €50.00 available./);
    expect(document.getElementById("checkout-cardNumber")).toBeNull();
    expect(document.querySelector(".tessera-total")!.textContent).toBe("€0.00");
  });

  it("a purely digital cart asks for no address; a token cart's calls carry the token", async () => {
    page('<div id="sqs-checkout-root" data-cart-token="tok1" data-checkout-kind="gift-card"></div>');
    const digital = cart({ requiresShipping: false, purelyDigital: true });
    const calls = fakeFetch({ body: digital }, changed(digital));
    await mount();
    await settle();
    expect(calls[0].url).toBe("/api/commerce/shopping-cart?cartToken=tok1");
    expect(document.getElementById("checkout-line1")).toBeNull();
    expect(document.getElementById("checkout-email")).not.toBeNull();
  });

  it("below the minimum: the message, and Place Order is held back", async () => {
    const message = "To check out, your order subtotal must be €20.00 or more.";
    await checkoutPage(cart({ checkoutMessage: message }));
    expect(document.querySelector(".cart-minimum")!.textContent).toBe(message);
    expect(placeButton().getAttribute("aria-disabled")).toBe("true");
  });
});
