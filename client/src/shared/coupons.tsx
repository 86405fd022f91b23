// Coupon entry, shared by the cart page and checkout: a code field with Apply, the cart's
// coupons with what each takes off (or why it does not apply yet) and a way to remove them.
// The server's message says what is wrong with a code.

import { useState } from "react";
import { ApiError, failureText } from "./api";
import { addCoupon, removeCoupon } from "./cart-api";
import { formatMoney } from "./money";
import type { FullCart } from "./types";

export const COUPON_LABEL = "Coupon code";
export const APPLY = "Apply";

/** What a refused call says about one field (`errors[field]`), else the call's failure. */
export function fieldProblem(e: unknown, field: string): string {
  if (e instanceof ApiError && e.errors[field]) return e.errors[field];
  return failureText(e);
}

let ids = 0;

export function Coupons(props: {
  cart: FullCart;
  locale: string;
  token?: string | null;
  onCart: (c: FullCart) => void;
}) {
  const { cart, locale, token, onCart } = props;
  const [id] = useState(() => `tessera-coupon-${++ids}`);
  const [code, setCode] = useState("");
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const apply = async (e: Event) => {
    e.preventDefault();
    if (!code.trim() || busy) return;
    setBusy(true);
    setProblem("");
    try {
      onCart(await addCoupon(code.trim(), token));
      setCode("");
    } catch (err) {
      setProblem(fieldProblem(err, "code"));
    } finally {
      setBusy(false);
    }
  };
  const remove = async (c: string) => {
    setProblem("");
    try {
      onCart(await removeCoupon(c, token));
    } catch (err) {
      setProblem(failureText(err));
    }
  };
  const valid = new Map(cart.validCoupons.map((v) => [v.code, v]));
  const invalid = new Map(cart.invalidCoupons.map((v) => [v.code, v]));
  return (
    <div class="tessera-coupons">
      <form class="tessera-coupon-form" onSubmit={apply} noValidate>
        <label for={id}>{COUPON_LABEL}</label>
        <div class="tessera-inline">
          <input
            id={id}
            name="coupon"
            autoComplete="off"
            value={code}
            aria-invalid={problem ? "true" : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            onInput={(e) => setCode((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="tessera-button tessera-button-secondary" disabled={busy}>
            {APPLY}
          </button>
        </div>
        {problem && (
          <p id={`${id}-problem`} class="tessera-error" role="alert">
            {problem}
          </p>
        )}
      </form>
      {cart.coupons.length > 0 && (
        <ul class="tessera-coupon-list">
          {cart.coupons.map((c) => {
            const v = valid.get(c);
            const bad = invalid.get(c);
            return (
              <li key={c} class="tessera-coupon">
                <span class="tessera-coupon-code">{c}</span>{" "}
                {v && <span class="tessera-coupon-amount">−{formatMoney(v.discountCents, cart.currency, locale)}</span>}
                {bad && <span class="tessera-coupon-problem">{bad.message}</span>}{" "}
                <button type="button" class="tessera-link-button" aria-label={`Remove coupon ${c}`} onClick={() => remove(c)}>
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
