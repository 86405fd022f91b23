// Variant choice (SPEC.md §2 "Product detail page"): the selects (placeholders "Select
// Value" / "Select {variantName}", written by the server) and their radio-button twins stay
// in step; values no variant in stock offers, given the other choices, are marked sold out;
// once every option is chosen the product's price (and image, when the variant has one)
// follows the variant, and a sold-out or missing combination says so.

import { quoted } from "../../shared/dom";
import { render } from "react-dom";
import * as m from "../../shared/messages";
import { formatMoney } from "../../shared/money";
import { pageData } from "../../shared/page";
import {
  findVariant,
  isSoldOut,
  missingOptions,
  optionNames,
  readVariants,
  selection,
  sellingCents,
  valueAvailable,
} from "../../shared/variants";

/** What the status line under the options says for a choice: nothing until every option is
 *  chosen, then sold out or unavailable when so. */
export function statusText(el: Element): string {
  const chosen = selection(el);
  if (missingOptions(optionNames(el), chosen).length > 0) return "";
  const v = findVariant(readVariants(el), chosen);
  if (!v) return m.VARIANT_UNAVAILABLE;
  return isSoldOut(v) ? m.SOLD_OUT : "";
}

function Status({ text }: { text: string }) {
  return text ? <p class="tessera-variant-status" role="status">{text}</p> : null;
}

/** Applies the current choice to the page. */
export function update(el: HTMLElement) {
  const variants = readVariants(el);
  const chosen = selection(el);
  for (const name of optionNames(el)) {
    const select = el.querySelector<HTMLSelectElement>(`select[data-variant-option-name=${quoted(name)}]`);
    const values = select ? Array.from(select.options).filter((o) => o.value) : [];
    for (const o of values) {
      const available = valueAvailable(variants, chosen, name, o.value);
      o.classList.toggle("sold-out", !available);
      o.dataset.soldOut = String(!available);
    }
  }
  const v = missingOptions(optionNames(el), chosen).length === 0 ? findVariant(variants, chosen) : null;
  el.dataset.selectedSku = v?.sku ?? "";
  // Whatever depends on the chosen variant follows (the restock sign-up of a sold-out one).
  window.dispatchEvent(new CustomEvent("tessera:variant", { detail: { itemId: el.dataset.itemId, sku: v?.sku ?? null } }));
  const root = el.closest("article, .product, .ProductItem, .item") ?? document;
  if (v) {
    const cents = sellingCents(v);
    const price = root.querySelector(".product-price");
    const { currency, locale } = pageData();
    if (cents !== null && price) {
      price.textContent = formatMoney(cents, v.priceMoney?.currency ?? currency, locale);
    }
    if (cents !== null) {
      // Whatever shows a price of its own follows (the instalment pill).
      const detail = { itemId: el.dataset.itemId, cents, currency: v.priceMoney?.currency ?? currency };
      window.dispatchEvent(new CustomEvent("tessera:price", { detail }));
    }
    const image = v.mainImage?.assetUrl;
    const img = image ? root.querySelector<HTMLImageElement>("img") : null;
    if (img && image) img.src = image;
  }
  let status = el.nextElementSibling as HTMLElement | null;
  if (!status?.classList.contains("tessera-variant-status-host")) {
    status = document.createElement("div");
    status.className = "tessera-variant-status-host";
    el.after(status);
  }
  render(<Status text={statusText(el)} />, status);
}

export function mount(root: ParentNode = document) {
  for (const el of root.querySelectorAll<HTMLElement>(".product-variants")) {
    if (el.dataset.tesseraMounted) continue;
    el.dataset.tesseraMounted = "1";
    el.addEventListener("change", (e) => {
      const t = e.target as HTMLElement;
      const name = t.closest("[data-variant-option-name]")?.getAttribute("data-variant-option-name");
      const value = (t as HTMLInputElement | HTMLSelectElement).value;
      if (name && t instanceof HTMLInputElement) {
        // A radio button sets its select, so the selects stay what the form says.
        const select = el.querySelector<HTMLSelectElement>(`select[data-variant-option-name=${quoted(name)}]`);
        if (select) select.value = value;
      } else if (name && t instanceof HTMLSelectElement) {
        for (const r of el.querySelectorAll<HTMLInputElement>(`input.variant-radiobtn[name=${quoted(`variant-option-${name}`)}]`)) {
          r.checked = r.value === value;
        }
      }
      update(el);
    });
    update(el);
  }
}
