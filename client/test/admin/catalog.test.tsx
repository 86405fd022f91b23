import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ProductRow, VariantRow } from "../../src/admin/api/types";
import { heading, me, money, open, server, type Sent } from "./helpers";
import { dateTime } from "../../src/admin/ui/format";

const SESSION = "/api/owner/session";
const INVENTORY = "/api/owner/inventory";

const variant = (sku: string, stock: number | null, extra: Partial<VariantRow> = {}): VariantRow => ({
  itemId: "apron",
  sku,
  productTitle: "Linen potting apron",
  attributes: { Size: sku.split("-")[1] },
  stock,
  restockWaiting: 0,
  ...extra,
});

afterEach(() => vi.unstubAllGlobals());

describe("inventory", () => {
  it("edits stock in place and saves only what changed", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${INVENTORY}`]: { body: { variants: [variant("LPA-S", 4), variant("LPA-M", 0, { restockWaiting: 3 }), variant("LPA-L", null)], next: null } },
      [`PATCH ${INVENTORY}`]: (c: Sent) => ({
        body: { variants: c.body.updates.map((u: any) => variant(u.sku, u.stock, u.sku === "LPA-M" ? { restockWaiting: 0 } : {})) },
      }),
    });
    open("/config/inventory");
    await heading("Inventory");
    const medium = (await screen.findByLabelText("Stock of Linen potting apron, M, LPA-M")) as HTMLInputElement;
    expect(medium.value).toBe("0");
    expect((screen.getByLabelText("Stock of Linen potting apron, L, LPA-L") as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByLabelText("Unlimited stock of Linen potting apron, L, LPA-L") as HTMLInputElement).checked).toBe(true);
    const save = screen.getByRole("button", { name: "Save changes" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    // The waiting sign-ups are in their own column.
    expect(within(medium.closest("tr")!).getByText("3")).toBeTruthy();

    fireEvent.input(medium, { target: { value: "12" } });
    fireEvent.click(screen.getByLabelText("Unlimited stock of Linen potting apron, S, LPA-S"));
    fireEvent.click(screen.getByRole("button", { name: "Save 2 changes" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Stock saved for 2 variants."));
    const patch = calls.find((c) => c.method === "PATCH")!;
    expect(patch.body).toEqual({
      updates: [
        { itemId: "apron", sku: "LPA-S", stock: null },
        { itemId: "apron", sku: "LPA-M", stock: 12 },
      ],
    });
    expect(patch.headers["X-CSRF-Token"]).toBe("csrf-123");
    expect((screen.getByRole("button", { name: "Save changes" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows the server's error on its row, and refuses a stock that is not a whole number", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${INVENTORY}`]: { body: { variants: [variant("LPA-S", 4), variant("LPA-M", 0)], next: null } },
      [`PATCH ${INVENTORY}`]: { status: 400, body: { errors: { "updates.0.stock": "Stock can be at most 1,000,000." } } },
    });
    open("/config/inventory");
    const medium = (await screen.findByLabelText("Stock of Linen potting apron, M, LPA-M")) as HTMLInputElement;
    fireEvent.input(medium, { target: { value: "2000000" } });
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    await screen.findByText("Stock can be at most 1,000,000.");
    expect(medium.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByLabelText("Stock of Linen potting apron, S, LPA-S").getAttribute("aria-invalid")).toBeNull();
    fireEvent.input(medium, { target: { value: "1.5" } });
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    expect((await screen.findAllByRole("alert")).map((a) => a.textContent).join()).toContain("Stock is a whole number");
  });

  it("filters to low stock through the address, and is read-only for a role that only reads", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me({ store: "read" }) },
      [`GET ${INVENTORY}`]: (c: Sent) => ({ body: { variants: c.query.get("lowStock") ? [] : [variant("LPA-S", 4)], next: null } }),
    });
    open("/config/inventory");
    await screen.findByText("LPA-S");
    expect(screen.queryByRole("spinbutton")).toBeNull();
    expect(screen.queryByRole("button", { name: /Save/ })).toBeNull();
    fireEvent.click(screen.getByLabelText("Low stock only"));
    await screen.findByText("No variants match these filters.");
    expect(calls.at(-1)!.query.get("lowStock")).toBe("true");
    expect(window.location.search).toBe("?lowStock=1");
  });
});

