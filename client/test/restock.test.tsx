import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mount } from "../src/islands/restock/index";
import { restockEmailOk } from "../src/islands/restock/signup";
import { mount as mountVariants } from "../src/islands/variants/index";
import * as fm from "../src/shared/messages-forms";
import { cookie, page, routeFetch, settle, until } from "./helpers";

const SIGN_UP = "POST /api/site-users/account/notifications/restock";
const CHALLENGE = "GET /api/captcha/challenge";

const block = (sku: string, hidden: boolean, mailing = true) => `
  <div class="product-restock-notification" data-product-id="p1" data-variant-id="${sku}"${hidden ? " hidden" : ""}>
    <span class="product-restock-cta">Sign up to be notified when this product is back in stock.</span>
    <form class="product-restock-form" action="#">
      <input type="text" name="email" placeholder="Email Address">
      <input class="sqs-editable-button" type="submit" value="Notify Me">
    </form>
    ${mailing ? `<label class="product-restock-mailing-list"><input type="checkbox" name="isJoinMailingList" checked>Sign up for news and updates</label>` : ""}
    <div class="captcha-container"></div>
  </div>`;

const variants = [
  { sku: "FTP-S", attributes: { Size: "Small" }, qtyInStock: 3 },
  { sku: "FTP-L", attributes: { Size: "Large" }, qtyInStock: 0 },
  { sku: "FTP-XL", attributes: { Size: "Extra large" }, qtyInStock: 0 },
];
const product = `
  <article class="product">
    <div class="product-variants" data-item-id="p1" data-variants='${JSON.stringify(variants)}'>
      <select data-variant-option-name="Size"><option value="">Select Size</option><option>Small</option><option>Large</option><option>Extra large</option></select>
    </div>
    ${block("FTP-L", true)}${block("FTP-XL", true, false)}
  </article>`;

const $ = <T extends Element = HTMLElement>(s: string, root: ParentNode = document) => root.querySelector<T>(s)!;
const shown = () => Array.from(document.querySelectorAll<HTMLElement>(".product-restock-notification")).filter((b) => !b.hidden).map((b) => b.dataset.variantId);

function choose(value: string) {
  const s = $<HTMLSelectElement>("select");
  s.value = value;
  s.dispatchEvent(new Event("change", { bubbles: true }));
}

function send(email: string, root: ParentNode = document) {
  $<HTMLInputElement>("input[name=email]", root).value = email;
  $<HTMLFormElement>("form", root).dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
}

const challenge = { body: { provider: "proof-of-work", challenge: "r1.9.4.s", difficulty: 4 } };

async function tick(root: ParentNode = document) {
  await until(() => root.querySelector(".tessera-captcha-check") !== null, "the captcha");
  $<HTMLInputElement>(".tessera-captcha-check", root).click();
  await until(() => $(".tessera-captcha-status", root).textContent === fm.VERIFIED, "the captcha solved");
}

beforeEach(() => cookie("crumb=tok"));
afterEach(() => vi.unstubAllGlobals());

