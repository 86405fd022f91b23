// The instalment pill on product pages (SPEC.md §2 "Product detail page", §4 "Instalment
// pill", §5 "Instalment availability text"): under the product's price, "or {installment}
// with {brand}" when the price is within the provider's limits, otherwise "{brand} available
// for orders up to {maximum}" / "… over {minimum}"; it follows the chosen variant's price.
// Its info button opens a popup about the payments. (Squarespace loads the provider's own
// popup page from a third party; a tenant's page here stays on its own host.)

import { useLayoutEffect, useState } from "react";
import { render } from "react-dom";
import { quoted } from "../../shared/dom";
import * as m from "../../shared/messages";
import { Modal, openModal } from "../../shared/modal";
import { formatMoney } from "../../shared/money";
import { type InstalmentPill, pageData } from "../../shared/page";

export interface PillState {
  inRange: boolean;
  text: string;
  installmentCents: number;
}

/** SPEC's text for `cents` under the pill's limits (limits and amounts in minor units). */
export function pillState(p: InstalmentPill, cents: number, currency: string, locale: string): PillState {
  const money = (c: number) => formatMoney(c, currency, locale);
  const installmentCents = Math.round(cents / p.payments);
  if (cents >= p.minimumCents && cents <= p.maximumCents) {
    return { inRange: true, installmentCents, text: `or ${money(installmentCents)} with` };
  }
  if (cents > p.maximumCents) return { inRange: false, installmentCents, text: `available for orders up to ${money(p.maximumCents)}` };
  return { inRange: false, installmentCents, text: `available for orders over ${money(p.minimumCents)}` };
}

/** What the popup says. */
export function aboutText(p: InstalmentPill, state: PillState, currency: string, locale: string): string[] {
  const money = (c: number) => formatMoney(c, currency, locale);
  const lines = [];
  if (state.inRange) lines.push(`Pay in ${p.payments} interest-free payments of ${money(state.installmentCents)}.`);
  else lines.push(`Pay in ${p.payments} interest-free payments.`);
  lines.push(`${p.brand} is available for orders from ${money(p.minimumCents)} to ${money(p.maximumCents)}.`);
  return lines;
}

function openAbout(p: InstalmentPill, state: PillState) {
  const { currency, locale } = pageData();
  openModal((close) => (
    <Modal title={p.brand} onClose={close} className="tessera-instalments-about">
      {aboutText(p, state, currency, locale).map((line) => (
        <p key={line} class="tessera-modal-message">
          {line}
        </p>
      ))}
      <div class="tessera-modal-actions">
        <button type="button" class="tessera-button" onClick={close}>
          {m.OK}
        </button>
      </div>
    </Modal>
  ));
}

export function Pill({ itemId, pill }: { itemId: string; pill: InstalmentPill }) {
  const { currency, locale } = pageData();
  const [state, setState] = useState<PillState>({ inRange: pill.inRange, text: pill.text, installmentCents: pill.installmentCents });
  useLayoutEffect(() => {
    const onPrice = (e: Event) => {
      const d = (e as CustomEvent).detail as { itemId: string; cents: number; currency?: string };
      if (d?.itemId === itemId) setState(pillState(pill, d.cents, d.currency ?? currency, locale));
    };
    window.addEventListener("tessera:price", onPrice);
    return () => window.removeEventListener("tessera:price", onPrice);
  }, [itemId]);
  const brand = <span class="tessera-instalments-brand">{pill.brand}</span>;
  return (
    <>
      <span class="tessera-instalments-text">
        {state.inRange ? (
          <>
            {state.text} {brand}
          </>
        ) : (
          <>
            {brand} {state.text}
          </>
        )}
      </span>{" "}
      <button type="button" class="tessera-instalments-info" aria-haspopup="dialog" onClick={() => openAbout(pill, state)}>
        <span aria-hidden="true">ⓘ</span>
        <span class="tessera-sr-only">About {pill.brand}</span>
      </button>
    </>
  );
}

/** Shows `pill` for the product of `button`, under its price. */
export function mountPill(button: HTMLElement, pill: InstalmentPill, root: ParentNode = document) {
  const id = button.dataset.itemId!;
  if (root.querySelector(`.tessera-instalments[data-item-id=${quoted(id)}]`)) return;
  const product = button.closest("article, .product, .ProductItem, .item") ?? root;
  const host = document.createElement("div");
  host.className = "tessera-instalments";
  host.dataset.itemId = id;
  host.dataset.provider = pill.provider;
  // The server's line for pages without script (the built-in product view) gives way to
  // the pill, which follows the chosen variant: one line, never two.
  const line = product.querySelector(".product-installments");
  const price = product.querySelector(".product-price");
  if (line) line.replaceWith(host);
  else if (price) price.after(host);
  else (button.closest(".sqs-add-to-cart-button-wrapper") ?? button).before(host);
  render(<Pill itemId={id} pill={pill} />, host);
}

export function mount(root: ParentNode = document, pills: Record<string, InstalmentPill> = pageData().instalments ?? {}) {
  for (const button of root.querySelectorAll<HTMLElement>(".sqs-add-to-cart-button[data-item-id]")) {
    const pill = pills[button.dataset.itemId!];
    if (pill) mountPill(button, pill, root);
  }
}
