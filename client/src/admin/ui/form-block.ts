// The rich-text editor's form block: one of the site's forms placed in a page's or item's
// text. The editor shows it as a card ("Form: Booking") that cannot be typed into; it is
// stored as an empty placeholder the server's sanitizer keeps and the site fills with the
// form, drawn from its saved definition (api/src/pages/site_bridge/form_blocks.rs):
//
//   <div class="sqs-block form-block sqs-block-form" data-block-type="9" data-form-id="ID"></div>
//
// A block whose form was deleted shows nothing to visitors; the card says so.
import { Node } from "@tiptap/core";
import { get } from "../api/client";
import type { FormList } from "../api/types";

export const FORM_BLOCK_CLASS = "sqs-block form-block sqs-block-form";

/** A form id the placeholder may name (the server's `form_blocks::valid_id`). */
export function validFormId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(id);
}

/** The placeholder element of form `id`. */
export function isFormPlaceholder(el: Element): boolean {
  return el.tagName === "DIV" && el.getAttribute("data-block-type") === "9" && validFormId(el.getAttribute("data-form-id") ?? "") && el.childNodes.length === 0;
}

let forms: Promise<FormList["forms"]> | null = null;

/** The site's forms (once per editor session; again after a failure or `fresh`). */
export function siteForms(fresh = false): Promise<FormList["forms"]> {
  if (!forms || fresh) {
    const answer = get<FormList>("/api/owner/forms").then((l) => l.forms);
    answer.catch(() => {
      if (forms === answer) forms = null;
    });
    forms = answer;
  }
  return forms;
}

/** Forget the fetched forms (tests change the site). */
export function resetSiteForms() {
  forms = null;
}

/** What a card says of form `id`. */
export function cardLabel(id: string, list: FormList["forms"] | null): string {
  if (!list) return "Form";
  const f = list.find((x) => x.id === id);
  return f ? `Form: ${f.name}` : "Form: (deleted; visitors see nothing here)";
}

declare module "@tiptap/core" {
  interface Commands<ReturnType> {
    formBlock: { insertForm: (formId: string) => ReturnType };
  }
}

export const FormBlock = Node.create({
  name: "formBlock",
  group: "block",
  atom: true,
  selectable: true,
  draggable: true,
  addAttributes() {
    return { formId: { default: "", rendered: false } };
  },
  parseHTML() {
    return [
      {
        tag: 'div[data-block-type="9"][data-form-id]',
        getAttrs: (el) => {
          const id = (el as HTMLElement).getAttribute("data-form-id") ?? "";
          return isFormPlaceholder(el as HTMLElement) ? { formId: id } : false;
        },
      },
    ];
  },
  renderHTML({ node }) {
    return ["div", { class: FORM_BLOCK_CLASS, "data-block-type": "9", "data-form-id": node.attrs.formId as string }];
  },
  addCommands() {
    return {
      insertForm:
        (formId: string) =>
        ({ commands }) =>
          commands.insertContent({ type: this.name, attrs: { formId } }),
    };
  },
  addNodeView() {
    return ({ node }) => {
      const dom = document.createElement("div");
      dom.className = "rich-text-form-block";
      dom.setAttribute("contenteditable", "false");
      dom.setAttribute("role", "group");
      const id = node.attrs.formId as string;
      const say = (text: string) => {
        dom.textContent = text;
        dom.setAttribute("aria-label", text);
      };
      say(cardLabel(id, null));
      siteForms().then(
        (list) => say(cardLabel(id, list)),
        () => {},
      );
      return { dom };
    };
  },
});
