import { describe, expect, it } from "vitest";
import { mount as mountPill, shows } from "../src/islands/cart-pill/index";
import { mount as mountWidget } from "../src/islands/cart-widget/index";
import { setCart } from "../src/shared/cart";
import { countLabel, countText } from "../src/shared/count";
import { page, settle } from "./helpers";

const summary = (n: number) => ({ totalQuantity: n, subtotalCents: 2350, currency: "EUR" });

describe("the cart count", () => {
  it("caps at 100+ and says so", () => {
    expect(countText(100)).toBe("100");
    expect(countText(101)).toBe("100+");
    expect(countLabel(101)).toBe("More than 100 items in cart");
    expect(countLabel(1)).toBe("1 item in cart");
  });
});

describe("the floating pill", () => {
  const where = { path: "/shop", express: false, customCart: false };
  it("shows only with items, off the cart page, without express checkout or a custom cart", () => {
    expect(shows(summary(2), where)).toBe(true);
    expect(shows(summary(0), where)).toBe(false);
    expect(shows(null, where)).toBe(false);
    expect(shows(summary(2), { ...where, path: "/cart" })).toBe(false);
    expect(shows(summary(2), { ...where, express: true })).toBe(false);
    expect(shows(summary(2), { ...where, customCart: true })).toBe(false);
  });

  it("shows the count and subtotal, and follows the cart", async () => {
    page("<main></main>", { cart: summary(3) });
    mountPill();
    await settle();
    const pill = document.querySelector<HTMLAnchorElement>(".tessera-cart-pill")!;
    expect(pill.getAttribute("href")).toBe("/cart");
    expect(pill.querySelector(".tessera-cart-pill-count")!.textContent).toBe("3");
    expect(pill.querySelector(".tessera-cart-pill-subtotal")!.textContent).toBe("€23.50");
    setCart(summary(150));
    await settle();
    expect(document.querySelector(".tessera-cart-pill-count")!.textContent).toBe("100+");
    expect(document.querySelector(".tessera-cart-pill .tessera-sr-only")!.textContent).toBe("More than 100 items in cart");
    expect(document.querySelector(".tessera-cart-pill-count")!.getAttribute("aria-hidden")).toBe("true");
    setCart(summary(0));
    await settle();
    expect(document.querySelector(".tessera-cart-pill")).toBeNull();
  });
});

describe("the template's cart widget", () => {
  it("is uninitialised until the first sync, then marks an empty cart", () => {
    page('<a class="sqs-custom-cart" href="/cart"><span class="sqs-cart-quantity">0</span><span class="sqs-cart-subtotal"></span></a>');
    const link = document.querySelector(".sqs-custom-cart")!;
    expect(link.classList.contains("cart-initialized")).toBe(false);
    mountWidget();
    expect(link.classList.contains("cart-initialized")).toBe(true);
    expect(link.classList.contains("sqs-cart-empty")).toBe(true);
    setCart(summary(2));
    expect(link.classList.contains("sqs-cart-empty")).toBe(false);
    expect(document.querySelector(".sqs-cart-quantity")!.textContent).toBe("2");
    expect(document.querySelector(".sqs-cart-subtotal")!.textContent).toBe("€23.50");
    setCart(summary(120));
    expect(document.querySelector(".sqs-cart-quantity")!.textContent).toBe("100+");
    expect(link.querySelector(".tessera-cart-label")!.textContent).toBe("More than 100 items in cart");
    expect(link.querySelectorAll(".tessera-cart-label")).toHaveLength(1);
    expect(link.querySelector(".sqs-cart-quantity")!.getAttribute("aria-hidden")).toBe("true");
    expect(link.hasAttribute("aria-label")).toBe(false);
    setCart(summary(0));
    expect(document.querySelector(".sqs-cart-subtotal")!.textContent).toBe("");
    expect(link.classList.contains("sqs-cart-empty")).toBe(true);
  });
});
