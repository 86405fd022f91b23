// The quantity input's rule (SPEC.md §5): a whole number from 1 to 9999.

import { quoted } from "./dom";
import * as m from "./messages";

export type QuantityCheck = { ok: true; quantity: number } | { ok: false; message: string };

export function checkQuantity(text: string): QuantityCheck {
  const t = text.trim();
  if (t === "" || !Number.isFinite(Number(t))) return { ok: false, message: m.QUANTITY_NOT_NUMBER };
  const n = Number(t);
  if (!Number.isInteger(n)) return { ok: false, message: m.QUANTITY_NOT_WHOLE };
  return { ok: true, quantity: Math.min(m.QUANTITY_MAX, Math.max(m.QUANTITY_MIN, n)) };
}

/** The quantity input of a product on the page, if it shows one. */
export function quantityInput(itemId: string): HTMLInputElement | null {
  return document.querySelector<HTMLInputElement>(
    `.product-quantity-input[data-item-id=${quoted(itemId)}] input`,
  );
}
