import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { check, collect, formEmailOk, length, type SiteFormDef } from "../src/islands/site-form/answers";
import { failureMessage, mount, navigate, resetDefinitions } from "../src/islands/site-form/index";
import { ApiError } from "../src/shared/api";
import * as m from "../src/shared/messages";
import * as fm from "../src/shared/messages-forms";
import { meets } from "../src/shared/pow";
import { cookie, page, routeFetch, settle, until } from "./helpers";

const BOOKING: SiteFormDef = {
  id: "f1",
  name: "Book a repair",
  fields: [
    { id: "name", type: "name", title: "Name", required: true },
    { id: "email", type: "email", title: "Email", required: true },
    { id: "phone", type: "phone", title: "Phone" },
    { id: "bike", type: "select", title: "Kind of bicycle", required: true, options: ["Road", "Mountain"] },
    { id: "service", type: "radio", title: "What does it need?", required: true, options: ["Check", "Overhaul"] },
    { id: "extras", type: "checkbox", title: "Extras", options: ["Lights", "Bell"] },
    { id: "mood", type: "likert", title: "How was it?", options: ["Service"] },
    { id: "dropoff", type: "date", title: "Drop-off" },
    { id: "details", type: "textarea", title: "Details", maxLength: 10 },
    { id: "source", type: "hidden", key: "source", value: "contact-page" },
    { id: "break", type: "section", title: "More" },
  ],
  submissionMessage: "Thanks! We reply within one working day.",
  submissionHtml: '<p class="extra">Meanwhile, <b>read our guide</b>.</p>',
  successRedirect: null,
  disclaimer: null,
  newsletter: false,
  captcha: false,
};

const NEWSLETTER: SiteFormDef = {
  id: "n1",
  name: "Newsletter",
  fields: [{ id: "email", type: "email", title: "Email address", required: true }],
  submissionMessage: "You're on the list.",
  submissionHtml: null,
  successRedirect: null,
  disclaimer: null,
  newsletter: true,
  captcha: false,
};

const bookingMarkup = `
  <div class="form-wrapper"><form method="post" action="/api/form/SaveFormSubmission" data-form-id="f1">
    <input type="hidden" name="formId" value="f1"><input type="hidden" name="source" value="contact-page">
    <fieldset class="form-item"><legend>Name</legend>
      <label for="fname">First name<input id="fname" name="name" required></label>
      <label for="lname">Last name<input id="lname" name="name" required></label></fieldset>
    <div class="form-item"><label for="email">Email</label><input id="email" type="email" name="email" required></div>
    <div class="form-item"><label for="phone">Phone</label><input id="phone" type="tel" name="phone"></div>
    <div class="form-item"><label for="bike">Kind of bicycle</label>
      <select id="bike" name="bike"><option value="">Select one</option><option>Road</option><option>Mountain</option></select></div>
    <fieldset class="form-item"><legend>What does it need?</legend>
      <label><input type="radio" name="service" value="Check"> Check</label>
      <label><input type="radio" name="service" value="Overhaul"> Overhaul</label></fieldset>
    <fieldset class="form-item"><legend>Extras</legend>
      <label><input type="checkbox" name="extras" value="Lights"> Lights</label>
      <label><input type="checkbox" name="extras" value="Bell"> Bell</label></fieldset>
    <fieldset class="form-item"><legend>How was it?</legend>
      <label><input type="radio" name="mood[Service]" value="2"> Strongly agree</label></fieldset>
    <div class="form-item"><label for="dropoff">Drop-off</label><input id="dropoff" type="date" name="dropoff"></div>
    <div class="form-item"><label for="details">Details</label><p id="details-desc">What happens</p>
      <textarea id="details" name="details" aria-describedby="details-desc"></textarea></div>
    <div class="form-button-wrapper"><button type="submit">Send request</button></div>
  </form></div>`;

const newsletterMarkup = `
  <form class="newsletter-form" method="post" action="/api/form/SaveFormSubmission" data-form-id="n1">
    <input type="hidden" name="formId" value="n1">
    <div class="newsletter-form-field-wrapper form-item"><label for="nl-email">Email address</label>
      <input id="nl-email" type="email" name="email" required></div>
    <button class="newsletter-form-button" type="submit">Sign up</button>
  </form>`;

const $ = <T extends Element = HTMLElement>(s: string) => document.querySelector<T>(s)!;
const form = () => $<HTMLFormElement>("form[data-form-id]");
const button = () => $<HTMLButtonElement>("form button[type=submit]");

