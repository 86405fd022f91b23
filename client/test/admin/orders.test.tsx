import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OrderDetail, OrderSummary } from "../../src/admin/api/types";
import { choose, heading, me, money, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const LIST = "/api/owner/orders";

const summary = (n: number, extra: Partial<OrderSummary> = {}): OrderSummary => ({
  id: `o${n}`,
  number: n,
  placedMs: Date.UTC(2026, 10, 20, 12),
  email: `buyer${n}@example.com`,
  name: n % 2 ? `Buyer ${n}` : "",
  total: money(4200 + n),
  payment: "paid",
  fulfilment: "unfulfilled",
  cancelled: false,
  itemCount: 2,
  testMode: false,
  ...extra,
});

const rows = () =>
  screen
    .getAllByRole("row")
    .slice(1)
    .map((r) => within(r).getByRole("rowheader").textContent);

afterEach(() => vi.unstubAllGlobals());

describe("the orders list", () => {
  it("says when there are no orders yet", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${LIST}`]: { body: { orders: [], next: null } } });
    open("/config/orders");
    await screen.findByText("No orders yet.");
  });

  it("lists orders with their states in words, and pages with Next and Previous", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${LIST}`]: (c: Sent) =>
        c.query.get("after") === "cur-2"
          ? { body: { orders: [summary(1, { payment: "awaiting-payment", cancelled: true })], next: null } }
          : { body: { orders: [summary(3), summary(2, { fulfilment: "fulfilled", testMode: true })], next: "cur-2" } },
    });
    open("/config/orders");
    await heading("Orders");
    await screen.findByRole("link", { name: "Order #3" });
    expect(rows()).toEqual(["Order #3", "Order #2Test"]);
    const second = screen.getAllByRole("row")[2];
    expect(within(second).getByText("Fulfilled")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Order #3" }).getAttribute("href")).toBe("/config/orders/o3");
    expect(within(screen.getAllByRole("row")[1]).getByText("€42.03")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Previous" }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByRole("link", { name: "Order #1" });
    expect(calls.at(-1)!.query.get("after")).toBe("cur-2");
    expect(window.location.search).toBe("?after=cur-2");
    expect(within(screen.getAllByRole("row")[1]).getByText("Awaiting payment")).toBeTruthy();
    expect(within(screen.getAllByRole("row")[1]).getByText("Cancelled")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Next" }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(screen.getByRole("button", { name: "Previous" }));
    await screen.findByRole("link", { name: "Order #3" });
    expect(calls.at(-1)!.query.get("after")).toBeNull();
  });

  it("searches and filters through the query, back to the first page, with the CSV of the same", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${LIST}`]: (c: Sent) => ({ body: { orders: c.query.size ? [] : [summary(9)], next: null } }),
    });
    open("/config/orders");
    await screen.findByRole("link", { name: "Order #9" });
    fireEvent.input(screen.getByLabelText("Search orders"), { target: { value: " ada@example.com " } });
    fireEvent.click(screen.getByRole("button", { name: "Search" }));
    await screen.findByText("No orders match these filters.");
    expect(calls.at(-1)!.query.get("q")).toBe("ada@example.com");
    choose("Payment", "awaiting-payment");
    choose("Fulfilment", "unfulfilled");
    fireEvent.input(screen.getByLabelText("Placed from"), { target: { value: "2026-11-01" } });
    await waitFor(() => expect(calls.at(-1)!.query.get("fromMs")).toBe(String(new Date(2026, 10, 1).getTime())));
    const last = calls.at(-1)!.query;
    expect([last.get("q"), last.get("payment"), last.get("fulfilment")]).toEqual(["ada@example.com", "awaiting-payment", "unfulfilled"]);
    const csv = new URL(screen.getByRole("link", { name: "Export CSV" }).getAttribute("href")!, "http://x");
    expect(csv.pathname).toBe("/api/owner/orders.csv");
    expect(Object.fromEntries(csv.searchParams)).toEqual({
      q: "ada@example.com",
      payment: "awaiting-payment",
      fulfilment: "unfulfilled",
      fromMs: String(new Date(2026, 10, 1).getTime()),
    });
    fireEvent.click(screen.getByRole("button", { name: "Clear filters" }));
    await screen.findByRole("link", { name: "Order #9" });
  });

  it("opens filtered from a link (the dashboard's to-do)", async () => {
    const calls = server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${LIST}`]: { body: { orders: [], next: null } } });
    open("/config/orders?payment=paid&fulfilment=unfulfilled");
    await screen.findByText("No orders match these filters.");
    expect((screen.getByLabelText("Payment") as HTMLSelectElement).value).toBe("paid");
    expect(Object.fromEntries(calls.at(-1)!.query)).toEqual({ payment: "paid", fulfilment: "unfulfilled" });
  });
});

