import { describe, expect, it } from "vitest";
import * as m from "../src/shared/messages";

describe("SPEC wording", () => {
  it("asks for missing options by how many are missing", () => {
    expect(m.selectOptions(["Size"])).toBe("Please select the Size option.");
    expect(m.selectOptions(["Size", "Colour"])).toBe("Please select the Size and Colour options.");
    expect(m.selectOptions(["Size", "Colour", "Wick"])).toBe("Please select the Size, Colour and Wick options.");
  });

  it("keeps the button, quantity and cart texts verbatim", () => {
    expect([m.ADD_TO_CART, m.SUBSCRIBE, m.ADDING, m.ADDED]).toEqual(["Add To Cart", "Subscribe", "Adding…", "Added!"]);
    expect([m.UNABLE_TO_ADD, m.UNABLE_TO_PURCHASE, m.UNABLE_TO_PURCHASE_GIFT_CARD]).toEqual([
      "Unable to Add Item",
      "Unable to Purchase Item",
      "Unable to purchase Gift Card",
    ]);
    expect(m.QUANTITY_NOT_NUMBER).toBe("Quantity must be a number.");
    expect(m.QUANTITY_NOT_WHOLE).toBe("Quantity must be a whole number");
    expect(m.minimumSubtotal("€10.00")).toBe("To check out, your order subtotal must be €10.00 or more.");
    expect(m.selectVariant("Size")).toBe("Select Size");
    expect(m.SELECT_VALUE).toBe("Select Value");
    expect(m.MORE_THAN_100).toBe("More than 100 items in cart");
  });
});
