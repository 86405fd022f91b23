// Quick View on product lists (SPEC.md §2 "Product detail page": a quick-view action, "Quick
// View"). The template's link (`.sqs-product-quick-view-button`, `href` the product's page,
// `data-id` its item id) goes to the product page without JavaScript; with it, the product
// opens in the lightbox instead: the product page's own product markup, fetched once, with
// the variants, quantity and add-to-cart islands mounted on it, so it behaves exactly as the
// page does. If the page cannot be fetched the link simply goes there.

import { quoted } from "../../shared/dom";
import * as m from "../../shared/messages";
import { Modal, openModal } from "../../shared/modal";
import type { InstalmentPill } from "../../shared/page";

const LOADING = "Loading…";

/** The product markup of a product page: its add-to-cart button's product element. */
export function productPart(
  html: string,
  itemId: string | undefined,
): { title: string; node: Element; instalments: Record<string, InstalmentPill> } | null {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const selector = itemId ? `.sqs-add-to-cart-button[data-item-id=${quoted(itemId)}]` : ".sqs-add-to-cart-button";
  const button = doc.querySelector(selector) ?? doc.querySelector(".product-variants, .sqs-add-to-cart-button");
  const root = button?.closest("article, .product, .ProductItem, .item") ?? doc.querySelector("article.product, .ProductItem");
  if (!root) return null;
  const heading = root.querySelector("h1");
  const title = heading?.textContent?.trim() || doc.title;
  // The lightbox has its own title; the page's prev/next links do not belong in it.
  heading?.remove();
  for (const n of root.querySelectorAll(".item-pagination, .pagination, nav")) n.remove();
  // The product page's own data has the product's instalment pill.
  let instalments: Record<string, InstalmentPill> = {};
  try {
    instalments = JSON.parse(doc.getElementById("tessera-data")?.textContent || "{}").instalments ?? {};
  } catch {
    instalments = {};
  }
  return { title, node: document.importNode(root, true), instalments };
}

async function mountIslands(root: ParentNode, instalments: Record<string, InstalmentPill>) {
  const [variants, quantity, add, pill] = await Promise.all([
    import("../variants/index"),
    import("../quantity/index"),
    import("../add-to-cart/index"),
    import("../instalments/index"),
  ]);
  pill.mount(root, instalments);
  variants.mount(root);
  quantity.mount(root);
  add.mount(root);
  // A sold-out product's restock sign-up, only when it has one (most do not).
  if (root.querySelector(".product-restock-notification")) (await import("../restock/index")).mount(root);
}

export async function open(link: HTMLAnchorElement) {
  const href = link.href;
  const label = link.closest("li, article, .product-card")?.querySelector("h2, h3")?.textContent?.trim() || m.QUICK_VIEW;
  const { host, close } = openModal((close) => (
    <Modal title={label} onClose={close} className="tessera-quick-view">
      <div class="tessera-quick-view-body" aria-busy="true">
        <p>{LOADING}</p>
      </div>
    </Modal>
  ));
  let part: ReturnType<typeof productPart> = null;
  try {
    const r = await fetch(href, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (r.ok) part = productPart(await r.text(), link.dataset.id);
  } catch {
    part = null;
  }
  if (!host.isConnected) return; // closed while loading
  if (!part) {
    close();
    window.location.assign(href);
    return;
  }
  const body = host.querySelector<HTMLElement>(".tessera-quick-view-body")!;
  const title = host.querySelector(".tessera-modal-title");
  if (title) title.textContent = part.title;
  host.querySelector(".tessera-modal")?.setAttribute("aria-label", part.title);
  // The loading note goes; the lightbox does not render again, so this stays.
  body.textContent = "";
  body.appendChild(part.node);
  body.removeAttribute("aria-busy");
  const more = document.createElement("a");
  more.className = "tessera-quick-view-more";
  more.href = link.getAttribute("href") ?? href;
  more.textContent = "View full details";
  body.appendChild(more);
  await mountIslands(body, part.instalments);
}

export function mount(root: ParentNode = document) {
  for (const link of root.querySelectorAll<HTMLAnchorElement>("a.sqs-product-quick-view-button")) {
    if (link.dataset.tesseraMounted) continue;
    link.dataset.tesseraMounted = "1";
    link.setAttribute("aria-haspopup", "dialog");
    link.addEventListener("click", (e) => {
      // A new tab or window is the visitor's choice.
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      open(link);
    });
  }
}
