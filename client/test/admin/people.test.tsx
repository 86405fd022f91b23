import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { choose, heading, me, money, open, server, type Sent } from "./helpers";

const draw = vi.hoisted(() => vi.fn());
vi.mock("uplot", () => ({
  default: class {
    constructor(opts: { series: { label?: string }[] }, data: number[][]) {
      draw(opts.series.slice(1).map((s) => s.label), data);
    }
    destroy() {}
  },
}));

const SESSION = "/api/owner/session";

afterEach(() => {
  vi.unstubAllGlobals();
  draw.mockClear();
});

describe("customers", () => {
  it("lists customers, linking their orders, with membership in words", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/customers": {
        body: {
          customers: [
            { email: "ada@example.com", name: "Ada Lovelace", orders: 3, spent: money(12600), lastOrderMs: Date.UTC(2026, 10, 2), member: true, subscriber: false },
            { email: "news@example.com", name: "", orders: 0, spent: money(0), lastOrderMs: null, member: false, subscriber: true },
          ],
          next: null,
        },
      },
    });
    open("/config/customers");
    await heading("Customers");
    const link = await screen.findByRole("link", { name: "3 orders by ada@example.com" });
    expect(link.getAttribute("href")).toBe("/config/orders?q=ada%40example.com");
    const row = within(screen.getByText("news@example.com").closest("tr")!);
    expect(row.getByText("Never")).toBeTruthy();
    expect(row.getAllByRole("cell").map((c) => c.textContent)).toEqual(["0", "€0.00", "Never", "No", "Yes"]);
  });

  it("says when there are none, and searches", async () => {
    const calls = server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/customers": { body: { customers: [], next: null } } });
    open("/config/customers");
    await screen.findByText("No customers yet.");
    fireEvent.input(screen.getByLabelText("Search customers"), { target: { value: "ada" } });
    fireEvent.click(screen.getByRole("button", { name: "Search" }));
    await screen.findByText("No customers match this search.");
    expect(calls.at(-1)!.query.get("q")).toBe("ada");
  });
});

describe("analytics", () => {
  const day = (i: number) => Date.UTC(2026, 10, 1 + i);
  const data = {
    daily: [0, 1, 2].map((i) => ({ dayMs: day(i), visits: 10 * (i + 1), pageViews: 25 * (i + 1), orders: i, revenueMinor: 4200 * i })),
    topPages: [{ path: "/shop", views: 80 }],
    referrers: [],
    funnel: { pageViews: 150, addToCart: 30, checkout: 12, purchase: 3 },
    fromMs: day(0),
    toMs: day(3),
    timeZone: "Europe/Amsterdam",
    totals: { visits: 60, pageViews: 150, orders: 3, revenue: money(12600), conversion: 0.05 },
  };

  it("asks for the last 30 days by default, and shows totals, charts, the funnel and tables", async () => {
    const calls = server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/analytics": { body: data } });
    open("/config/analytics");
    await heading("Analytics");
    await screen.findByText("60 visits and 150 page views in 3 days.");
    expect(screen.getByText(/3 orders, €126.00 in revenue/)).toBeTruthy();
    const q = calls.at(-1)!.query;
    const from = Number(q.get("fromMs"));
    const to = Number(q.get("toMs"));
    expect(Math.round((to - from) / 86_400_000)).toBeGreaterThanOrEqual(29);
    expect(Math.round((to - from) / 86_400_000)).toBeLessThanOrEqual(30);
    const funnel = within(screen.getByRole("heading", { name: "From page view to purchase" }).closest("section")!);
    expect(within(funnel.getByRole("rowheader", { name: "Added to cart" }).closest("tr")!).getAllByRole("cell").slice(0, 2).map((c) => c.textContent)).toEqual(["30", "20%"]);
    expect(screen.getByRole("rowheader", { name: "/shop" })).toBeTruthy();
    expect(screen.getByText("No visits from other sites in this period.")).toBeTruthy();
    await waitFor(() => expect(draw).toHaveBeenCalledTimes(2));
    expect(draw.mock.calls[0][0]).toEqual(["Visits", "Page views"]);
    expect(draw.mock.calls[1][1][1]).toEqual([0, 42, 84]);
  });

  it("leaves out orders and revenue for a role that reads analytics but not orders", async () => {
    const nulls = { orders: null, revenueMinor: null };
    const blind = {
      ...data,
      daily: data.daily.map((d) => ({ ...d, ...nulls })),
      totals: { ...data.totals, orders: null, revenue: null, conversion: null },
    };
    server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/analytics": { body: blind } });
    open("/config/analytics");
    await screen.findByText("60 visits and 150 page views in 3 days.");
    expect(screen.queryByRole("heading", { name: "Orders and revenue" })).toBeNull();
    fireEvent.click(screen.getByText("Numbers per day"));
    expect(screen.queryByRole("columnheader", { name: "Revenue" })).toBeNull();
    await waitFor(() => expect(draw).toHaveBeenCalledTimes(1));
  });

  it("takes dates chosen, once both are there", async () => {
    const calls = server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/analytics": { body: data } });
    open("/config/analytics");
    await screen.findByText(/visits and/);
    const before = calls.length;
    choose("Period", "custom");
    await screen.findByText("Choose the first and last day.");
    fireEvent.input(screen.getByLabelText("From"), { target: { value: "2026-11-01" } });
    fireEvent.input(screen.getByLabelText("To"), { target: { value: "2026-11-03" } });
    await screen.findByText(/visits and/);
    const sent = calls.slice(before) as Sent[];
    expect(sent).toHaveLength(1);
    expect(Number(sent[0].query.get("fromMs"))).toBe(new Date(2026, 10, 1).getTime());
    expect(Number(sent[0].query.get("toMs"))).toBe(new Date(2026, 10, 3, 23, 59, 59, 999).getTime());
  });
});
