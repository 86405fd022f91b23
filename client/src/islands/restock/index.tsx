// Restock sign-up on sold-out variants (`.product-restock-notification`, one block per
// sold-out variant; SPEC.md §4 "Restock form"). A product with several variants has its
// blocks hidden until the visitor chooses a sold-out one (the variants island announces
// choices as `tessera:variant`); then that variant's block shows. The form's code and its
// captcha (./signup) load only when a block shows, so a product page whose sold-out
// variants nobody chooses pays for this watcher alone.

import { quoted } from "../../shared/dom";

/** Wires a showing block's form, once. */
function show(block: HTMLElement) {
  if (block.hidden || block.dataset.tesseraSignup) return;
  block.dataset.tesseraSignup = "1";
  void import("./signup").then((s) => s.enhance(block));
}

/** Shows the blocks of `itemId`'s chosen variant `sku`, hides its other chosen-only ones. */
export function choose(itemId: string | undefined, sku: string | null) {
  if (!itemId) return;
  for (const block of document.querySelectorAll<HTMLElement>(`.product-restock-notification[data-product-id=${quoted(itemId)}]`)) {
    if (block.dataset.tesseraWhenChosen !== "1") continue;
    block.hidden = block.dataset.variantId !== sku;
    show(block);
  }
}

let listening = false;

export function mount(root: ParentNode = document) {
  for (const block of root.querySelectorAll<HTMLElement>(".product-restock-notification")) {
    if (block.dataset.tesseraMounted) continue;
    block.dataset.tesseraMounted = "1";
    // Hidden by the server: one of several variants, shown only once chosen.
    if (block.hidden) block.dataset.tesseraWhenChosen = "1";
    show(block);
  }
  // A choice made before this island loaded.
  for (const v of root.querySelectorAll<HTMLElement>(".product-variants[data-item-id]")) {
    if (v.dataset.selectedSku !== undefined) choose(v.dataset.itemId, v.dataset.selectedSku || null);
  }
  if (!listening) {
    listening = true;
    window.addEventListener("tessera:variant", (e) => {
      const d = (e as CustomEvent<{ itemId?: string; sku: string | null }>).detail;
      choose(d?.itemId, d?.sku ?? null);
    });
  }
}
