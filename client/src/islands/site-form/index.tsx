// Site forms and newsletter blocks (`form[data-form-id]`; SPEC.md §4 "Form submission",
// §5 "Forms", §8 "Form submission"). The server's markup posts without JavaScript; with it,
// the island checks the answers first ("Required", the character limit, the email format,
// with SPEC's messages above and below the form), locks the form ("Submitting…"), asks for a
// submission key, sends the answers as JSON and then shows the form's submission message
// and HTML in its place (or goes to its success redirect). The server's problems are shown
// above their fields' titles, its refusals by status. The form's definition (field kinds,
// limits, captcha) comes from `GET /api/template/GetTemplateSchema?type=form`, once a page.
//
// The island works on the server's DOM rather than rendering the form itself, so the
// template's markup and styles stay the form's.

import { ApiError, call } from "../../shared/api";
import type { Captcha } from "../../shared/captcha";
import { quoted } from "../../shared/dom";
import * as m from "../../shared/messages";
import * as fm from "../../shared/messages-forms";
import type { Schemas } from "../../shared/types";
import { check, collect, length, type SiteFormDef } from "./answers";

const SUBMIT = "button[type=submit], input[type=submit], button:not([type])";

/** What SaveFormSubmission answers on success (`SavedAnswer`; its texts are the form's, as
 *  the owner wrote them). */
type Saved = Schemas["SavedAnswer"] & {
  submissionMessage?: string | null;
  submissionHtml?: string | null;
  successRedirect?: string | null;
};

/** Where a success redirect goes (a seam for the tests: jsdom cannot navigate). */
export const navigate = { to: (url: string) => window.location.assign(url) };

let schema: Promise<SiteFormDef[]> | null = null;

/** The site's forms, fetched once a page (again after a failure). */
export function definitions(): Promise<SiteFormDef[]> {
  if (!schema) {
    const answer = call<Schemas["TemplateSchema"] & { forms?: SiteFormDef[] }>("GET", "/api/template/GetTemplateSchema?type=form").then((s) => s.forms ?? []);
    answer.catch(() => {
      if (schema === answer) schema = null;
    });
    schema = answer;
  }
  return schema;
}

/** Forget the fetched forms (tests change the page). */
export function resetDefinitions() {
  schema = null;
}

/** SPEC §8: what the visitor reads about a refused submission, by status. */
export function failureMessage(e: unknown): string {
  if (!(e instanceof ApiError)) return fm.FORM_UNKNOWN_ERROR;
  if (e.crumbFail) return fm.FORM_CRUMB_FAILED;
  switch (e.status) {
    case 401:
      return fm.FORM_UNABLE_TO_SUBMIT;
    case 404:
      return fm.FORM_NOT_CONFIGURED;
    case 429:
      return fm.FORM_RATE_LIMITED;
    case 500:
      return fm.FORM_UNABLE_TO_SEND;
  }
  const { error, message } = e.body;
  if (typeof error === "string" && error) return error;
  if (typeof message === "string" && message) return message;
  return fm.FORM_UNKNOWN_ERROR;
}

/** The page's id for the submission (the template's `<body id="collection-…">`). */
function pageId(): string | null {
  return document.body.id ? document.body.id.replace(/^(collection|item)-/, "") : null;
}

let count = 0;

