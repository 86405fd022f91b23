// The template's cart widget (SPEC.md §2, §4 "Cart display"): the theme's cart link
// (`.sqs-custom-cart`), its count (`.sqs-cart-quantity`) and subtotal (`.sqs-cart-subtotal`).
// It is uninitialised until the first sync with the cart; then the count and subtotal
// follow the cart, the empty-cart marker (`sqs-cart-empty`) is on with zero items and off
// with one or more, and the link says the count in words to screen readers ("More than 100
// items in cart") from hidden text, the visible digits being hidden from them instead. (An
// aria-label would hide the link's visible text from its name, which voice control users
// say to follow it.)

import { onCart } from "../../shared/cart";
import { countLabel, countText } from "../../shared/count";
import { formatMoney } from "../../shared/money";
import { type CartSummary, pageData } from "../../shared/page";

export function sync(cart: CartSummary | null, root: ParentNode = document) {
  const total = cart?.totalQuantity ?? 0;
  for (const n of root.querySelectorAll<HTMLElement>(".sqs-cart-quantity")) {
    n.textContent = countText(total);
  }
  const { currency, locale } = pageData();
  for (const n of root.querySelectorAll<HTMLElement>(".sqs-cart-subtotal")) {
    n.textContent = total > 0 && cart ? formatMoney(cart.subtotalCents, cart.currency || currency, locale) : "";
  }
  for (const w of root.querySelectorAll<HTMLElement>(".sqs-custom-cart")) {
    w.classList.add("cart-initialized");
    w.classList.remove("cart-uninitialized");
    w.classList.toggle("sqs-cart-empty", total === 0);
    let spoken = w.querySelector<HTMLElement>(":scope > .tessera-cart-label");
    if (!spoken) {
      spoken = document.createElement("span");
      spoken.className = "tessera-sr-only tessera-cart-label";
      w.appendChild(spoken);
      for (const n of w.querySelectorAll(".sqs-cart-quantity")) n.setAttribute("aria-hidden", "true");
    }
    spoken.textContent = countLabel(total);
  }
}

export function mount(root: ParentNode = document) {
  onCart((cart) => sync(cart, root));
}
