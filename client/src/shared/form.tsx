// A form's fields as visitors fill them in (SPEC.md §3 "Form", §5 "Forms"): the field kinds a
// product's additional-fields form uses, their local checks ("Required", the character
// limit, the email format) and their answers as `{fieldId: value}`. The lightbox around them
// is the caller's.

import { useState } from "react";
import * as m from "./messages";

export interface FormField {
  id: string;
  type: "text" | "textarea" | "email" | "number" | "select" | "radio" | "checkbox" | "hidden" | string;
  title?: string;
  description?: string;
  placeholder?: string;
  required?: boolean;
  options?: string[];
  maxLength?: number;
  value?: string;
}

export interface FormDef {
  id?: string;
  name?: string;
  fields: FormField[];
}

export type Answer = string | string[];
export type Answers = Record<string, Answer>;

/** A form definition from JSON (a `data-form` attribute, an entry's form), or null. */
export function readForm(raw: unknown): FormDef | null {
  let v = raw;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (!v || typeof v !== "object" || !Array.isArray((v as FormDef).fields)) return null;
  const fields = (v as FormDef).fields.filter((f) => f && typeof f.id === "string" && f.type !== "section");
  return { ...(v as FormDef), fields };
}

/** Answers from stored additional fields (a JSON document or an object), else none. */
export function readAnswers(raw: unknown): Answers {
  let v = raw;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      return {};
    }
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return {};
  const out: Answers = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (typeof x === "string") out[k] = x;
    else if (Array.isArray(x)) out[k] = x.map(String);
    else if (x !== null && x !== undefined) out[k] = String(x);
  }
  return out;
}

/** `local@domain.tld`, as forms and checkout check it before sending. */
export function isEmail(text: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text);
}

function empty(a: Answer | undefined): boolean {
  return a === undefined || (Array.isArray(a) ? a.length === 0 : a.trim() === "");
}

/** Field id → problem, for what the visitor entered. */
export function validate(form: FormDef, answers: Answers): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const f of form.fields) {
    if (f.type === "hidden") continue;
    const a = answers[f.id];
    if (f.required && empty(a)) {
      problems[f.id] = m.REQUIRED;
      continue;
    }
    const text = typeof a === "string" ? a : "";
    if (f.maxLength && text.length > f.maxLength) problems[f.id] = m.CHARACTER_LIMIT;
    else if (f.type === "email" && text.trim() !== "" && !isEmail(text.trim())) problems[f.id] = m.EMAIL_INVALID;
  }
  return problems;
}

/** The answers to send: every field, hidden ones with their own value. */
export function answersOf(form: FormDef, answers: Answers): Answers {
  const out: Answers = {};
  for (const f of form.fields) {
    out[f.id] = f.type === "hidden" ? (f.value ?? "") : (answers[f.id] ?? (f.type === "checkbox" ? [] : ""));
  }
  return out;
}

/** How an answer reads back ("N/A" when unanswered). */
export function answerText(a: Answer | undefined): string {
  if (empty(a)) return m.NOT_ANSWERED;
  return Array.isArray(a) ? a.join(", ") : a!;
}

let ids = 0;

/** The fields, filled in from `answers`; `problems` shows above each field's title. */
export function Fields(props: { form: FormDef; answers: Answers; problems: Record<string, string>; onAnswer: (id: string, a: Answer) => void }) {
  const { form, answers, problems, onAnswer } = props;
  const [prefix] = useState(() => `tessera-field-${++ids}`);
  return (
    <div class="tessera-fields">
      {form.fields
        .filter((f) => f.type !== "hidden")
        .map((f) => {
          const id = `${prefix}-${f.id}`;
          const problem = problems[f.id];
          const described = [problem && `${id}-problem`, f.description && `${id}-description`].filter(Boolean).join(" ") || undefined;
          const a = answers[f.id];
          const text = typeof a === "string" ? a : "";
          const set = (e: Event) => onAnswer(f.id, (e.target as HTMLInputElement).value);
          const common = {
            id,
            name: f.id,
            required: f.required,
            "aria-invalid": problem ? ("true" as const) : undefined,
            "aria-describedby": described,
          };
          let control;
          if (f.type === "textarea") {
            const over = f.maxLength !== undefined && text.length > f.maxLength;
            control = (
              <>
                <textarea {...common} rows={4} placeholder={f.placeholder} value={text} onInput={set} />
                {f.maxLength !== undefined && (
                  <span class={`tessera-counter${over ? " tessera-counter-over" : ""}`}>
                    {text.length} / {f.maxLength}
                  </span>
                )}
              </>
            );
          } else if (f.type === "select") {
            control = (
              <select {...common} value={text} onChange={set}>
                <option value="">{m.SELECT_VALUE}</option>
                {(f.options ?? []).map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            );
          } else if (f.type === "radio" || f.type === "checkbox") {
            const chosen = Array.isArray(a) ? a : a ? [a] : [];
            return (
              <fieldset key={f.id} class={`tessera-field${f.required ? " required" : ""}`} aria-describedby={described}>
                {problem && (
                  <p id={`${id}-problem`} class="tessera-error">
                    {problem}
                  </p>
                )}
                <legend>{f.title}</legend>
                {f.description && <p id={`${id}-description`} class="tessera-description">{f.description}</p>}
                {(f.options ?? []).map((o, i) => (
                  <label key={o} class="tessera-choice">
                    <input
                      type={f.type === "radio" ? "radio" : "checkbox"}
                      name={id}
                      id={i === 0 ? id : undefined}
                      value={o}
                      checked={chosen.includes(o)}
                      onChange={(e) => {
                        const on = (e.target as HTMLInputElement).checked;
                        if (f.type === "radio") onAnswer(f.id, o);
                        else onAnswer(f.id, on ? [...chosen, o] : chosen.filter((c) => c !== o));
                      }}
                    />{" "}
                    {o}
                  </label>
                ))}
              </fieldset>
            );
          } else {
            const props = { ...common, placeholder: f.placeholder, value: text, onInput: set };
            control =
              f.type === "email" ? (
                <input {...props} type="email" autoComplete="email" />
              ) : f.type === "number" ? (
                <input {...props} type="number" />
              ) : (
                <input {...props} type="text" />
              );
          }
          return (
            <div key={f.id} class={`tessera-field${f.required ? " required" : ""}`}>
              {problem && (
                <p id={`${id}-problem`} class="tessera-error">
                  {problem}
                </p>
              )}
              <label for={id}>
                {f.title}
                {f.required && <span aria-hidden="true"> *</span>}
              </label>
              {f.description && <p id={`${id}-description`} class="tessera-description">{f.description}</p>}
              {control}
            </div>
          );
        })}
    </div>
  );
}
