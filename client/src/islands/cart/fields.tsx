// An entry's additional fields on the cart page: each answer under its field's title ("N/A"
// when unanswered), and Edit, which opens the product's form in the lightbox with the
// answers filled in and saves them ("Saving…"; "Unable to update form" when it cannot).

import { failureText } from "../../shared/api";
import { setFields } from "../../shared/cart-api";
import { type FormDef, answerText, readAnswers, readForm } from "../../shared/form";
import { openFormModal } from "../../shared/form-modal";
import * as m from "../../shared/messages";
import { alertModal } from "../../shared/modal";
import type { Entry, FullCart } from "../../shared/types";

export const EDIT = "Edit";
export const SAVE = "Save";

/** The entry's form, when the product still has one. */
function formOf(entry: Entry): FormDef | null {
  return readForm(entry.additionalFieldsForm ?? null);
}

export async function editFields(entry: Entry, onCart: (c: FullCart) => void) {
  const form = formOf(entry);
  if (!form) {
    await alertModal(m.UNABLE_TO_OPEN_FORM, m.PLEASE_TRY_AGAIN);
    return;
  }
  await openFormModal({
    title: form.name || entry.title,
    form,
    answers: readAnswers(entry.additionalFields),
    submitLabel: SAVE,
    busyLabel: m.SAVING,
    failureTitle: m.UNABLE_TO_UPDATE_FORM,
    submit: async (answers) => {
      onCart(await setFields(entry.id, entry.itemId, entry.chosenVariant.sku, answers));
    },
  });
}

export function FieldsSummary({ entry, onCart }: { entry: Entry; onCart: (c: FullCart) => void }) {
  const answers = readAnswers(entry.additionalFields);
  if (Object.keys(answers).length === 0) return null;
  const form = formOf(entry);
  const rows = form
    ? form.fields.filter((f) => f.type !== "hidden").map((f) => [f.title ?? f.id, answerText(answers[f.id])] as const)
    : Object.entries(answers).map(([k, a]) => [k, answerText(a)] as const);
  return (
    <div class="tessera-cart-entry-fields">
      <dl>
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <button
        type="button"
        class="tessera-link-button"
        aria-label={`${EDIT} ${entry.title}`}
        onClick={() => editFields(entry, onCart).catch((e) => alertModal(m.UNABLE_TO_OPEN_FORM, failureText(e)))}
      >
        {EDIT}
      </button>
    </div>
  );
}
