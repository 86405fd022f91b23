// The template's cart widget (SPEC.md §2, §4 "Cart display"): the theme's cart link
// (`.sqs-custom-cart`) and its count (`.sqs-cart-quantity`). It is uninitialised until the
// first sync with the cart; then the count follows the cart, the empty-cart marker
// (`sqs-cart-empty`) is on with zero items and off with one or more, and the link is
// labelled with the count.

import { onCart } from "../../shared/cart";
import { countLabel, countText } from "../../shared/count";

export function sync(total: number, root: ParentNode = document) {
  for (const n of root.querySelectorAll<HTMLElement>(".sqs-cart-quantity")) {
    n.textContent = countText(total);
  }
  for (const w of root.querySelectorAll<HTMLElement>(".sqs-custom-cart")) {
    w.classList.add("cart-initialized");
    w.classList.remove("cart-uninitialized");
    w.classList.toggle("sqs-cart-empty", total === 0);
    w.setAttribute("aria-label", countLabel(total));
  }
}

export function mount(root: ParentNode = document) {
  onCart((cart) => sync(cart?.totalQuantity ?? 0, root));
}
