// The quantity input's rule (SPEC.md §5): a whole number from 1 to 9999; anything else is
// refused with its message (SPEC's for not a number and not whole, ours for out of range).

import { quoted } from "./dom";
import * as m from "./messages";

export type QuantityCheck = { ok: true; quantity: number } | { ok: false; message: string };

export function checkQuantity(text: string): QuantityCheck {
  const t = text.trim();
  if (t === "" || !Number.isFinite(Number(t))) return { ok: false, message: m.QUANTITY_NOT_NUMBER };
  const n = Number(t);
  if (!Number.isInteger(n)) return { ok: false, message: m.QUANTITY_NOT_WHOLE };
  // Out of range is refused, not moved into it: 0 must not add one.
  if (n < m.QUANTITY_MIN || n > m.QUANTITY_MAX) return { ok: false, message: m.QUANTITY_RANGE };
  return { ok: true, quantity: n };
}

/** The quantity input of a product on the page, if it shows one. */
export function quantityInput(itemId: string): HTMLInputElement | null {
  return document.querySelector<HTMLInputElement>(
    `.product-quantity-input[data-item-id=${quoted(itemId)}] input`,
  );
}