function fill(selector: string, value: string) {
  const el = $<HTMLInputElement>(selector);
  el.value = value;
  el.dispatchEvent(new Event("input", { bubbles: true }));
}

function fillBooking() {
  fill("#fname", "Ada");
  fill("#lname", "Lovelace");
  fill("#email", "ada@example.com");
  fill("#phone", "0608 555 0142");
  $<HTMLSelectElement>("#bike").value = "Road";
  $<HTMLInputElement>("input[value=Overhaul]").checked = true;
  $<HTMLInputElement>("input[value=Bell]").checked = true;
  $<HTMLInputElement>("input[name='mood[Service]']").checked = true;
  fill("#dropoff", "2030-05-01");
  fill("#details", "Squeaks");
}

function submit() {
  form().dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
}

const schema = (...forms: SiteFormDef[]) => ({ body: { type: "form", fieldTypes: {}, forms } });
const SCHEMA = "GET /api/template/GetTemplateSchema";
const KEY = "POST /api/form/FormSubmissionKey";
const SAVE = "POST /api/form/SaveFormSubmission";
const CHALLENGE = "GET /api/captcha/challenge";

/** The problem shown above field `id`'s title. */
function problemAt(title: string): string | null {
  const t = Array.from(document.querySelectorAll("legend, label")).find((el) => el.textContent!.includes(title))!;
  const el = t.tagName === "LEGEND" ? t.firstElementChild : t.previousElementSibling;
  return el?.classList.contains("form-field-error") ? el.textContent : null;
}