describe("restock notices", () => {
  it("emails the people waiting for a variant after confirming", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${INVENTORY}`]: { body: { variants: [variant("LPA-S", 4), variant("LPA-M", 5, { restockWaiting: 3 })], next: null } },
      "POST /api/site-users/account/notifications/restock/send": { body: { sent: 3 } },
    });
    open("/config/inventory");
    await heading("Inventory");
    expect(await screen.findAllByRole("button", { name: /^Email them/ })).toHaveLength(1);
    fireEvent.click(await screen.findByRole("button", { name: "Email them: the 3 waiting for Linen potting apron, M, LPA-M" }));
    const dialog = await screen.findByRole("dialog", { name: "Send restock notices" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Send notices" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Restock notice sent to 3 people."));
    const sent = calls.find((c) => c.method === "POST")!;
    expect(sent.body).toEqual({ productId: "apron", variantId: "LPA-M" });
    expect(sent.headers["X-CSRF-Token"]).toBe("csrf-123");
    expect(screen.queryByRole("button", { name: /^Email them/ })).toBeNull();
  });
});

describe("products", () => {
  const product = (id: string, extra: Partial<ProductRow> = {}): ProductRow => ({
    id,
    title: `Product ${id}`,
    type: "physical",
    image: null,
    price: money(1200),
    onSale: false,
    stock: 5,
    visible: true,
    visibility: "visible",
    ...extra,
  });

  it("lists products with type, price, stock and visibility in words", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/products": {
        body: { products: [product("a"), product("b", { type: "gift-card", stock: null, visible: false, onSale: true })], next: null },
      },
    });
    open("/config/products");
    await heading("Products");
    const row = within((await screen.findByRole("rowheader", { name: "Product b" })).closest("tr")!);
    expect(row.getByText("Gift card")).toBeTruthy();
    expect(row.getByText("Unlimited")).toBeTruthy();
    expect(row.getByText("Not shown")).toBeTruthy();
    expect(row.getByText("On sale")).toBeTruthy();
  });

  it("badges hidden and scheduled products", async () => {
    const at = new Date(2031, 0, 2, 8, 5).getTime();
    server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/products": {
        body: {
          products: [
            product("a"),
            product("h", { visible: false, visibility: "hidden" }),
            product("s", { visible: false, visibility: "scheduled", publishOnMs: at }),
            product("p", { visible: true, visibility: "scheduled", publishOnMs: 1 }),
          ],
          next: null,
        },
      },
    });
    open("/config/products");
    await heading("Products");
    const row = async (name: string) => within((await screen.findByRole("rowheader", { name: new RegExp(`^${name}`) })).closest("tr")!);
    expect((await row("Product h")).getByText("Hidden")).toBeTruthy();
    expect((await row("Product h")).getByText("Not shown")).toBeTruthy();
    expect((await row("Product s")).getByText(`Scheduled for ${dateTime(at)}`)).toBeTruthy();
    // Its time has come: shown, no badge.
    expect((await row("Product p")).queryByText(/^Scheduled/)).toBeNull();
    expect((await row("Product p")).getByText("Shown")).toBeTruthy();
    expect((await row("Product a")).queryByText("Hidden")).toBeNull();
  });

  it("says when there are none, and searches", async () => {
    const calls = server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/products": { body: { products: [], next: null } } });
    open("/config/products");
    await screen.findByText("No products yet.");
    fireEvent.input(screen.getByLabelText("Search products"), { target: { value: "apron" } });
    fireEvent.click(screen.getByRole("button", { name: "Search" }));
    await screen.findByText("No products match this search.");
    expect(calls.at(-1)!.query.get("q")).toBe("apron");
  });
});
