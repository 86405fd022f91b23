import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { choose, heading, me, money, open, server } from "./helpers";

const SESSION = "/api/owner/session";
const ADA = "/api/owner/customers/ada%40example.com";

afterEach(() => vi.unstubAllGlobals());

const sub = (over: Record<string, unknown> = {}) => ({
  id: "s1",
  orderId: "o1",
  itemId: "i1",
  sku: "SUB-PB-S",
  productName: "Monthly Plant Box",
  quantity: 1,
  price: money(2500),
  interval: "every 1 month",
  numBillingCycles: 0,
  cyclesBilled: 1,
  nextBillingMs: Date.UTC(2026, 11, 2),
  status: "active",
  ...over,
});

const detail = () => ({
  customer: { email: "ada@example.com", name: "Ada Lovelace", orders: 2, spent: money(7600), lastOrderMs: Date.UTC(2026, 10, 2), member: true, subscriber: false },
  orders: [
    { id: "o2", number: 1002, placedMs: Date.UTC(2026, 10, 2), total: money(5100), status: "paid", itemCount: 2, testMode: false, cancelled: false, refunded: money(0) },
    { id: "o1", number: 1001, placedMs: Date.UTC(2026, 10, 1), total: money(2500), status: "refunded", itemCount: 1, testMode: false, cancelled: true, refunded: money(2500) },
  ],
  subscriptions: [sub()],
  giftCards: [{ id: "g1", codeEnd: "WXYZ", orderId: "o2", initial: money(5000), balance: money(1200), createdMs: Date.UTC(2026, 10, 2) }],
});

