// How the cart's item count reads (SPEC.md §2, §9): capped at "100+", and spoken as
// "More than 100 items in cart" above that.

import * as m from "./messages";

export function countText(n: number): string {
  return n > 100 ? m.CART_CAP : String(n);
}

export function countLabel(n: number): string {
  if (n > 100) return m.MORE_THAN_100;
  return n === 1 ? "1 item in cart" : `${n} items in cart`;
}
