// A cart's totals, as the cart page and checkout show them.

import { formatMoney } from "./money";
import type { FullCart } from "./types";

/** What shipping costs before the buyer has said where it goes. */
export const SHIPPING_LATER = "Calculated from your address";

export function Totals(props: {
  cart: FullCart;
  locale: string;
  /** Show shipping (checkout, once there is something to ship). */
  shipping?: boolean;
  /** What a gift card covers, taken off the total. */
  giftCardCents?: number;
  /** The label of the last line. */
  totalLabel?: string;
}) {
  const { cart, locale, shipping = false, giftCardCents = 0, totalLabel = "Total" } = props;
  const money = (cents: number) => formatMoney(cents, cart.currency, locale);
  const due = Math.max(0, cart.grandTotalCents - giftCardCents);
  return (
    <dl class="tessera-totals">
      <div>
        <dt>Subtotal</dt>
        <dd class="tessera-subtotal">{money(cart.subtotalCents)}</dd>
      </div>
      {cart.discountCents > 0 && (
        <div>
          <dt>Discount</dt>
          <dd class="tessera-discount">−{money(cart.discountCents)}</dd>
        </div>
      )}
      {shipping && cart.requiresShipping && (
        <div>
          <dt>Shipping{cart.selectedShippingOption ? ` (${cart.selectedShippingOption.name})` : ""}</dt>
          <dd class="tessera-shipping">{cart.shippingLocation ? money(cart.shippingCostCents) : SHIPPING_LATER}</dd>
        </div>
      )}
      {cart.taxCents > 0 && (
        <div>
          <dt>{cart.pricesIncludeTax ? "Tax (included)" : "Tax"}</dt>
          <dd class="tessera-tax">{money(cart.taxCents)}</dd>
        </div>
      )}
      {giftCardCents > 0 && (
        <div>
          <dt>Gift card</dt>
          <dd class="tessera-gift-card-amount">−{money(Math.min(giftCardCents, cart.grandTotalCents))}</dd>
        </div>
      )}
      <div class="tessera-total-line">
        <dt>{totalLabel}</dt>
        <dd class="tessera-total">{money(shipping ? due : Math.max(0, cart.subtotalCents - cart.discountCents))}</dd>
      </div>
    </dl>
  );
}
