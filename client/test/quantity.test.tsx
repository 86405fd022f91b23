import { describe, expect, it } from "vitest";
import { mount } from "../src/islands/quantity/index";
import * as m from "../src/shared/messages";
import { checkQuantity } from "../src/shared/quantity";
import { page } from "./helpers";

describe("the quantity rule", () => {
  it("takes whole numbers from 1 to 9999", () => {
    expect(checkQuantity("3")).toEqual({ ok: true, quantity: 3 });
    expect(checkQuantity(" 12 ")).toEqual({ ok: true, quantity: 12 });
    expect(checkQuantity("9999")).toEqual({ ok: true, quantity: 9999 });
    expect(checkQuantity("0")).toEqual({ ok: false, message: m.QUANTITY_RANGE });
    expect(checkQuantity("-2")).toEqual({ ok: false, message: m.QUANTITY_RANGE });
    expect(checkQuantity("10000")).toEqual({ ok: false, message: m.QUANTITY_RANGE });
    expect(m.QUANTITY_RANGE).toBe("Quantity must be between 1 and 9999.");
    expect(checkQuantity("abc")).toEqual({ ok: false, message: m.QUANTITY_NOT_NUMBER });
    expect(checkQuantity("")).toEqual({ ok: false, message: m.QUANTITY_NOT_NUMBER });
    expect(checkQuantity("1.5")).toEqual({ ok: false, message: m.QUANTITY_NOT_WHOLE });
    expect([m.QUANTITY_MIN, m.QUANTITY_MAX]).toEqual([1, 9999]);
  });

  it("says what is wrong under the input, and clears it when right", () => {
    page('<div class="product-quantity-input" data-item-id="i1"><input type="number" value="1"></div>');
    mount();
    const input = document.querySelector<HTMLInputElement>("input")!;
    input.value = "2.5";
    input.dispatchEvent(new Event("input"));
    const alert = document.querySelector('[role="alert"]')!;
    expect(alert.textContent).toBe("Quantity must be a whole number");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.getAttribute("aria-describedby")).toBe(alert.id);
    input.value = "2";
    input.dispatchEvent(new Event("input"));
    expect(document.querySelector('[role="alert"]')).toBeNull();
    expect(input.getAttribute("aria-invalid")).toBe("false");
  });
});
