// The cart calls the cart page and checkout make. `token` names a purchase's own cart
// (subscription checkout, the gift-card page) instead of the visitor's shopping cart; every
// change answers with the whole cart, which is shared with the pill and widget.

import { call } from "./api";
import { setCart } from "./cart";
import type { FullCart, Location, Schemas } from "./types";

const CART = "/api/commerce/shopping-cart";

export function withToken(path: string, token?: string | null): string {
  return token ? `${path}${path.includes("?") ? "&" : "?"}cartToken=${encodeURIComponent(token)}` : path;
}

/** Shares a changed cart (a token cart is not the visitor's cart: the pill does not follow it). */
function changed(cart: FullCart, token?: string | null): FullCart {
  if (!token) setCart(cart);
  return cart;
}

async function change(method: string, path: string, body: unknown, token?: string | null): Promise<FullCart> {
  const r = await call<Schemas["CartChanged"]>(method, withToken(path, token), body);
  return changed(r.shoppingCart, token);
}

export async function fetchCart(token?: string | null): Promise<FullCart> {
  const cart = await call<FullCart>("GET", withToken(CART, token));
  return changed(cart, token);
}

export const setQuantity = (entryId: string, quantity: number) =>
  change("PUT", `${CART}/entries/${encodeURIComponent(entryId)}`, { quantity });

export const removeEntry = (entryId: string) =>
  change("DELETE", `${CART}/entries/${encodeURIComponent(entryId)}`, undefined);

export const setFields = (entryId: string, itemId: string, sku: string, fields: Record<string, unknown>) =>
  change("PUT", `${CART}/entries/${encodeURIComponent(entryId)}/additionalFields`, {
    itemId,
    sku,
    additionalFields: JSON.stringify(fields),
  });

export const addCoupon = (code: string, token?: string | null) => change("POST", `${CART}/coupons`, { code }, token);

export const removeCoupon = (code: string, token?: string | null) =>
  change("DELETE", `${CART}/coupons/${encodeURIComponent(code)}`, undefined, token);

export const setLocation = (location: Location, token?: string | null) =>
  change("PUT", `${CART}/shipping-location`, location, token);

export const setShippingOption = (id: string, token?: string | null) =>
  change("PUT", `${CART}/shipping-option`, { id }, token);
