// A site form's answers as its markup holds them (SPEC.md §3 "Form"), and the checks the
// server makes on them (§5 "Forms"), so the visitor hears about a problem before anything is
// sent. The markup follows the no-JavaScript convention the server reads as well: every
// control's `name` is its field's id; list-valued kinds repeat that name (name, address,
// phone, time, checkbox, and date when split into parts); likert sends `ID[question]`.

import * as m from "../../shared/messages";
import type { Schemas } from "../../shared/types";

export interface SiteField {
  id: string;
  type: string;
  title?: string;
  required?: boolean;
  maxLength?: number;
  options?: string[];
  /** A hidden field's own value, and the query parameter that overrides it. */
  value?: string;
  key?: string;
}

/** One form of `GET /api/template/GetTemplateSchema?type=form` (`PublicForm`). The document
 *  leaves the form's own JSON (its fields and texts) free-form; this is what the island reads
 *  of it. */
export type SiteFormDef = Schemas["PublicForm"] & {
  fields: SiteField[];
  submissionMessage?: string | null;
  submissionHtml?: string | null;
  successRedirect?: string | null;
  disclaimer?: string | null;
};

export type SiteAnswer = string | string[] | Record<string, string>;

/** Kinds whose answer is a list of parts (a phone of 3 parts gets its empty country code
 *  from the server). */
const PARTS = new Set(["name", "address", "phone", "time"]);
/** Kinds whose answer is one of the options. */
const CHOICE = new Set(["radio", "select"]);

/** The form's controls named `name`, in document order. */
function controls(form: HTMLFormElement, name: string): (HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement)[] {
  return Array.from(form.elements).filter(
    (el): el is HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement => (el as HTMLInputElement).name === name,
  );
}

/** What a control contributes: nothing for an unchecked box. */
function given(el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): string | null {
  if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) return el.checked ? el.value : null;
  return el.value;
}

/** Field id → answer, in the shapes SaveFormSubmission takes. Section fields hold nothing;
 *  a hidden field takes the page's query parameter of its name (`search`) when there is one. */
export function collect(form: HTMLFormElement, def: Pick<SiteFormDef, "fields">, search = ""): Record<string, SiteAnswer> {
  const query = new URLSearchParams(search);
  const out: Record<string, SiteAnswer> = {};
  for (const f of def.fields) {
    if (f.type === "section") continue;
    const values = controls(form, f.id)
      .map(given)
      .filter((v): v is string => v !== null);
    if (f.type === "likert") {
      const answers: Record<string, string> = {};
      const prefix = `${f.id}[`;
      for (const el of Array.from(form.elements) as HTMLInputElement[]) {
        if (!el.name?.startsWith(prefix) || !el.name.endsWith("]")) continue;
        const v = given(el);
        if (v !== null && v !== "") answers[el.name.slice(prefix.length, -1)] = v;
      }
      out[f.id] = answers;
    } else if (f.type === "checkbox" || PARTS.has(f.type) || (f.type === "date" && values.length > 1)) {
      out[f.id] = values;
    } else if (f.type === "hidden") {
      const param = [f.id, f.key].find((n): n is string => !!n && query.has(n));
      out[f.id] = param ? query.get(param)! : (values[0] ?? f.value ?? "");
    } else {
      // Text kinds, a select, and a radio group's first checked value.
      out[f.id] = values[0] ?? "";
    }
  }
  return out;
}

/** `local@domain.tld` as the server's form check has it: one `@`, no spaces, a dot in the
 *  domain with a host before it and at least two characters after. */
export function formEmailOk(text: string): boolean {
  const at = text.indexOf("@");
  if (at <= 0 || /\s/.test(text)) return false;
  const domain = text.slice(at + 1);
  const dot = domain.lastIndexOf(".");
  return !domain.includes("@") && dot > 0 && domain.length - dot - 1 >= 2;
}

/** Characters as the server counts them (code points, so an emoji is one). */
export function length(text: string): number {
  return Array.from(text).length;
}

function blank(a: SiteAnswer | undefined): boolean {
  if (a === undefined) return true;
  if (typeof a === "string") return a.trim() === "";
  if (Array.isArray(a)) return a.every((p) => p.trim() === "");
  return false;
}

/** Field id → problem ("Required", the character limit, the email format), as the server
 *  would find them. Likert is never required; hidden fields are the page's. */
export function check(def: Pick<SiteFormDef, "fields">, answers: Record<string, SiteAnswer>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const f of def.fields) {
    if (f.type === "section" || f.type === "hidden" || f.type === "likert") continue;
    const a = answers[f.id];
    if (f.required && blank(a)) {
      problems[f.id] = m.REQUIRED;
      continue;
    }
    if (typeof a !== "string" || CHOICE.has(f.type)) continue;
    if (f.maxLength !== undefined && length(a) > f.maxLength) problems[f.id] = m.CHARACTER_LIMIT;
    else if (f.type === "email" && a.trim() !== "" && !formEmailOk(a.trim())) problems[f.id] = m.EMAIL_INVALID;
  }
  return problems;
}
