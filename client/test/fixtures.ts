// Carts as the commerce API answers them, for the cart page and checkout tests.

import type { Entry, FullCart } from "../src/shared/types";

const eur = (cents: number) => ({ currency: "EUR", value: (cents / 100).toFixed(2) });

export const ENGRAVING = {
  id: "engraving",
  name: "Engraving",
  fields: [
    { id: "initials", type: "text", title: "Initials", required: true, maxLength: 4 },
    { id: "note", type: "textarea", title: "Gift note", maxLength: 20 },
  ],
};

export function entry(over: Partial<Entry> & Record<string, unknown> = {}): Entry {
  const quantity = (over.quantity as number) ?? 1;
  return {
    id: "e1",
    itemId: "item1",
    quantity,
    chosenVariant: { sku: "SKU-1", attributes: { Size: "M" } },
    additionalFields: null,
    title: "Fern Pot",
    productType: 1,
    currency: "EUR",
    variantDescription: "Size: M",
    price: eur(1400),
    lineTotal: eur(1400 * quantity),
    subTotal: 1400 * quantity,
    url: "/shop/fern-pot",
    imageUrl: "/assets/fern.jpg",
    ...over,
  } as Entry;
}

export function cart(over: Partial<FullCart> = {}): FullCart {
  const entries = over.entries ?? [entry()];
  const subtotal = entries.reduce((s, e) => s + e.subTotal, 0);
  return {
    id: "c1",
    websiteId: "w1",
    isPurchased: false,
    revision: 1,
    currency: "EUR",
    entries,
    shippingOptions: [],
    selectedShippingOption: null,
    shippingLocation: null,
    shippingUnavailable: false,
    applicableTaxRules: [],
    coupons: [],
    validCoupons: [],
    invalidCoupons: [],
    subtotalCents: subtotal,
    discountCents: 0,
    shippingCostCents: 0,
    taxCents: 0,
    grandTotalCents: subtotal,
    subtotal: eur(subtotal),
    discount: eur(0),
    shippingCost: eur(0),
    tax: eur(0),
    grandTotal: eur(subtotal),
    totalQuantity: entries.reduce((s, e) => s + e.quantity, 0),
    hasDigital: false,
    purelyDigital: false,
    requiresShipping: true,
    pricesIncludeTax: true,
    minimumSubtotalCents: null,
    checkoutMessage: null,
    checkout: {
      shipsTo: ["NL", "BE", "US"],
      countries: [
        { code: "NL", name: "Netherlands (Kingdom of the)", regions: [{ code: "NH", name: "Noord-Holland" }, { code: "UT", name: "Utrecht" }] },
        { code: "GI", name: "Gibraltar", regions: [] },
        { code: "US", name: "United States of America", regions: [{ code: "ME", name: "Maine" }, { code: "NY", name: "New York" }] },
      ],
      orderNotesLabel: null,
      requireShippingPhone: false,
      testMode: true,
      manualPayment: null,
    },
    ...over,
  };
}

/** A change route's answer. */
export const changed = (c: FullCart) => ({ body: { shoppingCart: c } });