function enhance(form: HTMLFormElement) {
  const formId = form.dataset.formId!;
  const uid = `tessera-form-${++count}`;
  // Our checks say SPEC's words; the browser's own bubbles would stop the submit first.
  form.noValidate = true;
  const buttons = Array.from(form.querySelectorAll<HTMLButtonElement | HTMLInputElement>(SUBMIT));
  const labels = buttons.map((b) => (b instanceof HTMLInputElement ? b.value : b.textContent ?? ""));
  const buttonSpot = (buttons[0]?.closest(".form-button-wrapper") as HTMLElement | null) ?? buttons[0] ?? null;
  let captcha: Captcha | null = null;
  let captchaSpot: HTMLElement | null = null;
  let locked = false;
  // What the last submit showed, taken away by the next.
  let shown: (() => void)[] = [];

  const place = (el: HTMLElement) => {
    if (buttonSpot?.parentNode) buttonSpot.before(el);
    else form.append(el);
  };

  /** The controls of field `id` (likert's are `id[question]`). */
  const controlsOf = (id: string) =>
    Array.from(form.querySelectorAll<HTMLElement>(`[name=${quoted(id)}], [name^=${quoted(`${id}[`)}]`));

  const describe = (el: HTMLElement, id: string) => {
    const ids = (el.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
    el.setAttribute("aria-describedby", [...ids, id].join(" "));
    return () => {
      const rest = (el.getAttribute("aria-describedby") ?? "").split(" ").filter((x) => x && x !== id);
      if (rest.length) el.setAttribute("aria-describedby", rest.join(" "));
      else el.removeAttribute("aria-describedby");
    };
  };

  /** A problem above field `id`'s title: before its label, or first in its legend (a
   *  fieldset draws its legend first whatever comes before it). */
  const fieldProblem = (id: string, text: string): HTMLElement | null => {
    const controls = controlsOf(id);
    if (controls.length === 0) return null;
    const item = (controls[0].closest(".form-item") as HTMLElement | null) ?? controls[0].parentElement!;
    const title = item.querySelector(":scope > legend, :scope > label") ?? item.querySelector("legend, label");
    const p = document.createElement("span");
    p.className = "tessera-error form-field-error";
    p.id = `${uid}-${id}-problem`;
    p.textContent = text;
    if (title?.tagName === "LEGEND") title.prepend(p);
    else if (title) title.before(p);
    else item.prepend(p);
    shown.push(() => p.remove());
    for (const c of controls) {
      c.setAttribute("aria-invalid", "true");
      shown.push(describe(c, p.id), () => c.removeAttribute("aria-invalid"));
    }
    return controls[0];
  };

  /** A message of the whole form, above the submit button. */
  const formProblem = (text: string) => {
    const p = document.createElement("p");
    p.className = "tessera-error tessera-form-error";
    p.setAttribute("role", "alert");
    p.textContent = text;
    place(p);
    shown.push(() => p.remove());
  };

  /** Field problems (field id → message), with SPEC's messages above and below the form. */
  const problems = (found: Record<string, string>) => {
    let first: HTMLElement | null = null;
    for (const [id, text] of Object.entries(found)) {
      if (id === "captchaKey" && captcha) {
        captcha.showError(text);
        shown.push(() => captcha?.showError(null));
        first ??= captchaSpot?.querySelector("input") ?? null;
        continue;
      }
      const control = fieldProblem(id, text);
      // A problem with no field of its own (the `form` document itself) is the form's.
      if (control) {
        if (!first || first.compareDocumentPosition(control) & Node.DOCUMENT_POSITION_PRECEDING) first = control;
      } else formProblem(text);
    }
    const above = document.createElement("div");
    above.className = "tessera-form-message tessera-form-message-above";
    above.setAttribute("role", "alert");
    above.textContent = fm.FORM_PROBLEM_ABOVE;
    const below = document.createElement("div");
    below.className = "tessera-form-message tessera-form-message-below";
    below.textContent = fm.FORM_PROBLEM_BELOW;
    form.before(above);
    form.after(below);
    shown.push(() => above.remove(), () => below.remove());
    first?.focus();
  };

  const clear = () => {
    for (const undo of shown.splice(0).reverse()) undo();
  };

  const setButtons = (label: string | null, disabled: boolean) => {
    buttons.forEach((b, i) => {
      const text = label ?? labels[i];
      if (b instanceof HTMLInputElement) b.value = text;
      else b.textContent = text;
      b.disabled = disabled;
    });
  };

  const lock = () => {
    locked = true;
    form.setAttribute("aria-busy", "true");
    setButtons(m.SUBMITTING, true);
  };

  /** After a refusal: the form opens again; a bound captcha starts over, and the button
   *  waits for it (SPEC §4). */
  const unlock = () => {
    locked = false;
    form.removeAttribute("aria-busy");
    if (captcha) captcha.reset();
    setButtons(null, captcha !== null && captcha.token() === null);
  };

  const succeed = (saved: Saved, def: SiteFormDef) => {
    const redirect = saved.successRedirect ?? def.successRedirect;
    if (redirect) {
      navigate.to(redirect);
      return;
    }
    captcha?.destroy();
    form.hidden = true;
    const done = document.createElement("div");
    done.className = "form-submission-text tessera-form-success";
    done.setAttribute("role", "status");
    done.tabIndex = -1;
    const text = saved.submissionMessage ?? def.submissionMessage;
    if (text) {
      const p = document.createElement("p");
      p.className = "tessera-form-success-message";
      p.textContent = text;
      done.append(p);
    }
    const html = saved.submissionHtml ?? def.submissionHtml;
    if (html) {
      // The site owner's own HTML, as the server's answer page shows it.
      const div = document.createElement("div");
      div.className = "form-submission-html";
      div.innerHTML = html;
      done.append(div);
    }
    form.after(done);
    done.focus();
  };

  /** Counters under text areas with a limit ("used / max", an error style past it). */
  const counters = (def: SiteFormDef) => {
    for (const f of def.fields) {
      const area = form.querySelector<HTMLTextAreaElement>(`textarea[name=${quoted(f.id)}]`);
      if (!area || f.maxLength === undefined || area.dataset.tesseraCounter) continue;
      area.dataset.tesseraCounter = "1";
      const max = f.maxLength;
      const counter = document.createElement("span");
      counter.id = `${uid}-${f.id}-counter`;
      counter.className = "tessera-counter";
      area.after(counter);
      describe(area, counter.id);
      const update = () => {
        const used = length(area.value);
        counter.textContent = `${used} / ${max}`;
        counter.classList.toggle("tessera-counter-over", used > max);
      };
      area.addEventListener("input", update);
      update();
    }
  };

  let setup: Promise<SiteFormDef | null> | null = null;
  /** The form's definition, with its counters and captcha in place. */
  const ready = () => {
    setup ??= definitions().then(async (forms) => {
      const def = forms.find((f) => f.id === formId) ?? null;
      if (!def) return null;
      counters(def);
      if (def.captcha && !captcha) {
        const { mountCaptcha } = await import("../../shared/captcha");
        captchaSpot = document.createElement("div");
        captchaSpot.className = "captcha-container";
        place(captchaSpot);
        captcha = mountCaptcha(captchaSpot, (token) => {
          // A completed captcha opens a button a refusal closed.
          if (token && !locked) setButtons(null, false);
        });
        form.addEventListener("focusin", () => captcha?.prepare(), { once: true });
      }
      return def;
    });
    setup.catch(() => {
      setup = null;
    });
    return setup;
  };

  const submit = async () => {
    if (locked) return;
    clear();
    let def: SiteFormDef | null;
    try {
      def = await ready();
    } catch (e) {
      formProblem(failureMessage(e));
      return;
    }
    if (!def) {
      formProblem(fm.FORM_NOT_CONFIGURED);
      return;
    }
    const answers = collect(form, def, location.search);
    const found = check(def, answers);
    if (captcha && captcha.token() === null) found.captchaKey = fm.CAPTCHA_REQUIRED;
    if (Object.keys(found).length > 0) {
      problems(found);
      return;
    }
    lock();
    let key: string;
    try {
      key = (await call<Schemas["SubmissionKey"]>("POST", "/api/form/FormSubmissionKey")).key;
    } catch (e) {
      unlock();
      formProblem(e instanceof ApiError && e.crumbFail ? fm.FORM_CRUMB_FAILED : fm.FORM_KEY_FAILED);
      return;
    }
    try {
      const saved = await call<Saved>("POST", "/api/form/SaveFormSubmission", {
        key,
        formId,
        form: JSON.stringify(answers),
        ...(captcha ? { captchaKey: captcha.token() } : {}),
        pageTitle: document.title,
        pageId: pageId(),
        contentSource: "c",
        pagePath: location.pathname,
        pagePermissionTypeValue: 1,
      });
      locked = false;
      form.removeAttribute("aria-busy");
      setButtons(null, false);
      succeed(saved, def);
    } catch (e) {
      unlock();
      if (e instanceof ApiError && e.status === 400 && !e.crumbFail && Object.keys(e.errors).length > 0) problems(e.errors);
      else formProblem(failureMessage(e));
    }
  };

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void submit();
  });
  // The definition now, so counters and the captcha are there before the visitor types.
  ready().catch(() => {});
}

export function mount(root: ParentNode = document) {
  for (const form of root.querySelectorAll<HTMLFormElement>("form[data-form-id]")) {
    if (form.dataset.tesseraMounted) continue;
    form.dataset.tesseraMounted = "1";
    enhance(form);
  }
}
