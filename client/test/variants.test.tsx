import { describe, expect, it } from "vitest";
import { mount, statusText } from "../src/islands/variants/index";
import * as m from "../src/shared/messages";
import { findVariant, missingOptions, sellingCents, valueAvailable, type Variant } from "../src/shared/variants";
import { page } from "./helpers";

const variants: Variant[] = [
  { sku: "S-OAT", attributes: { Size: "S", Colour: "Oat" }, qtyInStock: 4, priceMoney: { currency: "EUR", value: "42.00" } },
  { sku: "L-OAT", attributes: { Size: "L", Colour: "Oat" }, qtyInStock: 0, priceMoney: { currency: "EUR", value: "44.00" } },
  {
    sku: "S-CHR",
    attributes: { Size: "S", Colour: "Charcoal" },
    qtyInStock: 2,
    onSale: true,
    priceMoney: { currency: "EUR", value: "42.00" },
    salePriceMoney: { currency: "EUR", value: "30.50" },
  },
];

describe("choosing a variant", () => {
  it("needs every option, and finds the variant with all of them", () => {
    expect(missingOptions(["Size", "Colour"], { Size: "S" })).toEqual(["Colour"]);
    expect(findVariant(variants, { Size: "S", Colour: "Charcoal" })?.sku).toBe("S-CHR");
    expect(findVariant(variants, { Size: "L", Colour: "Charcoal" })).toBeNull();
  });

  it("marks values no variant in stock offers, given the other choices", () => {
    expect(valueAvailable(variants, { Colour: "Oat" }, "Size", "L")).toBe(false);
    expect(valueAvailable(variants, { Colour: "Oat" }, "Size", "S")).toBe(true);
    expect(valueAvailable(variants, {}, "Colour", "Charcoal")).toBe(true);
  });

  it("prices at the sale price when on sale", () => {
    expect(sellingCents(variants[0])).toBe(4200);
    expect(sellingCents(variants[2])).toBe(3050);
  });
});

const markup = `
  <article class="product">
    <div class="product-price">€42.00</div>
    <div class="product-variants" data-item-id="i1" data-variants='${JSON.stringify(variants)}'>
      <select data-variant-option-name="Size"><option value="">Select Size</option><option>S</option><option>L</option></select>
      <div class="variant-radiobtn-wrapper" data-variant-option-name="Size">
        <input type="radio" class="variant-radiobtn" value="S" name="variant-option-Size">
        <input type="radio" class="variant-radiobtn" value="L" name="variant-option-Size">
      </div>
      <select data-variant-option-name="Colour"><option value="">Select Colour</option><option>Oat</option><option>Charcoal</option></select>
    </div>
  </article>`;

function choose(name: string, value: string) {
  const s = document.querySelector<HTMLSelectElement>(`select[data-variant-option-name="${name}"]`)!;
  s.value = value;
  s.dispatchEvent(new Event("change", { bubbles: true }));
}

describe("the variants island", () => {
  it("follows the choice with price, status and the radio buttons", () => {
    page(markup);
    mount();
    const el = document.querySelector<HTMLElement>(".product-variants")!;
    expect(statusText(el)).toBe("");
    choose("Size", "L");
    expect(document.querySelector<HTMLInputElement>('input[value="L"]')!.checked).toBe(true);
    choose("Colour", "Oat");
    expect(el.dataset.selectedSku).toBe("L-OAT");
    expect(document.querySelector(".tessera-variant-status")?.textContent).toBe(m.SOLD_OUT);
    choose("Colour", "Charcoal");
    expect(document.querySelector(".tessera-variant-status")?.textContent).toBe(m.VARIANT_UNAVAILABLE);
    choose("Size", "S");
    expect(el.dataset.selectedSku).toBe("S-CHR");
    expect(document.querySelector(".tessera-variant-status")).toBeNull();
    expect(document.querySelector(".product-price")!.textContent).toBe("€30.50");
    // A radio button sets its select.
    const radio = document.querySelector<HTMLInputElement>('input[value="L"]')!;
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    expect(document.querySelector<HTMLSelectElement>('select[data-variant-option-name="Size"]')!.value).toBe("L");
  });

  it("marks sold-out values in the selects", () => {
    page(markup);
    mount();
    choose("Colour", "Oat");
    const large = Array.from(document.querySelectorAll("option")).find((o) => o.value === "L")!;
    expect(large.dataset.soldOut).toBe("true");
    expect(large.classList.contains("sold-out")).toBe(true);
  });
});
