// The visitor's cart as the islands share it: the page's summary to start with, the whole
// cart after any call that returns one. The cart pill, the template's cart widget and the
// cart page all follow it. (Islands are separate bundles; this module is one shared chunk,
// so they see the same state.)

import { type CartSummary, pageData } from "./page";
import type { FullCart } from "./types";

/** The whole cart, as the cart routes answer it. */
export type Cart = FullCart;

type Listener = (cart: CartSummary | null) => void;

let current: CartSummary | Cart | null | undefined;
const listeners = new Set<Listener>();

export function cart(): CartSummary | Cart | null {
  if (current === undefined) current = pageData().cart;
  return current;
}

export function setCart(next: Cart | CartSummary | null) {
  current = next;
  for (const l of listeners) l(next);
  window.dispatchEvent(new CustomEvent("tessera:cart", { detail: next }));
}

/** Calls `listener` now and on every change; returns the unsubscribe. */
export function onCart(listener: Listener): () => void {
  listeners.add(listener);
  listener(cart());
  return () => listeners.delete(listener);
}

/** For tests: forget the state. */
export function resetCart() {
  current = undefined;
  listeners.clear();
}
