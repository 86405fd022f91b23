// What visitors read in site forms, newsletter blocks, the captcha and restock sign-up, in
// SPEC.md's words. Kept apart from messages.ts (which has the texts forms share with the
// cart's lightbox: "Required", the character limit, the email format, "Submitting…") so
// that only pages with these islands download them.

// Site forms and newsletter blocks (SPEC.md §4 "Form submission", §8 "Form submission").
export const FORM_PROBLEM_ABOVE = "Your form has encountered a problem. Please scroll down to review.";
export const FORM_PROBLEM_BELOW = "Your form has encountered a problem. Please scroll up to review.";
export const FORM_CRUMB_FAILED = "Error processing form submission. Please reload and try again.";
export const FORM_UNKNOWN_ERROR = "Unknown error, please try again later.";
export const FORM_KEY_FAILED = "Could not get a form submission key, please try again later.";
export const FORM_UNPARSEABLE = "Could not parse the form fields, please check your entries.";
export const FORM_UNABLE_TO_SUBMIT = "Unable to submit form. Please try again later.";
export const FORM_NOT_CONFIGURED = "This form has not been configured yet.";
export const FORM_RATE_LIMITED = "Unable to submit form. Submission rate limit exceeded. Please try again later.";
export const FORM_UNABLE_TO_SEND = "Unable to send form. Please try again later.";

// The captcha (SPEC.md §5, §8, §9 "Captcha"). "I'm not a robot", "Verifying…" and
// "Verified" are ours: SPEC shows a checkbox captcha but not its words.
export const CAPTCHA_REQUIRED = "Complete CAPTCHA before submitting.";
export const CAPTCHA_FAILED = "reCAPTCHA failed. Refresh this page and try again.";
export const RECAPTCHA_NOT_SET_UP = "ReCaptcha has not been set up!";
export const NOT_A_ROBOT = "I'm not a robot";
export const VERIFYING = "Verifying…";
export const VERIFIED = "Verified";

// Restock sign-up (SPEC.md §4 "Restock form", §5 "Restock", §8 "Restock").
export const RESTOCK_EMAIL_BLANK = "Email cannot be blank";
export const RESTOCK_EMAIL_INVALID = "Email is invalid";
export const RESTOCK_SIGNED_UP = "Signed up!";
