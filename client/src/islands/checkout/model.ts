// What the checkout form holds and how it becomes the checkout call (README "Checkout"):
// the local checks before sending, the body, and where the server's field problems show.

import { isEmail } from "../../shared/form";
import * as m from "../../shared/messages";
import type { FullCart, Schemas } from "../../shared/types";

export interface Details {
  email: string;
  firstName: string;
  lastName: string;
  line1: string;
  line2: string;
  city: string;
  region: string;
  postalCode: string;
  country: string;
  phone: string;
  orderNotes: string;
  recipientEmail: string;
  recipientMessage: string;
  method: "card" | "manual";
  cardNumber: string;
  cardExpiry: string;
  cardCvc: string;
}

export const EMPTY_DETAILS: Details = {
  email: "",
  firstName: "",
  lastName: "",
  line1: "",
  line2: "",
  city: "",
  region: "",
  postalCode: "",
  country: "",
  phone: "",
  orderNotes: "",
  recipientEmail: "",
  recipientMessage: "",
  method: "card",
  cardNumber: "",
  cardExpiry: "",
  cardCvc: "",
};

export type Field = keyof Details | "giftCard" | "payment" | "shippingOption";

/** A gift card the buyer applied: its code and what is left on it. */
export type AppliedGiftCard = Pick<Schemas["GiftCard"], "code" | "balanceCents">;

/** What the buyer still pays after the gift card. */
export function amountDue(cart: FullCart, gift: AppliedGiftCard | null): number {
  return Math.max(0, cart.grandTotalCents - Math.min(gift?.balanceCents ?? 0, cart.grandTotalCents));
}

/** "MM / YY", "MM/YYYY", "MMYY" → month and four-digit year, or null. */
export function parseExpiry(text: string): { month: number; year: number } | null {
  const digits = text.replace(/\s/g, "");
  const m1 = /^(\d{1,2})\/?(\d{2}|\d{4})$/.exec(digits);
  if (!m1) return null;
  const month = Number(m1[1]);
  let year = Number(m1[2]);
  if (m1[2].length === 2) year += 2000;
  if (month < 1 || month > 12) return null;
  return { month, year };
}

export const EXPIRY_FORMAT = "Enter the expiry as MM / YY.";

const ADDRESS: (keyof Details)[] = ["firstName", "lastName", "line1", "city", "postalCode", "country"];

/** A country an address may name, with its regions (the checkout terms' `countries`). */
export type Country = Schemas["Country"];

/** The regions of `code` among `countries` (none when it has none, or is not listed). */
export function regionsOf(countries: Country[], code: string): Country["regions"] {
  return countries.find((c) => c.code === code.trim().toUpperCase())?.regions ?? [];
}

/** The longest order notes the server takes. */
export const ORDER_NOTES_MAX = 1000;
/** The longest message to a gift card's recipient. */
export const GIFT_MESSAGE_MAX = 500;

/** The problems the form can see before sending (the server checks everything again).
 * `countries`: the address's lists; a country with regions needs one. `phone`: the store
 * needs a phone number with the shipping address. */
export function localProblems(
  d: Details,
  ships: boolean,
  pays: boolean,
  countries: Country[] = [],
  phone = false,
): Partial<Record<Field, string>> {
  const p: Partial<Record<Field, string>> = {};
  if (!d.email.trim()) p.email = m.REQUIRED;
  else if (!isEmail(d.email.trim())) p.email = m.EMAIL_INVALID;
  if (ships) for (const f of ADDRESS) if (!d[f].trim()) p[f] = m.REQUIRED;
  if (ships && !d.region.trim() && regionsOf(countries, d.country).length > 0) p.region = m.REQUIRED;
  if (ships && phone && !d.phone.trim()) p.phone = m.REQUIRED;
  if (d.recipientEmail.trim() && !isEmail(d.recipientEmail.trim())) p.recipientEmail = m.EMAIL_INVALID;
  if (pays && d.method === "card") {
    if (!d.cardNumber.trim()) p.cardNumber = m.REQUIRED;
    if (!d.cardExpiry.trim()) p.cardExpiry = m.REQUIRED;
    else if (!parseExpiry(d.cardExpiry)) p.cardExpiry = EXPIRY_FORMAT;
    if (!d.cardCvc.trim()) p.cardCvc = m.REQUIRED;
  }
  return p;
}

/** The checkout call's body. */
export function checkoutBody(
  d: Details,
  cart: FullCart,
  opts: { token?: string | null; gift: AppliedGiftCard | null },
): Schemas["CheckoutBody"] {
  const body: Schemas["CheckoutBody"] = {
    email: d.email.trim(),
    expectedGrandTotalCents: cart.grandTotalCents,
  };
  if (opts.token) body.cartToken = opts.token;
  if (cart.requiresShipping) {
    body.shippingAddress = {
      firstName: d.firstName.trim(),
      lastName: d.lastName.trim(),
      line1: d.line1.trim(),
      line2: d.line2.trim() || undefined,
      city: d.city.trim(),
      region: d.region.trim() || undefined,
      postalCode: d.postalCode.trim(),
      country: d.country.trim().toUpperCase(),
    };
    if (d.phone.trim()) body.shippingAddress.phone = d.phone.trim();
    if (cart.selectedShippingOption) body.shippingOptionId = cart.selectedShippingOption.id;
  }
  if (opts.gift) body.giftCardCode = opts.gift.code;
  if (cart.checkout.orderNotesLabel && d.orderNotes.trim()) body.orderNotes = d.orderNotes.trim();
  if (d.recipientEmail.trim() && cart.entries.some((e) => e.productType === 4)) {
    body.giftCardRecipient = { email: d.recipientEmail.trim(), message: d.recipientMessage.trim() || undefined };
  }
  if (amountDue(cart, opts.gift) > 0) {
    if (d.method === "manual") body.payment = { method: "manual" };
    else {
      const exp = parseExpiry(d.cardExpiry);
      // An expiry that does not parse is left out (the local check stops it first; the
      // server would name the field).
      body.payment = {
        method: "card",
        card: { number: d.cardNumber.replace(/\s/g, ""), expMonth: exp?.month, expYear: exp?.year, cvc: d.cardCvc.trim() } as Schemas["CheckoutCard"],
      };
    }
  }
  return body;
}

/** Where a server field problem shows (`shippingAddress.line1` → line1). */
export function fieldOf(key: string): Field | null {
  const address = /^shippingAddress\.(\w+)$/.exec(key);
  if (address) return address[1] in EMPTY_DETAILS ? (address[1] as Field) : null;
  const known: Record<string, Field> = {
    email: "email",
    shippingAddress: "line1",
    "card.number": "cardNumber",
    "card.expMonth": "cardExpiry",
    "card.expYear": "cardExpiry",
    "card.cvc": "cardCvc",
    "payment.card": "cardNumber",
    payment: "payment",
    giftCardCode: "giftCard",
    shippingOptionId: "shippingOption",
    orderNotes: "orderNotes",
    "giftCardRecipient.email": "recipientEmail",
    "giftCardRecipient.message": "recipientMessage",
  };
  return known[key] ?? null;
}
