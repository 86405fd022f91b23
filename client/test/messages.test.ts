import { describe, expect, it } from "vitest";
import * as m from "../src/shared/messages";
import * as fm from "../src/shared/messages-forms";

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

  it("keeps the form, captcha and restock texts verbatim", () => {
    expect([fm.FORM_PROBLEM_ABOVE, fm.FORM_PROBLEM_BELOW]).toEqual([
      "Your form has encountered a problem. Please scroll down to review.",
      "Your form has encountered a problem. Please scroll up to review.",
    ]);
    expect([m.REQUIRED, m.CHARACTER_LIMIT, m.EMAIL_INVALID, m.SUBMITTING]).toEqual([
      "Required",
      "You have exceeded the character limit.",
      "Email is not valid. Email addresses should follow the format user@domain.com.",
      "Submitting…",
    ]);
    expect(fm.FORM_KEY_FAILED).toBe("Could not get a form submission key, please try again later.");
    expect(fm.FORM_CRUMB_FAILED).toBe("Error processing form submission. Please reload and try again.");
    expect(fm.FORM_UNKNOWN_ERROR).toBe("Unknown error, please try again later.");
    expect(fm.FORM_UNPARSEABLE).toBe("Could not parse the form fields, please check your entries.");
    expect([fm.CAPTCHA_REQUIRED, fm.CAPTCHA_FAILED, fm.RECAPTCHA_NOT_SET_UP]).toEqual([
      "Complete CAPTCHA before submitting.",
      "reCAPTCHA failed. Refresh this page and try again.",
      "ReCaptcha has not been set up!",
    ]);
    expect([fm.RESTOCK_EMAIL_BLANK, fm.RESTOCK_EMAIL_INVALID, fm.RESTOCK_SIGNED_UP]).toEqual([
      "Email cannot be blank",
      "Email is invalid",
      "Signed up!",
    ]);
  });
});
