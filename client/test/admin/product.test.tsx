import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { slug } from "../../src/admin/screens/product";
import { heading, me, money, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const COLLECTIONS = {
  collections: [
    { id: "blog1", title: "Journal", type: 1 },
    { id: "store1", title: "Shop", type: 13 },
  ],
};
const APRON = {
  id: "p1",
  title: "Linen potting apron",
  urlId: "linen-potting-apron",
  body: "<p>Sturdy.</p>",
  productType: 1,
  variants: [{ sku: "LPA-L-OAT", attributes: { Size: "L" }, currency: "EUR", priceMinor: 4200, salePriceMinor: 0, onSale: false, qtyInStock: 3, unlimited: false, weightGrams: 300 }],
};
const variant = (n: number) => within(screen.getByRole("group", { name: `Variant ${n}` }));
const type = (el: HTMLElement, value: string) => fireEvent.input(el, { target: { value } });

afterEach(() => vi.unstubAllGlobals());

describe("the product form", () => {
  it("makes an address from a title", () => {
    expect(slug("Crème Brûlée Pot — Large!")).toBe("creme-brulee-pot-large");
  });

  it("adds a product to the store, then opens it", async () => {
    let made: any = null;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/collections": { body: COLLECTIONS },
      "GET /api/owner/collections/store1/items": () => ({ body: { items: made ? [made] : [] } }),
      "POST /api/owner/collections/store1/items": (c: Sent) => {
        made = { ...c.body, id: "p9", variants: [{ sku: "RG-1", attributes: {}, currency: "EUR", priceMinor: 1250, qtyInStock: 3 }] };
        return { status: 201, body: made };
      },
      "GET /api/owner/products": { body: { products: [], next: null } },
    });
    open("/config/products");
    fireEvent.click(await screen.findByRole("link", { name: "Add product" }));
    await heading("Add product");
    type(await screen.findByLabelText("Title"), "Rain gauge");
    expect((screen.getByLabelText(/^Address/) as HTMLInputElement).value).toBe("rain-gauge");
    type(variant(1).getByLabelText("SKU"), "RG-1");
    type(variant(1).getByLabelText("Price (EUR)"), "12.50");
    type(variant(1).getByLabelText("Stock"), "3");
    fireEvent.click(screen.getByRole("button", { name: "Add product" }));
    await heading("Rain gauge");
    expect(window.location.pathname).toBe("/config/products/p9");
    const post = calls.find((c) => c.method === "POST")!;
    expect(post.body).toEqual({
      title: "Rain gauge",
      urlId: "rain-gauge",
      body: "",
      productType: 1,
      variants: [{ sku: "RG-1", attributes: {}, price: "12.50", onSale: false, unlimited: false, stock: 3 }],
    });
    expect(post.headers["X-CSRF-Token"]).toBe("csrf-123");
    expect((variant(1).getByLabelText("Price (EUR)") as HTMLInputElement).value).toBe("12.50");
  });

  it("edits a product with a merge patch, keeping what the form does not show, errors by field", async () => {
    let n = 0;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/collections": { body: COLLECTIONS },
      "GET /api/owner/collections/store1/items": { body: { items: [APRON] } },
      "PATCH /api/owner/items/p1": () =>
        n++ === 0 ? { status: 400, body: { errors: { "variants[0].price": "Prices are at most 1,000,000.00." } } } : { body: APRON },
    });
    open("/config/products/p1");
    await heading("Linen potting apron");
    const price = variant(1).getByLabelText("Price (EUR)") as HTMLInputElement;
    expect(price.value).toBe("42.00");
    expect((variant(1).getByLabelText("Options") as HTMLInputElement).value).toBe("Size: L");
    expect((variant(1).getByLabelText("Stock") as HTMLInputElement).value).toBe("3");
    type(price, "9999999");
    fireEvent.click(screen.getByRole("button", { name: "Save product" }));
    await screen.findByText("Prices are at most 1,000,000.00.");
    expect(price.getAttribute("aria-invalid")).toBe("true");
    type(price, "45");
    fireEvent.click(variant(1).getByLabelText("Unlimited stock"));
    fireEvent.click(screen.getByRole("button", { name: "Save product" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Product saved."));
    const patch = calls.filter((c) => c.method === "PATCH").at(-1)!;
    expect(patch.body.variants).toEqual([
      { sku: "LPA-L-OAT", attributes: { Size: "L" }, currency: "EUR", onSale: false, unlimited: true, weightGrams: 300, price: "45" },
    ]);
    expect(patch.body.title).toBe("Linen potting apron");
    expect(patch.body.urlId).toBe("linen-potting-apron");
  });

  it("says when the product is not on this site", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/collections": { body: COLLECTIONS },
      "GET /api/owner/collections/store1/items": { body: { items: [] } },
    });
    open("/config/products/nope");
    expect((await screen.findByRole("alert")).textContent).toContain("There is no such product on this site.");
  });

  it("is not offered to a role that only reads the store", async () => {
    server({
      [`GET ${SESSION}`]: { body: me({ store: "read" }) },
      "GET /api/owner/products": { body: { products: [{ id: "p1", title: "Apron", type: "physical", image: null, price: money(4200), onSale: false, stock: 1, visible: true }], next: null } },
    });
    open("/config/products");
    await screen.findByRole("rowheader", { name: "Apron" });
    expect(screen.queryByRole("link", { name: "Add product" })).toBeNull();
    expect(screen.queryByRole("link", { name: "Apron" })).toBeNull();
  });
});