const detail = (extra: Partial<OrderDetail> = {}): OrderDetail => ({
  ...summary(1042),
  name: "Ada Lovelace",
  lines: [
    {
      position: 0,
      itemId: "i1",
      sku: "LPA-L-OAT",
      productName: "Linen potting apron",
      productType: 1,
      attributes: { Size: "L", Colour: "Oat" },
      quantity: 2,
      fulfilledQuantity: 0,
      refundedQuantity: 0,
      unitPrice: money(4200),
      lineTotal: money(8400),
      additionalFields: [{ label: "Monogram", value: "AL" }],
    },
  ],
  subtotal: money(8400),
  discount: money(840),
  shipping: money(500),
  tax: money(0),
  taxIncluded: true,
  giftCardPaid: money(0),
  charged: money(8060),
  refunded: money(0),
  total: money(8060),
  coupons: ["SPRING10"],
  shippingAddress: { firstName: "Ada", lastName: "Lovelace", line1: "12 St James's Square", city: "London", postalCode: "SW1Y 4JH", country: "GB" },
  billingAddress: null,
  shippingOption: { name: "Standard" },
  paymentMethod: "Card (test)",
  notes: null,
  giftCards: [],
  downloads: [],
  fulfilments: [],
  history: [{ atMs: Date.UTC(2026, 10, 20, 12), kind: "placed", actor: "", text: "Order placed" }],
  actions: ["fulfil", "cancel", "refund", "resend-confirmation"],
  ...extra,
});