describe("a customer's page", () => {
  it("shows contact, status, totals, orders linking to their pages, subscriptions and gift cards", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${ADA}`]: { body: detail() } });
    open("/config/customers/ada%40example.com");
    await heading("Ada Lovelace");
    expect(screen.getByRole("link", { name: "ada@example.com" }).getAttribute("href")).toBe("mailto:ada@example.com");
    expect(screen.getByText("€76.00")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Order #1002" }).getAttribute("href")).toBe("/config/orders/o2");
    expect(screen.getByText("Refunded, cancelled")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Gift card ending WXYZ" }).getAttribute("href")).toBe("/config/customers/gift-cards/g1");
    const nav = screen.getByRole("navigation", { name: "Customers section" });
    expect(within(nav).getAllByRole("link").map((l) => l.textContent)).toEqual(["All customers", "Subscriptions", "Gift cards"]);
  });

  it("cancels a subscription after asking, then loads the page again", async () => {
    let cancelled = false;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${ADA}`]: () => ({ body: { ...detail(), subscriptions: [sub(cancelled ? { status: "cancelled", nextBillingMs: null } : {})] } }),
      "POST /api/owner/subscriptions/s1/cancel": () => {
        cancelled = true;
        return { body: sub({ status: "cancelled", nextBillingMs: null }) };
      },
    });
    open("/config/customers/ada%40example.com");
    await heading("Ada Lovelace");
    fireEvent.click(screen.getByRole("button", { name: "Cancel subscription to Monthly Plant Box" }));
    const dialog = await screen.findByRole("dialog", { name: "Cancel subscription" });
    // Keeping it sends nothing.
    fireEvent.click(within(dialog).getByRole("button", { name: "Keep it" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(calls.some((c) => c.method === "POST")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Cancel subscription to Monthly Plant Box" }));
    fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Cancel subscription" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const post = calls.find((c) => c.method === "POST")!;
    expect(post.headers["X-CSRF-Token"]).toBe("csrf-123");
    await screen.findByText("Cancelled");
    expect(screen.queryByRole("button", { name: /Cancel subscription/ })).toBeNull();
  });

  it("offers no cancelling to a role that only reads orders, and says when there is nothing", async () => {
    server({
      [`GET ${SESSION}`]: { body: me({ orders: "read" }) },
      [`GET ${ADA}`]: { body: { ...detail(), orders: [], giftCards: [] } },
    });
    open("/config/customers/ada%40example.com");
    await heading("Ada Lovelace");
    expect(screen.getByText("Monthly Plant Box")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Cancel subscription/ })).toBeNull();
    expect(screen.getByText("No orders yet.")).toBeTruthy();
    expect(screen.getByText("No gift cards bought.")).toBeTruthy();
  });

  it("says so when there is no such customer", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET /api/owner/customers/nobody%40example.com`]: { status: 404, body: { message: "No customer of this site has that email." } } });
    open("/config/customers/nobody%40example.com");
    await screen.findByText("No customer of this site has that email.");
  });
});

describe("subscriptions", () => {
  const row = { ...sub(), customerEmail: "sam@example.com", orderNumber: 1003, createdMs: Date.UTC(2026, 10, 3) };

  it("lists them with customer, plan, status and next charge; filters by status; pages", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/subscriptions": (c) => ({ body: { subscriptions: c.query.get("status") === "completed" ? [] : [row], next: c.query.get("after") ? null : "n1" } }),
    });
    open("/config/customers/subscriptions");
    await heading("Subscriptions");
    const r = within((await screen.findByRole("rowheader", { name: "Monthly Plant Box" })).closest("tr")!);
    expect(r.getByRole("link", { name: "sam@example.com" }).getAttribute("href")).toBe("/config/customers/sam%40example.com");
    expect(r.getByText("€25.00 every 1 month")).toBeTruthy();
    expect(r.getByText("Active")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Subscriptions" }).getAttribute("aria-current")).toBe("page");
    fireEvent.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(calls.at(-1)!.query.get("after")).toBe("n1"));
    choose("Status", "completed");
    await screen.findByText("No subscriptions match.");
    expect(calls.at(-1)!.query.get("status")).toBe("completed");
    expect(calls.at(-1)!.query.get("after")).toBeNull();
  });

  it("shows the server's refusal in the dialog", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/subscriptions": { body: { subscriptions: [row], next: null } },
      "POST /api/owner/subscriptions/s1/cancel": { status: 409, body: { message: "This subscription is already cancelled." } },
    });
    open("/config/customers/subscriptions");
    fireEvent.click(await screen.findByRole("button", { name: "Cancel subscription to Monthly Plant Box of sam@example.com" }));
    fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Cancel subscription" }));
    expect(await within(screen.getByRole("dialog")).findByText("This subscription is already cancelled.")).toBeTruthy();
  });

  it("says when there are none", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/subscriptions": { body: { subscriptions: [], next: null } } });
    open("/config/customers/subscriptions");
    await screen.findByText("No subscriptions yet.");
  });
});

describe("gift cards", () => {
  const card = {
    id: "g1",
    codeEnd: "WXYZ",
    orderId: "o2",
    orderNumber: 1002,
    buyerEmail: "giver@example.com",
    initial: money(5000),
    balance: money(1200),
    createdMs: Date.UTC(2026, 10, 2),
    history: [],
  };

  it("lists them with the code masked, value, balance and status, and searches", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/gift-cards": (c) => ({ body: { giftCards: c.query.get("q") ? [] : [card], next: null } }),
    });
    open("/config/customers/gift-cards");
    await heading("Gift cards");
    const link = await screen.findByRole("link", { name: "Gift card ending WXYZ" });
    expect(link.textContent).toBe("••••-••••-••••-WXYZ");
    expect(link.getAttribute("href")).toBe("/config/customers/gift-cards/g1");
    const cells = within(link.closest("tr")!).getAllByRole("cell").map((c) => c.textContent);
    expect(cells.slice(2)).toEqual(["€50.00", "€12.00", "Partly spent"]);
    fireEvent.input(screen.getByLabelText("Search gift cards"), { target: { value: "nobody" } });
    fireEvent.click(screen.getByRole("button", { name: "Search" }));
    await screen.findByText("No gift cards match this search.");
    expect(calls.at(-1)!.query.get("q")).toBe("nobody");
  });

  it("shows a gift card's history: issued, redeemed, given back", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/gift-cards/g1": {
        body: {
          giftCard: card,
          events: [
            { kind: "issued", orderId: "o2", orderNumber: 1002, amount: money(5000), atMs: Date.UTC(2026, 10, 2) },
            { kind: "redeemed", orderId: "o5", orderNumber: 1005, amount: money(3800), atMs: Date.UTC(2026, 10, 3) },
            { kind: "refunded", orderId: "o5", orderNumber: 1005, amount: money(3800), atMs: Date.UTC(2026, 10, 4) },
          ],
        },
      },
    });
    open("/config/customers/gift-cards/g1");
    await heading("Gift card ••••-••••-••••-WXYZ");
    const history = screen.getByRole("heading", { name: "History" }).closest("section")!;
    const lines = within(history).getAllByRole("listitem").map((l) => l.textContent!.replace(/^.*?: /, ""));
    expect(lines).toEqual(["Issued for €50.00, bought with order #1002", "Redeemed €38.00 on order #1005", "€38.00 given back, cancelled order #1005"]);
    expect(within(history).getAllByRole("link", { name: "order #1005" })[0].getAttribute("href")).toBe("/config/orders/o5");
  });

  it("is not offered to a role without orders", async () => {
    server({ [`GET ${SESSION}`]: { body: me({ content: "write" }) } });
    open("/config/customers/gift-cards");
    await heading("No access");
  });
});
