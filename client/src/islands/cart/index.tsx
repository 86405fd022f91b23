// The full-page cart (`#sqs-cart-root` on /cart, SPEC.md §2, §8 "Cart UI"): each entry with
// its image, variant and additional fields, a quantity to change and a remove button; coupon
// entry; the totals; the minimum-subtotal message, which holds the checkout button back. The
// server's page lists the cart already (and works without JavaScript); this replaces it
// with the live cart once it has loaded.

import { useLayoutEffect, useRef, useState } from "react";
import { render } from "react-dom";
import { failureText } from "../../shared/api";
import { fetchCart, removeEntry, setQuantity } from "../../shared/cart-api";
import { Coupons } from "../../shared/coupons";
import * as m from "../../shared/messages";
import { alertModal } from "../../shared/modal";
import { formatMoney } from "../../shared/money";
import { pageData } from "../../shared/page";
import { checkQuantity } from "../../shared/quantity";
import { Totals } from "../../shared/totals";
import type { Entry, FullCart } from "../../shared/types";
import { FieldsSummary } from "./fields";

export const EMPTY = "You have nothing in your shopping cart.";
export const CHECKOUT = "Checkout";
export const LATER = "Shipping and taxes are worked out at checkout.";

function EntryRow(props: { entry: Entry; cart: FullCart; locale: string; onCart: (c: FullCart) => void }) {
  const { entry, cart, locale, onCart } = props;
  const [quantity, setShown] = useState(String(entry.quantity));
  const [busy, setBusy] = useState(false);
  const qid = `tessera-qty-${entry.id}`;
  const update = async (typed: string) => {
    if (busy || typed === String(entry.quantity)) return;
    const q = checkQuantity(typed);
    if (!q.ok) {
      setShown(String(entry.quantity));
      await alertModal(m.UNABLE_TO_UPDATE_QUANTITY, q.message);
      return;
    }
    setBusy(true);
    try {
      onCart(await setQuantity(entry.id, q.quantity));
      setShown(String(q.quantity));
    } catch (e) {
      setShown(String(entry.quantity));
      await alertModal(m.UNABLE_TO_UPDATE_QUANTITY, failureText(e));
    } finally {
      setBusy(false);
    }
  };
  // The browser's own change event (on blur, Enter or the stepper), not preact/compat's
  // onChange, which fires on every keystroke.
  const input = useRef<HTMLInputElement>(null);
  const latest = useRef(update);
  latest.current = update;
  useLayoutEffect(() => {
    const el = input.current;
    const onChange = () => el && latest.current(el.value);
    el?.addEventListener("change", onChange);
    return () => el?.removeEventListener("change", onChange);
  }, []);
  const remove = async () => {
    setBusy(true);
    try {
      onCart(await removeEntry(entry.id));
    } catch (e) {
      setBusy(false);
      await alertModal(m.UNABLE_TO_REMOVE, failureText(e));
    }
  };
  const title = entry.url ? <a href={entry.url}>{entry.title}</a> : entry.title;
  return (
    <li class="tessera-cart-entry" data-entry-id={entry.id} aria-busy={busy ? "true" : undefined}>
      {entry.imageUrl ? (
        <img class="tessera-cart-entry-image" src={entry.imageUrl} alt="" width={80} height={80} loading="lazy" />
      ) : (
        <span class="tessera-cart-entry-image" />
      )}
      <div class="tessera-cart-entry-details">
        <p class="tessera-cart-entry-title">{title}</p>
        {entry.variantDescription && <p class="tessera-cart-entry-variant">{entry.variantDescription}</p>}
        <FieldsSummary entry={entry} onCart={onCart} />
        <p class="tessera-cart-entry-price">{formatMoney(entry.subTotal, cart.currency, locale)}</p>
      </div>
      <div class="tessera-cart-entry-actions">
        <label for={qid}>{m.QUANTITY}</label>
        <input
          ref={input}
          id={qid}
          type="number"
          class="tessera-quantity"
          min={m.QUANTITY_MIN}
          max={m.QUANTITY_MAX}
          step={1}
          value={quantity}
          disabled={busy}
          onInput={(e) => setShown((e.target as HTMLInputElement).value)}
        />
        <button type="button" class="tessera-link-button" aria-label={`Remove ${entry.title}`} disabled={busy} onClick={remove}>
          Remove
        </button>
      </div>
    </li>
  );
}

export function CartPage({ initial }: { initial: FullCart }) {
  const [cart, setLocal] = useState(initial);
  const { locale } = pageData();
  if (cart.entries.length === 0) return <p class="cart-empty">{EMPTY}</p>;
  const blocked = cart.checkoutMessage;
  return (
    <div class="tessera-cart">
      <ul class="tessera-cart-entries">
        {cart.entries.map((e) => (
          <EntryRow key={`${e.id}:${e.quantity}`} entry={e} cart={cart} locale={locale} onCart={setLocal} />
        ))}
      </ul>
      <Coupons cart={cart} locale={locale} onCart={setLocal} />
      <Totals cart={cart} locale={locale} />
      <p class="tessera-note">{LATER}</p>
      {blocked && (
        <p class="cart-minimum tessera-error" role="status">
          {blocked}
        </p>
      )}
      {blocked ? (
        <button type="button" class="tessera-button cart-checkout-button" disabled>
          {CHECKOUT}
        </button>
      ) : (
        <a class="tessera-button cart-checkout-button" href="/checkout">
          {CHECKOUT}
        </a>
      )}
    </div>
  );
}

export async function mount() {
  const root = document.getElementById("sqs-cart-root");
  if (!root || root.dataset.tesseraMounted) return;
  root.dataset.tesseraMounted = "1";
  let cart: FullCart;
  try {
    cart = await fetchCart();
  } catch {
    // The server's list stays; it reads correctly without this island.
    return;
  }
  root.textContent = "";
  render(<CartPage initial={cart} />, root);
}