beforeEach(() => {
  resetDefinitions();
  cookie("crumb=tok");
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("a form's answers", () => {
  it("take each kind's shape from the markup's names", () => {
    page(bookingMarkup);
    fillBooking();
    const answers = collect(form(), BOOKING);
    expect(answers).toEqual({
      name: ["Ada", "Lovelace"],
      email: "ada@example.com",
      phone: ["0608 555 0142"],
      bike: "Road",
      service: "Overhaul",
      extras: ["Bell"],
      mood: { Service: "2" },
      dropoff: "2030-05-01",
      details: "Squeaks",
      source: "contact-page",
    });
    // The hidden field takes the page's query parameter of its name.
    expect(collect(form(), BOOKING, "?source=flyer&x=1").source).toBe("flyer");
  });

  it("a split date is a list of parts", () => {
    page(`<form data-form-id="d"><input name="when" value="05"><input name="when" value="01"><input name="when" value="2030"></form>`);
    expect(collect(form(), { fields: [{ id: "when", type: "date" }] }).when).toEqual(["05", "01", "2030"]);
  });

  it("are checked as the server checks them", () => {
    const empty = { name: ["", " "], email: "", phone: [], bike: "", service: "", extras: [], mood: {}, details: "", source: "" };
    expect(check(BOOKING, empty)).toEqual({ name: m.REQUIRED, email: m.REQUIRED, bike: m.REQUIRED, service: m.REQUIRED });
    const wrong = { ...empty, name: ["Ada", ""], email: "ada@example", bike: "Road", service: "Check", details: "12345678901" };
    expect(check(BOOKING, wrong)).toEqual({ email: m.EMAIL_INVALID, details: m.CHARACTER_LIMIT });
    // Code points, as the server counts: ten emoji fit in ten.
    expect(check(BOOKING, { ...wrong, email: "a@b.co", details: "🚲".repeat(10) })).toEqual({});
    expect(length("🚲🚲")).toBe(2);
    for (const ok of ["a@b.co", "ada.l@mail.example.org"]) expect(formEmailOk(ok)).toBe(true);
    for (const bad of ["a@b.c", "@b.co", "a@.co", "a b@c.de", "a@b@c.de", "abc"]) expect(formEmailOk(bad)).toBe(false);
  });
});

describe("a refusal, by status (SPEC §8)", () => {
  it("names each status's message, else the server's, else the unknown error", () => {
    expect(failureMessage(new ApiError(401, "x"))).toBe("Unable to submit form. Please try again later.");
    expect(failureMessage(new ApiError(404, "x"))).toBe("This form has not been configured yet.");
    expect(failureMessage(new ApiError(429, "x"))).toBe("Unable to submit form. Submission rate limit exceeded. Please try again later.");
    expect(failureMessage(new ApiError(500, "x"))).toBe("Unable to send form. Please try again later.");
    expect(failureMessage(new ApiError(403, "x", { crumbFail: true, message: "no" }))).toBe(
      "Error processing form submission. Please reload and try again.",
    );
    expect(failureMessage(new ApiError(418, "x", { error: "Teapot.", message: "other" }))).toBe("Teapot.");
    expect(failureMessage(new ApiError(418, "x", { message: "Short and stout." }))).toBe("Short and stout.");
    expect(failureMessage(new ApiError(418, "x", {}))).toBe("Unknown error, please try again later.");
    expect(failureMessage(new Error("boom"))).toBe("Unknown error, please try again later.");
  });
});

describe("the site-form island", () => {
  it("shows local problems above the field titles and SPEC's messages above and below, sending nothing", async () => {
    page(bookingMarkup);
    const api = routeFetch({ [SCHEMA]: schema(BOOKING) });
    mount();
    await settle();
    expect(form().noValidate).toBe(true);
    fill("#email", "ada@example");
    submit();
    await settle();
    expect(problemAt("Name")).toBe("Required");
    expect(problemAt("Email")).toBe(m.EMAIL_INVALID);
    expect(problemAt("Kind of bicycle")).toBe("Required");
    expect(problemAt("What does it need?")).toBe("Required");
    expect(problemAt("Phone")).toBeNull();
    expect(problemAt("Extras")).toBeNull();
    expect(form().previousElementSibling!.textContent).toBe("Your form has encountered a problem. Please scroll down to review.");
    expect(form().previousElementSibling!.getAttribute("role")).toBe("alert");
    expect(form().nextElementSibling!.textContent).toBe("Your form has encountered a problem. Please scroll up to review.");
    // Screen readers: the inputs are invalid and described by their problem.
    const email = $<HTMLInputElement>("#email");
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(email.getAttribute("aria-describedby")!)!.textContent).toBe(m.EMAIL_INVALID);
    expect(document.activeElement).toBe($("#fname"));
    expect(api.to(KEY)).toHaveLength(0);
    // Fixed and sent again: the problems go.
    fillBooking();
    api.set(KEY, { body: { key: "k1" } });
    api.set(SAVE, { body: { success: true, submissionMessage: BOOKING.submissionMessage, submissionHtml: BOOKING.submissionHtml } });
    submit();
    await until(() => api.to(SAVE).length === 1, "the save");
    await settle();
    expect(document.querySelectorAll(".form-field-error, .tessera-form-message")).toHaveLength(0);
    expect(email.hasAttribute("aria-invalid")).toBe(false);
  });

  it("counts a limited text area's characters, in an error style past the limit", async () => {
    page(bookingMarkup);
    routeFetch({ [SCHEMA]: schema(BOOKING) });
    mount();
    await settle();
    const counter = $(".tessera-counter");
    expect(counter.textContent).toBe("0 / 10");
    expect($("#details").getAttribute("aria-describedby")).toBe(`details-desc ${counter.id}`);
    fill("#details", "12345678901");
    expect(counter.textContent).toBe("11 / 10");
    expect(counter.classList.contains("tessera-counter-over")).toBe(true);
    submit();
    await settle();
    expect(problemAt("Details")).toBe(m.CHARACTER_LIMIT);
    fill("#details", "1234567890");
    expect(counter.classList.contains("tessera-counter-over")).toBe(false);
  });

  it("locks with Submitting…, sends key, answers and page, then shows the message and HTML", async () => {
    page(bookingMarkup);
    document.title = "Contact — Quillback";
    document.body.id = "collection-fdcba73bab3e69c520a46766";
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const api = routeFetch({
      [SCHEMA]: schema(BOOKING),
      [KEY]: { body: { key: "k1" }, wait: held },
      [SAVE]: { body: { success: true, newsletter: false, submissionMessage: BOOKING.submissionMessage, submissionHtml: BOOKING.submissionHtml, successRedirect: null } },
    });
    mount();
    fillBooking();
    submit();
    await until(() => api.to(KEY).length === 1, "the key request");
    expect(button().textContent).toBe("Submitting…");
    expect(button().disabled).toBe(true);
    expect(form().getAttribute("aria-busy")).toBe("true");
    // A second submit while locked does nothing.
    submit();
    release();
    await until(() => form().hidden, "the form hidden");
    expect(api.to(KEY)).toHaveLength(1);
    const save = api.to(SAVE);
    expect(save).toHaveLength(1);
    expect(save[0].headers["X-CSRF-Token"]).toBe("tok");
    const { form: answers, ...rest } = save[0].body;
    expect(rest).toEqual({
      key: "k1",
      formId: "f1",
      pageTitle: "Contact — Quillback",
      pageId: "fdcba73bab3e69c520a46766",
      contentSource: "c",
      pagePath: "/",
      pagePermissionTypeValue: 1,
    });
    expect(JSON.parse(answers)).toEqual(collect(form(), BOOKING));
    const done = $(".tessera-form-success");
    expect(done.querySelector("p")!.textContent).toBe("Thanks! We reply within one working day.");
    expect(done.querySelector(".form-submission-html b")!.textContent).toBe("read our guide");
    expect(done.getAttribute("role")).toBe("status");
    expect(document.activeElement).toBe(done);
    document.body.id = "";
  });

  it("goes to the success redirect when the form has one", async () => {
    page(bookingMarkup);
    const go = vi.spyOn(navigate, "to").mockImplementation(() => {});
    routeFetch({
      [SCHEMA]: schema(BOOKING),
      [KEY]: { body: { key: "k1" } },
      [SAVE]: { body: { success: true, successRedirect: "/thanks" } },
    });
    mount();
    fillBooking();
    submit();
    await until(() => go.mock.calls.length > 0, "the redirect");
    expect(go).toHaveBeenCalledWith("/thanks");
    expect(form().hidden).toBe(false);
  });

  it("puts the server's field problems above their titles and opens the form again", async () => {
    page(bookingMarkup);
    const api = routeFetch({
      [SCHEMA]: schema(BOOKING),
      [KEY]: { body: { key: "k1" } },
      [SAVE]: {
        status: 400,
        body: { message: m.FORM_INVALID, errors: { bike: "Choose one of the options.", service: "Required", form: fm.FORM_UNPARSEABLE } },
      },
    });
    mount();
    fillBooking();
    submit();
    await until(() => api.to(SAVE).length === 1 && !button().disabled, "the refusal");
    expect(problemAt("Kind of bicycle")).toBe("Choose one of the options.");
    expect(problemAt("What does it need?")).toBe("Required");
    // A problem with no field of its own is the form's, by the button.
    expect($(".tessera-form-error").textContent).toBe(fm.FORM_UNPARSEABLE);
    expect(form().previousElementSibling!.textContent).toBe(fm.FORM_PROBLEM_ABOVE);
    expect(form().nextElementSibling!.textContent).toBe(fm.FORM_PROBLEM_BELOW);
    expect(button().textContent).toBe("Send request");
    expect(form().hidden).toBe(false);
  });

  const statuses: [number, Record<string, unknown>, string][] = [
    [401, { message: "x" }, "Unable to submit form. Please try again later."],
    [404, { message: "x" }, "This form has not been configured yet."],
    [429, { message: "x" }, "Unable to submit form. Submission rate limit exceeded. Please try again later."],
    [500, {}, "Unable to send form. Please try again later."],
    [503, { error: "Down for a moment." }, "Down for a moment."],
    [503, {}, "Unknown error, please try again later."],
    [403, { crumbFail: true, message: "x" }, "Error processing form submission. Please reload and try again."],
  ];
  for (const [status, body, text] of statuses) {
    it(`says "${text}" for a ${status} from SaveFormSubmission`, async () => {
      page(bookingMarkup);
      routeFetch({ [SCHEMA]: schema(BOOKING), [KEY]: { body: { key: "k" } }, [SAVE]: { status, body } });
      mount();
      fillBooking();
      submit();
      await until(() => document.querySelector(".tessera-form-error") !== null, "the message");
      expect($(".tessera-form-error").textContent).toBe(text);
      expect($(".tessera-form-error").getAttribute("role")).toBe("alert");
      expect(button().disabled).toBe(false);
      expect(button().textContent).toBe("Send request");
    });
  }

  it("a key that cannot be had, or a crumb failure there, is said as SPEC says", async () => {
    page(bookingMarkup);
    const api = routeFetch({ [SCHEMA]: schema(BOOKING), [KEY]: { status: 503, body: { message: "down" } } });
    mount();
    fillBooking();
    submit();
    await until(() => document.querySelector(".tessera-form-error") !== null, "the message");
    expect($(".tessera-form-error").textContent).toBe("Could not get a form submission key, please try again later.");
    api.set(KEY, { status: 403, body: { crumbFail: true, message: "x" } });
    submit();
    await until(() => $(".tessera-form-error")?.textContent === fm.FORM_CRUMB_FAILED, "the crumb message");
    expect(document.querySelectorAll(".tessera-form-error")).toHaveLength(1);
    expect(api.to(SAVE)).toHaveLength(0);
  });

  it("an unknown form is not configured", async () => {
    page(bookingMarkup);
    routeFetch({ [SCHEMA]: schema(NEWSLETTER) });
    mount();
    submit();
    await until(() => document.querySelector(".tessera-form-error") !== null, "the message");
    expect($(".tessera-form-error").textContent).toBe(fm.FORM_NOT_CONFIGURED);
  });

  it("a newsletter block is the same island", async () => {
    page(newsletterMarkup);
    const api = routeFetch({
      [SCHEMA]: schema(BOOKING, NEWSLETTER),
      [KEY]: { body: { key: "k" } },
      [SAVE]: { body: { success: true, newsletter: true, submissionMessage: "You're on the list." } },
    });
    mount();
    submit();
    await until(() => problemAt("Email address") !== null, "the problem");
    expect(problemAt("Email address")).toBe("Required");
    fill("#nl-email", "ada@example.com");
    submit();
    await until(() => form().hidden, "the form hidden");
    expect(JSON.parse(api.to(SAVE)[0].body.form)).toEqual({ email: "ada@example.com" });
    expect($(".tessera-form-success").textContent).toBe("You're on the list.");
  });
});

describe("a form with a captcha", () => {
  const CAPTCHA_FORM = { ...BOOKING, captcha: true };
  const challenge = (c: string) => ({ body: { provider: "proof-of-work", challenge: c, difficulty: 6 } });

  it("needs it ticked, sends its token, and after a refusal resets it and waits for it", async () => {
    page(bookingMarkup);
    const api = routeFetch({
      [SCHEMA]: schema(CAPTCHA_FORM),
      [CHALLENGE]: [challenge("c1.99.6.sig"), challenge("c2.99.6.sig")],
      [KEY]: { body: { key: "k1" } },
      [SAVE]: { status: 400, body: { message: fm.CAPTCHA_FAILED, errors: { captchaKey: fm.CAPTCHA_FAILED } } },
    });
    mount();
    await until(() => document.querySelector(".tessera-captcha-check") !== null, "the captcha");
    // Before the button, in a container of its own.
    expect($(".captcha-container").nextElementSibling).toBe($(".form-button-wrapper"));
    expect($(".tessera-captcha-label").textContent).toBe("I'm not a robot");
    fillBooking();
    submit();
    await until(() => document.querySelector(".tessera-captcha-error") !== null, "the captcha problem");
    expect($(".tessera-captcha-error").textContent).toBe("Complete CAPTCHA before submitting.");
    expect(form().previousElementSibling!.textContent).toBe(fm.FORM_PROBLEM_ABOVE);
    expect(api.to(KEY)).toHaveLength(0);

    $<HTMLInputElement>(".tessera-captcha-check").click();
    expect($(".tessera-captcha-status").textContent).toBe("Verifying…");
    await until(() => $(".tessera-captcha-status").textContent === "Verified", "the captcha solved");
    expect($<HTMLInputElement>(".tessera-captcha-check").checked).toBe(true);
    submit();
    await until(() => api.to(SAVE).length === 1 && form().getAttribute("aria-busy") === null, "the refusal");
    const token: string = api.to(SAVE)[0].body.captchaKey;
    // The token is the smallest nonce meeting the difficulty.
    expect(token.startsWith("c1.99.6.sig:")).toBe(true);
    const nonce = Number(token.split(":").pop());
    expect(meets(token, 6)).toBe(true);
    for (let n = 0; n < nonce; n++) expect(meets(`c1.99.6.sig:${n}`, 6)).toBe(false);
    // Refused: the message at the captcha, which starts over with a new challenge, and the
    // button waits for it.
    expect($(".tessera-captcha-error").textContent).toBe("reCAPTCHA failed. Refresh this page and try again.");
    expect($<HTMLInputElement>(".tessera-captcha-check").checked).toBe(false);
    expect(button().disabled).toBe(true);
    await until(() => api.to(CHALLENGE).length === 2, "a new challenge");
    $<HTMLInputElement>(".tessera-captcha-check").click();
    await until(() => !button().disabled, "the button open again");
    expect($(".tessera-captcha-status").textContent).toBe("Verified");
    api.set(SAVE, { body: { success: true, submissionMessage: "Thanks" } });
    submit();
    await until(() => form().hidden, "the success");
    expect(api.to(SAVE)[1].body.captchaKey.startsWith("c2.99.6.sig:")).toBe(true);
    expect(document.querySelector(".tessera-captcha")).toBeNull();
  });
});
