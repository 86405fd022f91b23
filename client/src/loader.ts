// The one script a page includes (as a module: never render-blocking). It loads only the
// islands whose markup the page has, each from its own bundle, and the cart pill once the
// visitor's cart has something in it.

import { pageData } from "./shared/page";

type Island = { mount: () => void };

const islands: [string, () => Promise<Island>][] = [
  [".product-variants", () => import("./islands/variants/index")],
  [".product-quantity-input", () => import("./islands/quantity/index")],
  [".sqs-add-to-cart-button", () => import("./islands/add-to-cart/index")],
  [".sqs-custom-cart, .sqs-cart-quantity", () => import("./islands/cart-widget/index")],
  ["#sqs-cart-root", () => import("./islands/cart/index")],
  ["#sqs-checkout-root", () => import("./islands/checkout/index")],
  ["a.sqs-product-quick-view-button", () => import("./islands/quick-view/index")],
  ["form[data-form-id]", () => import("./islands/site-form/index")],
  [".product-restock-notification", () => import("./islands/restock/index")],
  ['[data-island="member-access"]', () => import("./islands/member-access/index")],
  [".squarespace-comments[data-item-id]", () => import("./islands/comments/index")],
  [".sqs-simple-like[data-item-id]", () => import("./islands/like/index")],
];

for (const [selector, load] of islands) {
  if (document.querySelector(selector)) load().then((i) => i.mount());
}
if (Object.keys(pageData().instalments ?? {}).length > 0) {
  import("./islands/instalments/index").then((i) => i.mount());
}

// Errors, performance and member-area events; the site's plan status.
if (pageData().analytics || pageData().websiteStatus) import("./islands/analytics/index").then((i) => i.mount());
// A member's bar: the cookie's presence is enough to load it (the bar reads it properly).
if (/(^|;\s*)SiteUserInfo=/.test(document.cookie)) import("./islands/member-bar/index").then((i) => i.mount());

let pill = false;
const wantPill = (quantity: number) => {
  if (pill || quantity <= 0) return;
  pill = true;
  import("./islands/cart-pill/index").then((i) => i.mount());
};
wantPill(pageData().cart?.totalQuantity ?? 0);
window.addEventListener("tessera:cart", (e) => wantPill((e as CustomEvent).detail?.totalQuantity ?? 0));