describe("restock sign-up", () => {
  it("checks the email as SPEC §5 has it", () => {
    for (const ok of ["a@b.co", "ada@example.com", "x@mail.example.info", `${"a".repeat(250)}@b.com`]) expect(restockEmailOk(ok)).toBe(true);
    for (const bad of ["a@b", "a@b.c", "a@b.museum", "a@b.c0m", "@b.co", "a b@c.de", "a@b@c.de", "a@.co", `${"a".repeat(251)}@b.com`])
      expect(restockEmailOk(bad)).toBe(false);
  });

  it("shows the chosen sold-out variant's block and no other", async () => {
    page(product);
    routeFetch({ [CHALLENGE]: challenge });
    mountVariants();
    mount();
    expect(shown()).toEqual([]);
    // Nothing of the sign-up loads for blocks nobody chose.
    await settle();
    expect(document.querySelector(".tessera-captcha, [data-tessera-signup]")).toBeNull();
    choose("Large");
    expect(shown()).toEqual(["FTP-L"]);
    choose("Extra large");
    expect(shown()).toEqual(["FTP-XL"]);
    choose("Small");
    expect(shown()).toEqual([]);
    // A choice made before the island loaded counts too.
    page(product);
    mountVariants();
    choose("Large");
    mount();
    expect(shown()).toEqual(["FTP-L"]);
    // Its captcha is there once shown.
    await until(() => document.querySelector(".tessera-captcha-check") !== null, "the captcha");
  });

  it("names a blank or invalid email and an unticked captcha, sending nothing", async () => {
    page(block("BPS-1", false));
    const api = routeFetch({ [CHALLENGE]: challenge });
    mount();
    // The form's code loads once its block shows.
    await until(() => document.querySelector(".tessera-captcha-check") !== null, "the sign-up wired");
    send("  ");
    const message = () => $(".product-restock-message");
    expect(message().textContent).toBe("Email cannot be blank");
    expect(message().getAttribute("role")).toBe("alert");
    expect($("input[name=email]").getAttribute("aria-invalid")).toBe("true");
    send("ada@example");
    expect(message().textContent).toBe("Email is invalid");
    send("ada@example.com");
    await until(() => document.querySelector(".tessera-captcha-error") !== null, "the captcha problem");
    expect($(".tessera-captcha-error").textContent).toBe("Complete CAPTCHA before submitting.");
    expect(message().hidden).toBe(true);
    expect(api.to(SIGN_UP)).toHaveLength(0);
  });

  it("signs up with the payload SPEC names, then says Signed up! in the form's place", async () => {
    page(block("BPS-1", false));
    const api = routeFetch({ [CHALLENGE]: challenge, [SIGN_UP]: { body: { success: true } } });
    mount();
    await tick();
    send(" ada@example.com ");
    await until(() => document.querySelector(".product-restock-success") !== null, "the success");
    const [call] = api.to(SIGN_UP);
    expect(call.headers["X-CSRF-Token"]).toBe("tok");
    expect(call.body).toMatchObject({ productId: "p1", variantId: "BPS-1", siteVisitorEmail: "ada@example.com", isJoinMailingList: true });
    expect(call.body.captchaToken.startsWith("r1.9.4.s:")).toBe(true);
    expect($(".product-restock-success").textContent).toBe("Signed up!");
    expect(document.querySelector(".product-restock-form, .tessera-captcha, .product-restock-mailing-list")).toBeNull();
  });

  it("shows the merchant's success text when set; the unticked list box is false", async () => {
    page(block("BPS-1", false), { restockSuccessText: "We'll email you the day it's back." });
    const api = routeFetch({ [CHALLENGE]: challenge, [SIGN_UP]: { body: { success: true } } });
    mount();
    $<HTMLInputElement>("input[name=isJoinMailingList]").checked = false;
    await tick();
    send("ada@example.com");
    await until(() => document.querySelector(".product-restock-success") !== null, "the success");
    expect(api.to(SIGN_UP)[0].body.isJoinMailingList).toBe(false);
    expect($(".product-restock-success").textContent).toBe("We'll email you the day it's back.");
  });

  it("a refusal shows the server's message (else SPEC's fallback) and resets the captcha", async () => {
    page(block("BPS-1", false));
    const api = routeFetch({
      [CHALLENGE]: [challenge, { body: { provider: "proof-of-work", challenge: "r2.9.4.s", difficulty: 4 } }],
      [SIGN_UP]: [{ status: 429, body: { message: "Please try again in a few seconds." } }, { status: 404, body: {} }],
    });
    mount();
    await tick();
    send("ada@example.com");
    await until(() => !$(".product-restock-message").hidden, "the message");
    expect($(".product-restock-message").textContent).toBe("Please try again in a few seconds.");
    expect($<HTMLInputElement>(".tessera-captcha-check").checked).toBe(false);
    await until(() => api.to(CHALLENGE).length === 2, "a new challenge");
    await tick();
    send("ada@example.com");
    await until(() => $(".product-restock-message").textContent === fm.FORM_UNABLE_TO_SUBMIT, "the fallback");
    expect($(".product-restock-message").textContent).toBe("Unable to submit form. Please try again later.");
    expect($<HTMLInputElement>("[type=submit]").disabled).toBe(false);
  });

  it("a captcha the server refuses is said at the captcha", async () => {
    page(block("BPS-1", false));
    routeFetch({
      [CHALLENGE]: challenge,
      [SIGN_UP]: { status: 400, body: { message: fm.CAPTCHA_FAILED, errors: { captchaToken: fm.CAPTCHA_FAILED } } },
    });
    mount();
    await tick();
    send("ada@example.com");
    await until(() => document.querySelector(".tessera-captcha-error") !== null, "the captcha problem");
    expect($(".tessera-captcha-error").textContent).toBe("reCAPTCHA failed. Refresh this page and try again.");
    await settle();
    expect($(".product-restock-message").hidden).toBe(true);
  });
});