describe("an order", () => {
  const ORDER = "/api/owner/orders/o1042";

  it("shows lines, variants, answers, totals, addresses and history", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${ORDER}`]: { body: detail() } });
    open("/config/orders/o1042");
    await heading("Order #1042");
    expect(screen.getByText("Size: L")).toBeTruthy();
    expect(screen.getByText("Monogram: AL")).toBeTruthy();
    expect(screen.getByText("SPRING10")).toBeTruthy();
    expect(screen.getByText("−€8.40")).toBeTruthy();
    expect(screen.getByText("12 St James's Square")).toBeTruthy();
    expect(screen.getByText("Shipping: Standard")).toBeTruthy();
    expect(screen.getByText(/Order placed/)).toBeTruthy();
    expect(
      within(screen.getByRole("group", { name: "Order actions" }))
        .getAllByRole("button")
        .map((b) => b.textContent),
    ).toEqual(["Mark as fulfilled", "Cancel order", "Refund", "Resend confirmation"]);
  });

  it("names the paid member areas the order opened, and says nothing of them when it opened none", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${ORDER}`]: { body: detail({ memberAreas: [{ id: "kiln-crew", title: "Kiln Crew" }] }) },
      ["GET /api/owner/orders/o7"]: { body: detail({ id: "o7", number: 7 }) },
    });
    open("/config/orders/o1042");
    await heading("Order #1042");
    expect(screen.getByRole("heading", { name: "Member areas opened" })).toBeTruthy();
    expect(screen.getByText(/This order gives its member Kiln Crew/)).toBeTruthy();
    open("/config/orders/o7");
    await heading("Order #7");
    expect(screen.queryByRole("heading", { name: "Member areas opened" })).toBeNull();
  });

  it("offers only the actions the order allows", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${ORDER}`]: { body: detail({ actions: [] }) } });
    open("/config/orders/o1042");
    await heading("Order #1042");
    expect(screen.queryByRole("group", { name: "Order actions" })).toBeNull();
  });

  it("fulfils with a tracking number after the dialog, with the CSRF token, and reloads", async () => {
    let fulfilled = false;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${ORDER}`]: () => ({ body: fulfilled ? detail({ fulfilment: "fulfilled", actions: [] }) : detail() }),
      [`POST ${ORDER}/fulfilments`]: () => {
        fulfilled = true;
        return { body: {} };
      },
    });
    open("/config/orders/o1042");
    await heading("Order #1042");
    const opener = screen.getByRole("button", { name: "Mark as fulfilled" });
    opener.focus();
    fireEvent.click(opener);
    const dialog = await screen.findByRole("dialog", { name: "Mark as fulfilled: order #1042" });
    expect(dialog.getAttribute("aria-modal")).toBe("true");
    expect(dialog.contains(document.activeElement)).toBe(true);
    const quantity = within(dialog).getByLabelText("Quantity of Linen potting apron (LPA-L-OAT)") as HTMLInputElement;
    expect(quantity.value).toBe("2");
    fireEvent.input(within(dialog).getByLabelText("Carrier"), { target: { value: "Royal Mail" } });
    fireEvent.input(within(dialog).getByLabelText("Tracking number"), { target: { value: "RM123456789GB" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Mark as fulfilled" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const sent = calls.find((c) => c.method === "POST")!;
    expect(sent.body).toEqual({ lines: [{ lineId: 0, quantity: 2 }], carrier: "Royal Mail", trackingNumber: "RM123456789GB" });
    expect(sent.headers["X-CSRF-Token"]).toBe("csrf-123");
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Fulfilment saved."));
    await screen.findByText("Fulfilled");
  });

  it("keeps the dialog open with the server's refusal; Escape closes it and gives the focus back", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${ORDER}`]: { body: detail() },
      [`POST ${ORDER}/cancel`]: { status: 409, body: { message: "This order is already fulfilled." } },
    });
    open("/config/orders/o1042");
    await heading("Order #1042");
    const opener = screen.getByRole("button", { name: "Cancel order" });
    opener.focus();
    fireEvent.click(opener);
    const dialog = await screen.findByRole("dialog", { name: "Cancel order: order #1042" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel order" }));
    expect((await within(dialog).findByRole("alert")).textContent).toContain("This order is already fulfilled.");
    fireEvent.keyDown(dialog, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(document.activeElement).toBe(opener);
  });

  it("refunds an amount in the currency's units, sent in minor units", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${ORDER}`]: { body: detail() },
      [`POST ${ORDER}/refunds`]: { status: 400, body: { errors: { amount: "The most you can refund is €80.60." } } },
    });
    open("/config/orders/o1042");
    await heading("Order #1042");
    fireEvent.click(screen.getByRole("button", { name: "Refund" }));
    const dialog = await screen.findByRole("dialog");
    const amount = within(dialog).getByLabelText("Amount (EUR)") as HTMLInputElement;
    expect(amount.value).toBe("80.60");
    fireEvent.input(amount, { target: { value: "12,50" } });
    fireEvent.input(within(dialog).getByLabelText(/Reason/), { target: { value: "Scuffed" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Refund" }));
    await within(dialog).findByText("The most you can refund is €80.60.");
    expect(calls.at(-1)!.body).toEqual({ amount: 1250, reason: "Scuffed" });
  });

  it("says when the order cannot be found", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${ORDER}`]: { status: 404, body: { message: "No such order." } } });
    open("/config/orders/o1042");
    expect((await screen.findByRole("alert")).textContent).toContain("No such order.");
    expect(screen.getByRole("link", { name: "Back to orders" })).toBeTruthy();
  });
});
