import { afterEach, describe, expect, it, vi } from "vitest";
import { aboutText, mount, pillState } from "../src/islands/instalments/index";
import { mount as mountQuickView, productPart } from "../src/islands/quick-view/index";
import type { InstalmentPill } from "../src/shared/page";
import { page, settle } from "./helpers";

const pill: InstalmentPill = {
  provider: "afterpay",
  brand: "Afterpay",
  payments: 4,
  minimumCents: 100,
  maximumCents: 100000,
  inRange: true,
  installmentCents: 1050,
  text: "or €10.50 with",
};

afterEach(() => {
  vi.unstubAllGlobals();
  document.querySelectorAll(".tessera-modal-host").forEach((h) => h.remove());
});

describe("the instalment pill's texts", () => {
  it("in range: one payment; above the maximum and below the minimum: the limit", () => {
    expect(pillState(pill, 4200, "EUR", "en-US")).toEqual({ inRange: true, installmentCents: 1050, text: "or €10.50 with" });
    expect(pillState(pill, 100, "EUR", "en-US").text).toBe("or €0.25 with");
    expect(pillState(pill, 100001, "EUR", "en-US").text).toBe("available for orders up to €1,000.00");
    expect(pillState(pill, 99, "EUR", "en-US").text).toBe("available for orders over €1.00");
  });

  it("the popup says the payments when in range, and the limits always", () => {
    expect(aboutText(pill, pillState(pill, 4200, "EUR", "en-US"), "EUR", "en-US")).toEqual([
      "Pay in 4 interest-free payments of €10.50.",
      "Afterpay is available for orders from €1.00 to €1,000.00.",
    ]);
    expect(aboutText(pill, pillState(pill, 200000, "EUR", "en-US"), "EUR", "en-US")[0]).toBe("Pay in 4 interest-free payments.");
  });
});

const PRODUCT = `
<article class="product">
  <div class="product-price">€42.00</div>
  <div class="sqs-add-to-cart-button-wrapper"><div class="sqs-add-to-cart-button" data-item-id="i1">Add To Cart</div></div>
</article>`;

describe("the instalment pill", () => {
  it("shows under the price, follows the chosen variant's price, and its info button opens the popup", async () => {
    page(PRODUCT, { instalments: { i1: pill } });
    mount();
    await settle();
    const host = document.querySelector(".product-price + .tessera-instalments")!;
    expect(host.querySelector(".tessera-instalments-text")!.textContent).toBe("or €10.50 with Afterpay");
    window.dispatchEvent(new CustomEvent("tessera:price", { detail: { itemId: "i1", cents: 250000 } }));
    await settle();
    expect(host.querySelector(".tessera-instalments-text")!.textContent).toBe("Afterpay available for orders up to €1,000.00");
    // Another product's price changes nothing here.
    window.dispatchEvent(new CustomEvent("tessera:price", { detail: { itemId: "other", cents: 4000 } }));
    await settle();
    expect(host.querySelector(".tessera-instalments-text")!.textContent).toBe("Afterpay available for orders up to €1,000.00");
    host.querySelector<HTMLButtonElement>(".tessera-instalments-info")!.click();
    await settle();
    const popup = document.querySelector(".tessera-instalments-about")!;
    expect(popup.getAttribute("role")).toBe("dialog");
    expect(popup.querySelector(".tessera-modal-title")!.textContent).toBe("Afterpay");
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await settle();
    expect(document.querySelector(".tessera-instalments-about")).toBeNull();
  });

  it("takes the place of the server's line (the built-in product view): one line, not two", async () => {
    page(PRODUCT.replace("</div>\n", '</div>\n  <p class="product-installments">or €10.50 with Afterpay</p>\n'), { instalments: { i1: pill } });
    mount();
    await settle();
    expect(document.querySelectorAll(".product-installments").length).toBe(0);
    expect(document.querySelectorAll(".tessera-instalments").length).toBe(1);
    expect(document.body.textContent!.match(/with Afterpay/g)!.length).toBe(1);
  });

  it("does not show for products without one (digital goods, subscriptions, other markets)", async () => {
    page(PRODUCT, { instalments: {} });
    mount();
    await settle();
    expect(document.querySelector(".tessera-instalments")).toBeNull();
  });
});

describe("Quick View", () => {
  const productPage = `<html><head><title>Apron — Shop</title><script type="application/json" id="tessera-data">${JSON.stringify({ instalments: { i1: pill } })}</script></head>
    <body><nav class="breadcrumb"><a href="/shop">Shop</a></nav><article class="product"><h1>Linen Apron</h1>${PRODUCT.replace(/<\/?article[^>]*>/g, "")}<nav class="item-pagination"><a href="/next">Next</a></nav></article></body></html>`;

  it("takes the product part of the product page, without its heading and page links", () => {
    const part = productPart(productPage, "i1")!;
    expect(part.title).toBe("Linen Apron");
    expect(part.node.querySelector("h1")).toBeNull();
    expect(part.node.querySelector("nav")).toBeNull();
    expect(part.node.querySelector(".sqs-add-to-cart-button")!.getAttribute("data-item-id")).toBe("i1");
    expect(part.instalments.i1.brand).toBe("Afterpay");
    expect(productPart("<html><body><p>nothing</p></body></html>", "i1")).toBeNull();
  });

  it("opens the product in the lightbox with working islands; a modified click is left alone", async () => {
    page('<ul><li class="product-card"><h3>Linen Apron</h3><a class="sqs-product-quick-view-button" href="/shop/apron" data-id="i1">Quick View</a></li></ul>');
    const fetched: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        fetched.push(url);
        return new Response(productPage, { status: 200, headers: { "Content-Type": "text/html" } });
      }),
    );
    mountQuickView();
    const link = document.querySelector<HTMLAnchorElement>(".sqs-product-quick-view-button")!;
    expect(link.getAttribute("aria-haspopup")).toBe("dialog");
    const ctrl = new MouseEvent("click", { bubbles: true, cancelable: true, ctrlKey: true });
    link.dispatchEvent(ctrl);
    expect(document.querySelector(".tessera-quick-view")).toBeNull();
    const plain = new MouseEvent("click", { bubbles: true, cancelable: true });
    link.dispatchEvent(plain);
    expect(plain.defaultPrevented).toBe(true);
    await settle();
    await settle();
    await vi.waitFor(() => expect(document.querySelector(".tessera-quick-view .sqs-add-to-cart-button[data-tessera-mounted]")).not.toBeNull());
    const box = document.querySelector(".tessera-quick-view")!;
    expect(box.querySelector(".tessera-modal-title")!.textContent).toBe("Linen Apron");
    expect(box.querySelector(".tessera-instalments-text")!.textContent).toBe("or €10.50 with Afterpay");
    expect(box.querySelector<HTMLAnchorElement>(".tessera-quick-view-more")!.getAttribute("href")).toBe("/shop/apron");
    expect(fetched).toHaveLength(1);
  });
});
