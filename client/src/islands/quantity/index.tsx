// The quantity input (SPEC.md §2, §5): from 1 to 9999, whole numbers; a wrong entry says
// "Quantity must be a number." or "Quantity must be a whole number" under the input.

import { render } from "react-dom";
import { checkQuantity } from "../../shared/quantity";

function Problem({ id, text }: { id: string; text: string }) {
  return text ? (
    <p id={id} class="tessera-quantity-error" role="alert">
      {text}
    </p>
  ) : null;
}

let count = 0;

export function mount(root: ParentNode = document) {
  for (const box of root.querySelectorAll<HTMLElement>(".product-quantity-input")) {
    const input = box.querySelector<HTMLInputElement>("input");
    if (!input || box.dataset.tesseraMounted) continue;
    box.dataset.tesseraMounted = "1";
    const id = `tessera-quantity-${++count}`;
    const host = document.createElement("div");
    box.appendChild(host);
    const check = () => {
      const q = checkQuantity(input.value);
      const text = q.ok ? "" : q.message;
      input.setAttribute("aria-invalid", String(!q.ok));
      if (q.ok) input.removeAttribute("aria-describedby");
      else input.setAttribute("aria-describedby", id);
      render(<Problem id={id} text={text} />, host);
    };
    input.addEventListener("input", check);
    input.addEventListener("change", check);
  }
}
