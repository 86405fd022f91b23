// What visitors read, in SPEC.md's words (§2, §4, §5, §8). Every island takes its text
// from here, so the unit tests check one place.

export const ADD_TO_CART = "Add To Cart";
export const SUBSCRIBE = "Subscribe";
export const ADDING = "Adding…";
export const ADDED = "Added!";

export const UNABLE_TO_ADD = "Unable to Add Item";
export const UNABLE_TO_PURCHASE = "Unable to Purchase Item";
export const UNABLE_TO_PURCHASE_GIFT_CARD = "Unable to purchase Gift Card";

export const SESSION_EXPIRED = "Your session has expired. Please reload the page and try again.";
export const ENABLE_COOKIES = "Please enable cookies in your browser, reload the page, and try again.";
export const TRY_AGAIN_SOON = "Please try again in a few seconds.";

export const SELECT_VALUE = "Select Value";
export const selectVariant = (variantName: string) => `Select ${variantName}`;

/** "Please select the {option} option." and its two- and many-option forms. */
export function selectOptions(names: string[]): string {
  if (names.length === 1) return `Please select the ${names[0]} option.`;
  if (names.length === 2) return `Please select the ${names[0]} and ${names[1]} options.`;
  const last = names[names.length - 1];
  return `Please select the ${names.slice(0, -1).join(", ")} and ${last} options.`;
}

export const VARIANT_UNAVAILABLE =
  "Sorry, that item variant is unavailable. Please select another variant.";
export const NOT_ENOUGH_STOCK = "Sorry, we do not have enough of that item available.";
export const SOLD_OUT = "Sold Out";

export const QUANTITY = "Quantity";
export const QUANTITY_NOT_NUMBER = "Quantity must be a number.";
export const QUANTITY_NOT_WHOLE = "Quantity must be a whole number";
/** Ours (the server says the same): SPEC's quantity input runs from 1 to 9999. */
export const QUANTITY_RANGE = "Quantity must be between 1 and 9999.";
export const QUANTITY_MIN = 1;
export const QUANTITY_MAX = 9999;

export const UNABLE_TO_UPDATE_QUANTITY = "Unable to update quantity";
export const UNABLE_TO_REMOVE = "Unable to remove item";
export const UNABLE_TO_UPDATE_FORM = "Unable to update form";
export const UNABLE_TO_OPEN_FORM = "Unable to open form";
export const PLEASE_TRY_AGAIN = "Please try again.";
export const CHECK_CONNECTION = "Please check your internet connection.";
export const minimumSubtotal = (subtotal: string) =>
  `To check out, your order subtotal must be ${subtotal} or more.`;

export const MORE_THAN_100 = "More than 100 items in cart";
export const CART_CAP = "100+";

export const QUICK_VIEW = "Quick View";
export const SAVING = "Saving…";
export const CLOSE = "Close";
export const OK = "OK";
export const CANCEL = "Cancel";

export const REQUIRED = "Required";
export const CHARACTER_LIMIT = "You have exceeded the character limit.";
export const EMAIL_INVALID = "Email is not valid. Email addresses should follow the format user@domain.com.";
export const FORM_INVALID = "One or more fields is invalid, please check your entries.";
export const NOT_ANSWERED = "N/A";
export const SUBMITTING = "Submitting…";

// The texts of site forms, the captcha and restock sign-up are in messages-forms.ts: a
// module of their own, so product pages without those islands do not download them.
