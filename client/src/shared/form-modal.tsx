// A form in the modal lightbox (SPEC.md §2 "Additional-fields form", §4 "Form submission"):
// the fields, checked here first ("One or more fields is invalid, please check your
// entries."), then locked with the busy label ("Saving…" in the cart, "Submitting…" when
// adding) while `submit` runs; it closes on success and shows why not otherwise, unlocked.
// Escape and the close button cancel.

import { useState } from "react";
import { failureText } from "./api";
import { type Answer, type Answers, type FormDef, Fields, answersOf, validate } from "./form";
import * as m from "./messages";
import { Modal, openModal } from "./modal";

export interface FormModalOptions {
  title: string;
  form: FormDef;
  answers?: Answers;
  submitLabel: string;
  busyLabel: string;
  /** The title of a failed submit's message ("Unable to update form"). */
  failureTitle: string;
  submit: (answers: Answers) => Promise<void>;
}

function FormBox(props: FormModalOptions & { close: (done: boolean) => void }) {
  const { form, close } = props;
  const [answers, setAnswers] = useState<Answers>(props.answers ?? {});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const onAnswer = (id: string, a: Answer) => setAnswers((old) => ({ ...old, [id]: a }));
  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const found = validate(form, answers);
    setProblems(found);
    if (Object.keys(found).length > 0) {
      setMessage(m.FORM_INVALID);
      return;
    }
    setMessage("");
    setBusy(true);
    try {
      await props.submit(answersOf(form, answers));
      close(true);
    } catch (err) {
      setBusy(false);
      setMessage(`${props.failureTitle}. ${failureText(err)}`);
    }
  };
  return (
    <Modal title={props.title} onClose={busy ? undefined : () => close(false)} className="tessera-form-modal">
      <form onSubmit={submit} noValidate aria-busy={busy ? "true" : undefined}>
        <fieldset disabled={busy} class="tessera-plain-fieldset">
          <Fields form={form} answers={answers} problems={problems} onAnswer={onAnswer} />
        </fieldset>
        {message && (
          <p class="tessera-error tessera-form-message" role="alert">
            {message}
          </p>
        )}
        <div class="tessera-modal-actions">
          {/* Not disabled while busy: focus stays on it, inside the dialog. */}
          <button type="submit" class="tessera-button" aria-disabled={busy ? "true" : undefined}>
            {busy ? props.busyLabel : props.submitLabel}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Opens the form; resolves true once submitted, false when the visitor closes it. */
export function openFormModal(o: FormModalOptions): Promise<boolean> {
  return new Promise((resolve) => {
    openModal((close) => (
      <FormBox
        {...o}
        close={(done) => {
          close();
          resolve(done);
        }}
      />
    ));
  });
}
