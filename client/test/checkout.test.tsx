import { afterEach, describe, expect, it, vi } from "vitest";
import { mount, navigate } from "../src/islands/checkout/index";
import { SHIPPING_LATER } from "../src/shared/totals";
import { type Details, EMPTY_DETAILS, EXPIRY_FORMAT, amountDue, checkoutBody, fieldOf, localProblems, parseExpiry } from "../src/islands/checkout/model";
import { cart, changed, entry } from "./fixtures";
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
  region: "NH",
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

  it("asks for a region where the country has them, from the list", () => {
    const countries = cart().checkout.countries ?? [];
    expect(localProblems({ ...filled, region: "" }, true, true, countries)).toEqual({ region: "Required" });
    expect(localProblems({ ...filled, region: "" }, true, true, [])).toEqual({});
    expect(localProblems({ ...filled, country: "GI", region: "" }, true, true, countries)).toEqual({});
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
      shippingAddress: { firstName: "Ada", lastName: "de Vries", line1: "Lindengracht 12", city: "Amsterdam", region: "NH", postalCode: "1015 KD", country: "NL" },
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

function pick(id: string, value: string) {
  const el = document.getElementById(id) as HTMLSelectElement;
  el.value = value;
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

async function fillIn() {
  for (const [f, v] of Object.entries(filled)) {
    if (f === "method" || f === "country" || !v) continue;
    if (f === "region") {
      // Picked only when the cart's location has not chosen it already (a pick prices it).
      if ((document.getElementById("checkout-region") as HTMLSelectElement).value !== v) pick("checkout-region", v);
    }
    else type(`checkout-${f}`, v);
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
  const ready = cart({ shippingLocation: { country: "NL", region: "NH" }, shippingOptions: [option], selectedShippingOption: option, shippingCostCents: 695, grandTotalCents: 2095 });

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

  it("takes the country and its region from lists, and prices the region picked", async () => {
    const noWhere = cart({ requiresShipping: true, shippingOptions: [option], selectedShippingOption: null, shippingLocation: null });
    const maine = cart({ shippingLocation: { country: "US", region: "ME" }, taxCents: 187 });
    const calls = await checkoutPage(noWhere, changed(cart({ shippingLocation: { country: "US" } })), changed(maine));
    const country = document.querySelector<HTMLSelectElement>("select#checkout-country")!;
    expect(document.querySelector("label[for=checkout-country]")!.textContent).toBe("Country");
    expect([...country.options].map((o) => o.value)).toEqual(["", "NL", "GI", "US"]);
    // No region list until a country with regions is picked.
    expect(document.getElementById("checkout-region")).toBeNull();
    pick("checkout-country", "US");
    await settle();
    const region = document.querySelector<HTMLSelectElement>("select#checkout-region")!;
    expect(document.querySelector("label[for=checkout-region]")!.textContent).toBe("State or region");
    expect(region.required).toBe(true);
    expect([...region.options].map((o) => [o.value, o.textContent])).toEqual([
      ["", "Select state or region"],
      ["ME", "Maine"],
      ["NY", "New York"],
    ]);
    pick("checkout-region", "ME");
    await settle();
    const located = calls.filter((c) => c.url === "/api/commerce/shopping-cart/shipping-location");
    expect(located.map((c) => JSON.parse(String(c.init.body)))).toEqual([
      { country: "US", region: null, postalCode: null },
      { country: "US", region: "ME", postalCode: null },
    ]);
    // Another country starts without a region; one without regions has no list.
    pick("checkout-country", "GI");
    await settle();
    expect(document.getElementById("checkout-region")).toBeNull();
  });

  it("shows the cart of the last place chosen when an earlier answer comes back after it", async () => {
    const noWhere = cart({ requiresShipping: true, shippingOptions: [option], selectedShippingOption: null, shippingLocation: null });
    const maine = cart({ shippingLocation: { country: "US", region: "ME" }, taxCents: 187 });
    await checkoutPage(noWhere);
    // The first answer (the country alone, no tax) is held back until the second (Maine)
    // has been shown.
    let releaseFirst!: () => void;
    let n = 0;
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => {
        n += 1;
        if (n === 1) {
          await new Promise<void>((r) => (releaseFirst = r));
          return new Response(JSON.stringify({ shoppingCart: cart({ shippingLocation: { country: "US" }, taxCents: 0 }) }), { status: 200 });
        }
        return new Response(JSON.stringify({ shoppingCart: maine }), { status: 200 });
      }),
    );
    pick("checkout-country", "US");
    await settle();
    pick("checkout-region", "ME");
    await settle();
    const tax = () => document.querySelector(".tessera-tax")?.textContent;
    expect(tax()).toBe("€1.87");
    releaseFirst();
    await settle();
    expect(n).toBe(2);
    expect(tax()).toBe("€1.87");
  });

  it("asks for the fields the store names: order notes under its label, the phone it requires", async () => {
    const terms = { ...ready.checkout, orderNotesLabel: "Notes for the studio", requireShippingPhone: true };
    const calls = await checkoutPage({ ...ready, checkout: terms }, { status: 201, body: { confirmationUrl: "/done" } });
    vi.spyOn(navigate, "to").mockImplementation(() => {});
    const notes = document.querySelector<HTMLTextAreaElement>("textarea#checkout-orderNotes")!;
    expect(document.querySelector("label[for=checkout-orderNotes]")!.textContent).toBe("Notes for the studio (optional)");
    expect(notes.maxLength).toBe(1000);
    const phone = document.querySelector<HTMLInputElement>("input#checkout-phone")!;
    expect(phone.type).toBe("tel");
    expect(phone.required).toBe(true);
    await fillIn();
    placeButton().click();
    await settle();
    expect(document.getElementById("checkout-phone-problem")!.textContent).toBe("Required");
    type("checkout-phone", "+1 207 555 0100");
    notes.value = "Leave it by the kiln";
    notes.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    placeButton().click();
    await settle();
    const body = JSON.parse(String(calls.find((c) => c.url === "/api/commerce/checkout")!.init.body));
    expect(body.orderNotes).toBe("Leave it by the kiln");
    expect(body.shippingAddress.phone).toBe("+1 207 555 0100");
  });

  it("asks for neither when the store names neither", async () => {
    await checkoutPage(ready);
    expect(document.getElementById("checkout-orderNotes")).toBeNull();
    expect(document.getElementById("checkout-phone")).toBeNull();
    expect(document.getElementById("checkout-recipientEmail")).toBeNull();
  });

  it("a gift card purchase takes a recipient's email and a message", async () => {
    const gift = cart({ requiresShipping: false, entries: [entry({ productType: 4, title: "Gift Card", subTotal: 5000 })], grandTotalCents: 5000 });
    const calls = await checkoutPage(gift, { status: 201, body: { confirmationUrl: "/done" } });
    vi.spyOn(navigate, "to").mockImplementation(() => {});
    expect(document.querySelector("label[for=checkout-recipientEmail]")!.textContent).toBe("Recipient's email (optional)");
    expect(document.querySelector<HTMLTextAreaElement>("textarea#checkout-recipientMessage")!.maxLength).toBe(500);
    type("checkout-email", "ada@example.com");
    type("checkout-recipientEmail", "bo@");
    for (const [f, v] of [["cardNumber", "4242 4242 4242 4242"], ["cardExpiry", "12 / 30"], ["cardCvc", "123"]]) type(`checkout-${f}`, v);
    await settle();
    placeButton().click();
    await settle();
    expect(document.getElementById("checkout-recipientEmail-problem")!.textContent).toMatch(/^Email is not valid/);
    type("checkout-recipientEmail", "bo@example.com");
    const message = document.querySelector<HTMLTextAreaElement>("#checkout-recipientMessage")!;
    message.value = "Happy birthday";
    message.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    placeButton().click();
    await settle();
    const body = JSON.parse(String(calls.find((c) => c.url === "/api/commerce/checkout")!.init.body));
    expect(body.giftCardRecipient).toEqual({ email: "bo@example.com", message: "Happy birthday" });
  });

  it("a store that ships anywhere lists every country, read once from the shared list", async () => {
    const anywhere = cart({ shippingLocation: null, checkout: { ...ready.checkout, shipsTo: null, countries: null } });
    const every = { countries: [{ code: "AQ", name: "Antarctica", regions: [] }, { code: "US", name: "United States of America", regions: [{ code: "ME", name: "Maine" }] }] };
    const calls = await checkoutPage(anywhere, { body: every });
    expect(calls.filter((c) => c.url === "/api/commerce/countries")).toHaveLength(1);
    const country = document.querySelector<HTMLSelectElement>("select#checkout-country")!;
    expect([...country.options].map((o) => o.value)).toEqual(["", "AQ", "US"]);
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
