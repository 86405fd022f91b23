// The add-to-cart button (SPEC.md §2, §4): mounts on the page's `.sqs-add-to-cart-button`
// markup. A click checks the product's choices (every option, the quantity), then adds:
// "Adding…", then "Added!" and back. Subscriptions go to subscription checkout with their
// cart token, gift cards to the gift-card page with the chosen denomination (a cart of its
// own, by its token); with express checkout the item goes in the cart and the visitor on to
// checkout. Failures show in an alert titled as SPEC says, and the button is idle again a
// second later. Without JavaScript the server makes the button the submit button of a form
// post (api/src/pages/cart_forms.rs); the island takes its click (and Enter, Space), so the
// form is never sent.

import { quoted } from "../../shared/dom";
import { render } from "react-dom";
import { ApiError, call, failureText } from "../../shared/api";
import { setCart } from "../../shared/cart";
import * as m from "../../shared/messages";
import { alertModal } from "../../shared/modal";
import { pageData } from "../../shared/page";
import { checkQuantity, quantityInput } from "../../shared/quantity";
import type { Schemas } from "../../shared/types";
import { findVariant, missingOptions, optionNames, readVariants, selection } from "../../shared/variants";
import { type ButtonState, ButtonMachine } from "./machine";

const GIFT_CARD = 4;
export const NO_DENOMINATION = "Select a denomination for the Gift Card";

/** What a click asks for, or why it cannot. */
export type Choice = { ok: true; sku: string; quantity: number } | { ok: false; message: string };

/** The product's choices for `itemId`: the chosen variant's sku (empty for a product without
 *  options) and the quantity. */
export function choose(itemId: string, productType: number): Choice {
  let sku = "";
  const variants = document.querySelector(`.product-variants[data-item-id=${quoted(itemId)}]`);
  if (variants) {
    const chosen = selection(variants);
    const missing = missingOptions(optionNames(variants), chosen);
    if (missing.length > 0) {
      return { ok: false, message: productType === GIFT_CARD ? NO_DENOMINATION : m.selectOptions(missing) };
    }
    const v = findVariant(readVariants(variants), chosen);
    if (!v) return { ok: false, message: m.VARIANT_UNAVAILABLE };
    sku = v.sku;
  }
  let quantity = 1;
  const input = quantityInput(itemId);
  if (input) {
    const q = checkQuantity(input.value);
    if (!q.ok) return q;
    quantity = q.quantity;
  }
  return { ok: true, sku, quantity };
}

/** The alert title for a failure (SPEC.md §8). */
export function failureTitle(productType: number, express: boolean): string {
  if (productType === GIFT_CARD) return m.UNABLE_TO_PURCHASE_GIFT_CARD;
  if (express) return m.UNABLE_TO_PURCHASE;
  return m.UNABLE_TO_ADD;
}

/** The idle label: the merchant's, else "Subscribe" or "Add To Cart". */
export function idleLabel(button: HTMLElement): string {
  const original = button.dataset.originalLabel?.trim();
  if (original) return original;
  return button.dataset.isSubscription === "true" ? m.SUBSCRIBE : m.ADD_TO_CART;
}

/** Where the browser goes next (tests replace it). */
export const navigate = { to: (url: string) => window.location.assign(url) };

function Label({ state, idle }: { state: ButtonState; idle: string }) {
  const text = state === "adding" ? m.ADDING : state === "added" ? m.ADDED : idle;
  return <span aria-live="polite">{text}</span>;
}

/** Wires one button: its label follows the state, a click (or Enter or Space) adds. */
function wire(button: HTMLElement) {
  const inner = button.querySelector<HTMLElement>(".sqs-add-to-cart-button-inner") ?? button;
  const idle = idleLabel(button);
  const show = (state: ButtonState) => {
    button.classList.toggle("cart-adding", state === "adding");
    button.classList.toggle("cart-added", state === "added");
    button.setAttribute("aria-busy", String(state === "adding"));
    render(<Label state={state} idle={idle} />, inner);
  };
  inner.textContent = "";
  show("idle");
  const machine = new ButtonMachine(show);
  const itemId = button.dataset.itemId ?? "";
  const productType = Number(button.dataset.productType ?? 1);
  const subscription = button.dataset.isSubscription === "true";
  // Most products have no additional-fields form: its code loads with the first click of
  // one that does.
  const formCode = async () => {
    const [{ readForm }, { openFormModal }] = await Promise.all([import("../../shared/form"), import("../../shared/form-modal")]);
    const form = readForm(button.dataset.form ?? null);
    return form ? { form, openFormModal } : null;
  };
  /** Adds (or goes to the purchase's own checkout); throws what went wrong. */
  const add = async (sku: string, quantity: number, additionalFields?: string) => {
    const body = { itemId, sku, quantity, ...(additionalFields ? { additionalFields } : {}) };
    if (subscription) {
      const r = await call<Schemas["TokenCart"]>("POST", "/api/3/commerce/cart/subscription", { ...body, qty: quantity });
      navigate.to(r.checkoutUrl ?? `/checkout/subscription?cartToken=${encodeURIComponent(r.cartToken)}`);
      return;
    }
    if (productType === GIFT_CARD) {
      const r = await call<Schemas["TokenCart"]>("POST", "/api/3/commerce/cart/gift-card", body);
      navigate.to(r.checkoutUrl ?? `/checkout/gift-card?cartToken=${encodeURIComponent(r.cartToken)}`);
      return;
    }
    const r = await call<Schemas["CartAdded"]>("POST", "/api/commerce/shopping-cart/entries", body);
    setCart(r.shoppingCart);
    if (pageData().expressCheckout) {
      navigate.to("/checkout");
      return;
    }
    machine.succeed();
  };
  let opening = false;
  const activate = async (e: Event) => {
    e.preventDefault();
    if (machine.state !== "idle" || opening) return;
    const title = failureTitle(productType, pageData().expressCheckout);
    const choice = choose(itemId, productType);
    if (!choice.ok) {
      await alertModal(title, choice.message);
      return;
    }
    let withForm = null;
    if (button.dataset.form) {
      opening = true;
      withForm = await formCode().finally(() => {
        opening = false;
      });
    }
    if (withForm) {
      const { form, openFormModal } = withForm;
      // The product's additional-fields form first, in the lightbox; its failures show there.
      await openFormModal({
        title: form.name || idle,
        form,
        submitLabel: idle,
        busyLabel: m.SUBMITTING,
        failureTitle: title,
        submit: async (answers) => {
          // The button is still busy from a failure a moment ago (idle again after 1 s).
          if (!machine.click()) throw new ApiError(0, m.PLEASE_TRY_AGAIN);
          try {
            await add(choice.sku, choice.quantity, JSON.stringify(answers));
          } catch (err) {
            machine.fail();
            throw err;
          }
        },
      });
      return;
    }
    if (!machine.click()) return;
    try {
      await add(choice.sku, choice.quantity);
    } catch (err) {
      machine.fail();
      await alertModal(title, failureText(err));
    }
  };
  button.addEventListener("click", activate);
  button.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") activate(e);
  });
}

export function mount(root: ParentNode = document) {
  for (const button of root.querySelectorAll<HTMLElement>(".sqs-add-to-cart-button")) {
    if (button.dataset.tesseraMounted) continue;
    button.dataset.tesseraMounted = "1";
    wire(button);
  }
}
