// The floating cart pill (SPEC.md §2, §4): the item count (capped at "100+") and the
// subtotal, linking to /cart. It shows when the cart has items, and never on /cart, with
// express checkout, or where the template has its own cart widget.

import { render } from "react-dom";
import { type Cart, onCart } from "../../shared/cart";
import { countLabel, countText } from "../../shared/count";
import { formatMoney } from "../../shared/money";
import { type CartSummary, pageData } from "../../shared/page";

/** Whether the pill shows for this cart on this page. */
export function shows(cart: CartSummary | null, where: { path: string; express: boolean; customCart: boolean }): boolean {
  if (!cart || cart.totalQuantity <= 0) return false;
  if (where.path === "/cart" || where.path === "/cart/") return false;
  return !where.express && !where.customCart;
}

export function Pill({ cart }: { cart: CartSummary | Cart | null }) {
  const where = {
    path: window.location.pathname,
    express: pageData().expressCheckout,
    customCart: document.querySelector(".sqs-custom-cart") !== null,
  };
  if (!cart || !shows(cart, where)) return null;
  const { locale } = pageData();
  return (
    <a class="tessera-cart-pill" href="/cart">
      <span class="tessera-cart-pill-count" aria-hidden="true">
        {countText(cart.totalQuantity)}
      </span>
      <span class="tessera-sr-only">{countLabel(cart.totalQuantity)}</span>
      <span class="tessera-cart-pill-subtotal">{formatMoney(cart.subtotalCents, cart.currency, locale)}</span>
    </a>
  );
}

export function mount() {
  if (document.querySelector(".tessera-cart-pill-host")) return;
  const host = document.createElement("div");
  host.className = "tessera-cart-pill-host";
  document.body.appendChild(host);
  onCart((cart) => render(<Pill cart={cart} />, host));
}
