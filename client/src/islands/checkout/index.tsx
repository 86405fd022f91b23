// Checkout (`#sqs-checkout-root`, page type 201): contact, the shipping address and option
// (skipped when nothing ships), coupon, gift card, payment (the test card in test mode, the
// store's pay-later method), the order summary, then the order: the buyer lands on its
// confirmation page. With `data-cart-token` it checks out a purchase's own cart: a
// subscription (subscription checkout) or a gift card in its denomination (the gift-card
// page). The server checks everything again; its field problems show at their fields.

import { useRef, useState } from "react";
import { render } from "react-dom";
import { ApiError, call, failureText } from "../../shared/api";
import { fetchCart, setLocation, setShippingOption } from "../../shared/cart-api";
import { Coupons, fieldProblem } from "../../shared/coupons";
import * as m from "../../shared/messages";
import { formatMoney } from "../../shared/money";
import { pageData } from "../../shared/page";
import { Totals } from "../../shared/totals";
import type { FullCart, Schemas } from "../../shared/types";
import {
  type AppliedGiftCard,
  type Country,
  type Details,
  EMPTY_DETAILS,
  type Field,
  amountDue,
  checkoutBody,
  fieldOf,
  GIFT_MESSAGE_MAX,
  ORDER_NOTES_MAX,
  localProblems,
  regionsOf,
} from "./model";

export const PLACE_ORDER = "Place Order";
export const PLACING_ORDER = "Placing Order…";
export const EMPTY = "You have nothing in your shopping cart.";
export const TEST_MODE = "Test mode: pay with the card 4242 4242 4242 4242, any future expiry date and any security code.";
export const NOTHING_TO_PAY = "Nothing to pay: your gift card covers this order.";
export const NO_SHIPPING = "We do not ship to this address.";
export const RECIPIENT_NOTE = "Leave the email empty to get the code yourself; a recipient gets their own email with the code and your message.";

/** Where the browser goes next (tests replace it). */
export const navigate = { to: (url: string) => window.location.assign(url) };

type Problems = Partial<Record<Field, string>>;

/** A country's name in the page's language, else the list's English name. */
function countryName(code: string, locale: string, fallback: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: "region" }).of(code) ?? fallback;
  } catch {
    return fallback;
  }
}

function Input(props: {
  field: keyof Details;
  label: string;
  details: Details;
  problems: Problems;
  set: (f: keyof Details, v: string) => void;
  autoComplete?: string;
  optional?: boolean;
  inputMode?: "numeric" | "email" | "text" | "tel";
  onBlur?: () => void;
  type?: "text" | "email" | "tel";
  maxLength?: number;
}) {
  const { field, label, details, problems, set } = props;
  const id = `checkout-${field}`;
  const problem = problems[field];
  const attrs = {
    id,
    name: field,
    autoComplete: props.autoComplete,
    inputMode: props.inputMode,
    required: !props.optional,
    value: details[field],
    "aria-invalid": problem ? ("true" as const) : undefined,
    "aria-describedby": problem ? `${id}-problem` : undefined,
    onInput: (e: Event) => set(field, (e.target as HTMLInputElement).value),
    onBlur: props.onBlur,
    maxLength: props.maxLength,
  };
  return (
    <div class={`tessera-field${props.optional ? "" : " required"}`}>
      <label for={id}>
        {label}
        {props.optional && <span class="tessera-optional"> (optional)</span>}
      </label>
      {props.type === "email" ? <input type="email" {...attrs} /> : props.type === "tel" ? <input type="tel" {...attrs} /> : <input type="text" {...attrs} />}
      {problem && (
        <p id={`${id}-problem`} class="tessera-error">
          {problem}
        </p>
      )}
    </div>
  );
}

