// A restock block's sign-up form (SPEC.md §4 "Restock form", §5 "Restock", §8 "Restock"),
// loaded once its block shows: the email checks ("Email cannot be blank", "Email is
// invalid"), the captcha ("Complete CAPTCHA before submitting."), the call, and then the
// merchant's success text or "Signed up!" in the form's place (idle → error | success).

import { ApiError, call } from "../../shared/api";
import { mountCaptcha } from "../../shared/captcha";
import * as fm from "../../shared/messages-forms";
import { pageData } from "../../shared/page";

const ENDPOINT = "/api/site-users/account/notifications/restock";

/** SPEC §5 as the server checks it: 3-256 characters, no spaces, `local@domain` with a
 *  top-level part of 2-4 letters. */
export function restockEmailOk(email: string): boolean {
  const n = Array.from(email).length;
  if (n < 3 || n > 256 || /\s/.test(email)) return false;
  const at = email.indexOf("@");
  const domain = email.slice(at + 1);
  const dot = domain.lastIndexOf(".");
  return at > 0 && !domain.includes("@") && dot > 0 && !domain.startsWith(".") && /^[A-Za-z]{2,4}$/.test(domain.slice(dot + 1));
}

/** What the visitor reads when a sign-up is refused: the server's message. */
function refusal(e: unknown): string {
  const message = e instanceof ApiError ? e.body.message : undefined;
  return typeof message === "string" && message ? message : fm.FORM_UNABLE_TO_SUBMIT;
}

let count = 0;

/** Wires one block's form and puts its captcha in place (the block is showing). */
export function enhance(block: HTMLElement) {
  const form = block.querySelector<HTMLFormElement>("form.product-restock-form");
  const email = form?.querySelector<HTMLInputElement>("input[name=email]");
  if (!form || !email) return;
  form.noValidate = true;
  // An email keyboard and autofill, without changing the type the template styles.
  email.inputMode = "email";
  email.autocomplete = "email";
  const submit = form.querySelector<HTMLInputElement | HTMLButtonElement>("[type=submit]");
  let spot = block.querySelector<HTMLElement>(".captcha-container");
  if (!spot) {
    // Every sign-up has a captcha; a template without the container gets one.
    spot = document.createElement("div");
    spot.className = "captcha-container";
    block.append(spot);
  }
  const message = document.createElement("p");
  message.className = "product-restock-message tessera-error";
  message.id = `tessera-restock-message-${++count}`;
  message.setAttribute("role", "alert");
  message.hidden = true;
  form.after(message);

  const c = mountCaptcha(spot);
  form.addEventListener("focusin", () => c.prepare());

  const say = (text: string | null, invalid = false) => {
    message.textContent = text ?? "";
    message.hidden = !text;
    if (invalid) {
      email.setAttribute("aria-invalid", "true");
      email.setAttribute("aria-describedby", message.id);
    } else {
      email.removeAttribute("aria-invalid");
      email.removeAttribute("aria-describedby");
    }
  };

  let busy = false;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (busy) return;
    say(null);
    const address = email.value.trim();
    const problem = !address ? fm.RESTOCK_EMAIL_BLANK : restockEmailOk(address) ? null : fm.RESTOCK_EMAIL_INVALID;
    if (problem) {
      say(problem, true);
      email.focus();
      return;
    }
    c.showError(null);
    const token = c.token();
    if (!token) {
      c.showError(fm.CAPTCHA_REQUIRED);
      return;
    }
    busy = true;
    if (submit) submit.disabled = true;
    const join = block.querySelector<HTMLInputElement>("input[name=isJoinMailingList]");
    try {
      await call("POST", ENDPOINT, {
        productId: block.dataset.productId,
        variantId: block.dataset.variantId,
        siteVisitorEmail: address,
        isJoinMailingList: join?.checked ?? false,
        captchaToken: token,
      });
      // Success: the form gives way to the merchant's text; the captcha is done with.
      c.destroy();
      const custom = pageData().restockSuccessText;
      const done = document.createElement("p");
      done.className = "product-restock-success";
      done.setAttribute("role", "status");
      done.textContent = typeof custom === "string" && custom.trim() ? custom : fm.RESTOCK_SIGNED_UP;
      form.replaceWith(done);
      for (const el of [message, spot, join?.closest("label")]) el?.remove();
    } catch (err) {
      const errors = err instanceof ApiError ? err.errors : {};
      const atCaptcha = errors.captchaToken ?? errors.captchaKey;
      c.reset();
      if (atCaptcha) c.showError(atCaptcha);
      else {
        // Only the server's email checks are the email field's problem.
        const text = refusal(err);
        say(text, text === fm.RESTOCK_EMAIL_BLANK || text === fm.RESTOCK_EMAIL_INVALID);
      }
    } finally {
      busy = false;
      if (submit) submit.disabled = false;
    }
  });
}