/** An optional text area with its label (order notes, a gift card's message). */
function TextArea(props: {
  field: keyof Details;
  label: string;
  maxLength: number;
  details: Details;
  problems: Problems;
  set: (f: keyof Details, v: string) => void;
}) {
  const { field, details, problems, set } = props;
  const id = `checkout-${field}`;
  const problem = problems[field];
  return (
    <div class="tessera-field">
      <label for={id}>
        {props.label}
        <span class="tessera-optional"> (optional)</span>
      </label>
      <textarea
        id={id}
        name={field}
        rows={3}
        maxLength={props.maxLength}
        value={details[field]}
        aria-invalid={problem ? "true" : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        onInput={(e) => set(field, (e.target as HTMLTextAreaElement).value)}
      />
      {problem && (
        <p id={`${id}-problem`} class="tessera-error">
          {problem}
        </p>
      )}
    </div>
  );
}

export function Checkout(props: { initial: FullCart; token?: string | null; kind?: string | null; everyCountry?: Country[] | null }) {
  const { token, kind } = props;
  const { locale } = pageData();
  const [cart, setCartState] = useState(props.initial);
  const [details, setDetails] = useState<Details>(() => ({
    ...EMPTY_DETAILS,
    country: props.initial.shippingLocation?.country ?? (props.initial.checkout.countries?.length === 1 ? props.initial.checkout.countries[0].code : ""),
    region: props.initial.shippingLocation?.region ?? "",
  }));
  const [problems, setProblems] = useState<Problems>({});
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [gift, setGift] = useState<AppliedGiftCard | null>(null);
  const [giftCode, setGiftCode] = useState("");
  const placed = useRef(false);
  // A store that ships anywhere: every country, from the shared list (read by `mount`).
  const everyCountry = props.everyCountry ?? null;
  const money = (c: number) => formatMoney(c, cart.currency, locale);
  // Editing a field takes its problem away: it is checked again on the next Place Order.
  const set = (f: keyof Details, v: string) => {
    setDetails((d) => ({ ...d, [f]: v }));
    setProblems((p) => (p[f] ? { ...p, [f]: undefined } : p));
  };
  const due = amountDue(cart, gift);
  const terms = cart.checkout;

  // Cart changes (where it ships, the shipping option) can be in flight at once, and their
  // answers can come back out of order: only the latest one's cart is shown, so the total
  // the order is placed against is the one for what the visitor chose last.
  const latest = useRef(0);
  const changeCart = async (send: () => Promise<FullCart>): Promise<boolean> => {
    const n = ++latest.current;
    let next: FullCart;
    try {
      next = await send();
    } catch (e) {
      if (n !== latest.current) return false;
      throw e;
    }
    if (n !== latest.current) return false;
    setCartState(next);
    return true;
  };

  const locate = async (next: Details = details) => {
    if (!cart.requiresShipping || !next.country.trim()) return;
    const loc = { country: next.country.trim().toUpperCase(), region: next.region.trim() || null, postalCode: next.postalCode.trim() || null };
    const had = cart.shippingLocation;
    if (had && had.country === loc.country && (had.region ?? null) === loc.region && (had.postalCode ?? null) === loc.postalCode) return;
    try {
      if (await changeCart(() => setLocation(loc, token))) setProblems((p) => ({ ...p, country: undefined }));
    } catch (e) {
      if (e instanceof ApiError && e.errors.region) setProblems((p) => ({ ...p, region: e.errors.region }));
      else setProblems((p) => ({ ...p, country: fieldProblem(e, "country") }));
    }
  };

  const chooseOption = async (id: string) => {
    try {
      if (await changeCart(() => setShippingOption(id, token))) setProblems((p) => ({ ...p, shippingOption: undefined }));
    } catch (e) {
      setProblems((p) => ({ ...p, shippingOption: fieldProblem(e, "id") }));
    }
  };

  const applyGift = async (e: Event) => {
    e.preventDefault();
    if (!giftCode.trim()) return;
    try {
      const r = await call<Schemas["GiftCardBalance"]>("POST", "/api/commerce/gift-cards/balance", { code: giftCode.trim() });
      setGift({ code: r.giftCard.code, balanceCents: r.giftCard.balanceCents });
      setGiftCode("");
      setProblems((p) => ({ ...p, giftCard: undefined }));
    } catch (err) {
      setProblems((p) => ({ ...p, giftCard: fieldProblem(err, "code") }));
    }
  };

  const place = async (e: Event) => {
    e.preventDefault();
    if (busy || placed.current) return;
    const found = localProblems(details, cart.requiresShipping, due > 0, terms.countries ?? everyCountry ?? [], terms.requireShippingPhone);
    setProblems(found);
    if (Object.keys(found).length > 0) {
      setMessage(m.FORM_INVALID);
      focusFirstProblem();
      return;
    }
    setMessage("");
    setBusy(true);
    try {
      const r = await call<Schemas["Placed"]>("POST", "/api/commerce/checkout", checkoutBody(details, cart, { token, gift }));
      placed.current = true;
      navigate.to(r.confirmationUrl);
    } catch (err) {
      setBusy(false);
      const server: Problems = {};
      let unplaced = "";
      if (err instanceof ApiError) {
        for (const [key, text] of Object.entries(err.errors)) {
          const f = fieldOf(key);
          if (f) server[f] = text;
          else unplaced = text;
        }
        if (err.status === 409 && err.body.grandTotalCents !== undefined) {
          // The total moved (a price, a coupon's dates): show the new one to agree to.
          changeCart(() => fetchCart(token)).catch(() => {});
        }
        if (err.status === 402) server.payment = err.message;
      }
      setProblems(server);
      // A problem with no field of its own shows above the button; otherwise the call's
      // message ("One or more fields is invalid…"), unless a field already says it (a
      // declined card shows at the payment fields, once).
      const text = unplaced || failureText(err);
      setMessage(Object.values(server).includes(text) ? "" : text);
      focusFirstProblem();
    }
  };

  if (cart.entries.length === 0) return <p class="cart-empty">{EMPTY}</p>;
  const blocked = cart.checkoutMessage;
  const countries = terms.countries ?? everyCountry ?? [];
  const regions = regionsOf(countries, details.country);
  const gifts = cart.entries.some((e) => e.productType === 4);
  return (
    <div class="tessera-checkout">
      <form class="tessera-checkout-form" onSubmit={place} noValidate aria-busy={busy ? "true" : undefined}>
        {kind === "gift-card" && (
          <section aria-labelledby="checkout-gift-card-heading">
            <h2 id="checkout-gift-card-heading">Gift card</h2>
            <p class="tessera-gift-card-choice">
              {cart.entries[0].title}
              {cart.entries[0].variantDescription && `, ${cart.entries[0].variantDescription}`}: {money(cart.entries[0].subTotal)}
            </p>
            <p class="tessera-note">The gift card's code is on your order confirmation and in its email.</p>
          </section>
        )}
        <section aria-labelledby="checkout-contact-heading">
          <h2 id="checkout-contact-heading">Contact</h2>
          <Input field="email" label="Email" type="email" inputMode="email" autoComplete="email" details={details} problems={problems} set={set} />
        </section>
        {gifts && (
          <section aria-labelledby="checkout-recipient-heading">
            <h2 id="checkout-recipient-heading">Who is it for?</h2>
            <p class="tessera-note">{RECIPIENT_NOTE}</p>
            <Input field="recipientEmail" label="Recipient's email" type="email" inputMode="email" optional autoComplete="off" details={details} problems={problems} set={set} />
            <TextArea field="recipientMessage" label="Message" maxLength={GIFT_MESSAGE_MAX} details={details} problems={problems} set={set} />
          </section>
        )}
        {cart.requiresShipping && (
          <section aria-labelledby="checkout-shipping-heading">
            <h2 id="checkout-shipping-heading">Shipping address</h2>
            <div class="tessera-row">
              <Input field="firstName" label="First name" autoComplete="given-name" details={details} problems={problems} set={set} />
              <Input field="lastName" label="Last name" autoComplete="family-name" details={details} problems={problems} set={set} />
            </div>
            <Input field="line1" label="Address" autoComplete="address-line1" details={details} problems={problems} set={set} />
            <Input field="line2" label="Apartment, suite" optional autoComplete="address-line2" details={details} problems={problems} set={set} />
            <div class="tessera-row">
              <Input field="city" label="City" autoComplete="address-level2" details={details} problems={problems} set={set} />
              <Input field="postalCode" label="Postal code" autoComplete="postal-code" details={details} problems={problems} set={set} onBlur={() => locate()} />
            </div>
            <div class="tessera-row">
              <div class="tessera-field required">
                <label for="checkout-country">Country</label>
                <select
                  id="checkout-country"
                  name="country"
                  autoComplete="country"
                  required
                  value={details.country}
                  aria-invalid={problems.country ? "true" : undefined}
                  aria-describedby={problems.country ? "checkout-country-problem" : undefined}
                  onChange={(e) => {
                    const country = (e.target as HTMLSelectElement).value;
                    // A region belongs to its country: another country starts without one.
                    const next = { ...details, country, region: "" };
                    setDetails(next);
                    setProblems((p) => ({ ...p, country: undefined, region: undefined }));
                    locate(next);
                  }}
                >
                  <option value="">Select country</option>
                  {countries.map((c) => (
                    <option key={c.code} value={c.code}>
                      {countryName(c.code, locale, c.name)}
                    </option>
                  ))}
                </select>
                {problems.country && (
                  <p id="checkout-country-problem" class="tessera-error">
                    {problems.country}
                  </p>
                )}
              </div>
              {regions.length > 0 && (
                <div class="tessera-field required">
                  <label for="checkout-region">State or region</label>
                  <select
                    id="checkout-region"
                    name="region"
                    autoComplete="address-level1"
                    required
                    value={details.region}
                    aria-invalid={problems.region ? "true" : undefined}
                    aria-describedby={problems.region ? "checkout-region-problem" : undefined}
                    onChange={(e) => {
                      const next = { ...details, region: (e.target as HTMLSelectElement).value };
                      setDetails(next);
                      setProblems((p) => ({ ...p, region: undefined }));
                      locate(next);
                    }}
                  >
                    <option value="">Select state or region</option>
                    {regions.map((r) => (
                      <option key={r.code} value={r.code}>
                        {r.name}
                      </option>
                    ))}
                  </select>
                  {problems.region && (
                    <p id="checkout-region-problem" class="tessera-error">
                      {problems.region}
                    </p>
                  )}
                </div>
              )}
            </div>
            {terms.requireShippingPhone && (
              <Input field="phone" label="Phone" type="tel" inputMode="tel" autoComplete="tel" details={details} problems={problems} set={set} />
            )}
            {cart.shippingLocation && (
              <fieldset class="tessera-shipping-options" aria-describedby={problems.shippingOption ? "checkout-option-problem" : undefined}>
                <legend>Shipping method</legend>
                {cart.shippingUnavailable || cart.shippingOptions.length === 0 ? (
                  <p class="tessera-error" role="status">
                    {NO_SHIPPING}
                  </p>
                ) : (
                  cart.shippingOptions.map((o) => (
                    <label key={o.id} class="tessera-choice">
                      <input
                        type="radio"
                        name="shippingOption"
                        value={o.id}
                        checked={cart.selectedShippingOption?.id === o.id}
                        onChange={() => chooseOption(o.id)}
                      />{" "}
                      {o.name} — {money(o.costCents)}
                    </label>
                  ))
                )}
                {problems.shippingOption && (
                  <p id="checkout-option-problem" class="tessera-error">
                    {problems.shippingOption}
                  </p>
                )}
              </fieldset>
            )}
          </section>
        )}
        {terms.orderNotesLabel && (
          <section class="tessera-order-notes">
            <TextArea field="orderNotes" label={terms.orderNotesLabel} maxLength={ORDER_NOTES_MAX} details={details} problems={problems} set={set} />
          </section>
        )}
        <section aria-labelledby="checkout-payment-heading">
          <h2 id="checkout-payment-heading">Payment</h2>
          <div class="tessera-field">
            <label for="checkout-gift-card">Gift card code</label>
            <div class="tessera-inline">
              <input
                id="checkout-gift-card"
                name="giftCard"
                autoComplete="off"
                value={giftCode}
                aria-invalid={problems.giftCard ? "true" : undefined}
                aria-describedby={problems.giftCard ? "checkout-gift-card-problem" : undefined}
                onInput={(e) => setGiftCode((e.target as HTMLInputElement).value)}
                onKeyDown={(e) => e.key === "Enter" && applyGift(e)}
              />
              <button type="button" class="tessera-button tessera-button-secondary tessera-gift-card-apply" onClick={applyGift}>
                Apply
              </button>
            </div>
            {problems.giftCard && (
              <p id="checkout-gift-card-problem" class="tessera-error" role="alert">
                {problems.giftCard}
              </p>
            )}
            {gift && (
              <p class="tessera-gift-card-applied">
                Gift card ending {gift.code.slice(-4)}: {money(gift.balanceCents)} available.{" "}
                <button type="button" class="tessera-link-button" onClick={() => setGift(null)}>
                  Remove gift card
                </button>
              </p>
            )}
          </div>
          {due === 0 ? (
            <p class="tessera-note">{NOTHING_TO_PAY}</p>
          ) : (
            <>
              {terms.manualPayment && (
                <fieldset class="tessera-payment-methods">
                  <legend>How to pay</legend>
                  <label class="tessera-choice">
                    <input type="radio" name="method" value="card" checked={details.method === "card"} onChange={() => set("method", "card")} /> Card
                  </label>
                  <label class="tessera-choice">
                    <input type="radio" name="method" value="manual" checked={details.method === "manual"} onChange={() => set("method", "manual")} />{" "}
                    {terms.manualPayment.label}
                  </label>
                </fieldset>
              )}
              {details.method === "card" ? (
                <div class="tessera-card">
                  {terms.testMode && <p class="tessera-note">{TEST_MODE}</p>}
                  <Input field="cardNumber" label="Card number" inputMode="numeric" autoComplete="cc-number" details={details} problems={problems} set={set} />
                  <div class="tessera-row">
                    <Input field="cardExpiry" label="Expiry (MM / YY)" inputMode="numeric" autoComplete="cc-exp" details={details} problems={problems} set={set} />
                    <Input field="cardCvc" label="Security code" inputMode="numeric" autoComplete="cc-csc" details={details} problems={problems} set={set} />
                  </div>
                </div>
              ) : (
                <p class="tessera-note">{terms.manualPayment?.instructions}</p>
              )}
              {problems.payment && (
                <p class="tessera-error tessera-payment-problem">
                  {problems.payment}
                </p>
              )}
            </>
          )}
        </section>
        {message && (
          <p class="tessera-error tessera-form-message" role="alert">
            {message}
          </p>
        )}
        {blocked && (
          <p class="cart-minimum tessera-error" role="status">
            {blocked}
          </p>
        )}
        <button type="submit" class="tessera-button tessera-place-order" aria-disabled={busy || blocked ? "true" : undefined}>
          {busy ? PLACING_ORDER : PLACE_ORDER}
        </button>
      </form>
      <aside class="tessera-order-summary" aria-labelledby="checkout-summary-heading">
        <h2 id="checkout-summary-heading">Order summary</h2>
        <ul class="tessera-summary-entries">
          {cart.entries.map((e) => (
            <li key={e.id}>
              <span class="tessera-summary-title">
                {e.title}
                {e.variantDescription && <span class="tessera-summary-variant"> ({e.variantDescription})</span>} × {e.quantity}
              </span>{" "}
              <span class="tessera-summary-price">{money(e.subTotal)}</span>
            </li>
          ))}
        </ul>
        <Coupons cart={cart} locale={locale} token={token} onCart={setCartState} />
        <Totals cart={cart} locale={locale} shipping giftCardCents={gift?.balanceCents ?? 0} totalLabel="Total to pay" />
      </aside>
    </div>
  );
}

function focusFirstProblem() {
  requestAnimationFrame(() => {
    document.querySelector<HTMLElement>(".tessera-checkout [aria-invalid='true'], .tessera-checkout .tessera-form-message")?.focus?.();
  });
}

export async function mount() {
  const root = document.getElementById("sqs-checkout-root");
  if (!root || root.dataset.tesseraMounted) return;
  root.dataset.tesseraMounted = "1";
  const token = root.dataset.cartToken || null;
  const kind = root.dataset.checkoutKind || null;
  let cart: FullCart;
  try {
    cart = await fetchCart(token);
  } catch (e) {
    root.textContent = "";
    render(<p class="tessera-error" role="alert">{failureText(e)}</p>, root);
    return;
  }
  // A cart that ships from a store that ships anywhere: every country, from the shared list.
  let every: Country[] | null = null;
  if (cart.requiresShipping && !cart.checkout.countries) {
    every = await call<Schemas["Countries"]>("GET", "/api/commerce/countries").then(
      (r) => r.countries,
      () => null,
    );
  }
  root.textContent = "";
  render(<Checkout initial={cart} token={token} kind={kind} everyCountry={every} />, root);
}
