import { screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { heading, me, money, open, server } from "./helpers";

// uPlot draws on a canvas jsdom does not have: it is replaced, and the test checks that the
// chart chunk loads it and gives it each measure's 30 days (x in seconds, as uPlot wants).
const draw = vi.hoisted(() => vi.fn());
vi.mock("uplot", () => ({
  default: class {
    constructor(_opts: unknown, data: number[][], into: HTMLElement) {
      draw(into, { x: data[0], y: data[1] });
    }
    destroy() {}
  },
}));

const SESSION = "/api/owner/session";
const day = (i: number) => Date.UTC(2026, 10, 1 + i);
const period = (visits: number, pageViews: number, orders: number, minor: number, conversion: number) => ({
  visits,
  pageViews,
  orders,
  revenue: money(minor),
  conversion,
});
const data = {
  periods: { today: period(12, 30, 1, 4200, 1 / 12), days7: period(80, 200, 4, 16800, 0.05), days30: period(1234, 3000, 20, 98000, 20 / 1234) },
  daily: Array.from({ length: 30 }, (_, i) => ({ dayMs: day(i), visits: i, pageViews: 2 * i, orders: i % 3, revenueMinor: 100 * i })),
  todo: { toFulfil: 3, unpaid: 1, lowStock: 2, restockWaiting: 0 },
};

afterEach(() => {
  vi.unstubAllGlobals();
  draw.mockClear();
});

describe("the dashboard", () => {
  it("shows the five numbers for today, 7 and 30 days, each with a chart", async () => {
    const calls = server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/dashboard": { body: data } });
    open("/config");
    await heading("Dashboard");
    const table = await screen.findByRole("table");
    const row = (name: string) =>
      within(within(table).getByRole("rowheader", { name }).closest("tr")!)
        .getAllByRole("cell")
        .slice(0, 3)
        .map((c) => c.textContent);
    expect(row("Visits")).toEqual(["12", "80", "1,234"]);
    expect(row("Page views")).toEqual(["30", "200", "3,000"]);
    expect(row("Orders")).toEqual(["1", "4", "20"]);
    expect(row("Revenue")).toEqual(["€42.00", "€168.00", "€980.00"]);
    expect(row("Conversion")).toEqual(["8.3%", "5%", "1.6%"]);
    // One call for the screen.
    expect(calls.filter((c) => c.path.startsWith("/api/owner/") && c.path !== SESSION)).toHaveLength(1);
    await waitFor(() => expect(draw).toHaveBeenCalledTimes(5));
    const [, visits] = draw.mock.calls[0] as unknown as [HTMLElement, { x: number[]; y: number[] }];
    expect(visits.x).toEqual(data.daily.map((d) => d.dayMs / 1000));
    expect(visits.y[29]).toBe(29);
  });

  it("links what needs doing to the lists it counts, leaving out what is done", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/dashboard": { body: data } });
    open("/config");
    const todo = within((await screen.findByRole("heading", { name: "To do" })).closest("section")!);
    const links = todo.getAllByRole("link").map((a) => [a.textContent, a.getAttribute("href")]);
    expect(links).toEqual([
      ["3 orders to fulfil", "/config/orders?payment=paid&fulfilment=unfulfilled"],
      ["1 order awaiting payment", "/config/orders?payment=awaiting-payment"],
      ["2 variants low in stock", "/config/inventory?lowStock=1"],
    ]);
  });

  it("shows a store manager (orders and store, no analytics) only the measures the role reads", async () => {
    const blind = (p: ReturnType<typeof period>) => ({ ...p, visits: null, pageViews: null, conversion: null });
    const { today, days7, days30 } = data.periods;
    const manager = {
      periods: { today: blind(today), days7: blind(days7), days30: blind(days30) },
      daily: data.daily.map((d) => ({ ...d, visits: null, pageViews: null })),
      todo: data.todo,
    };
    server({ [`GET ${SESSION}`]: { body: me({ store: "write", orders: "read" }) }, "GET /api/owner/dashboard": { body: manager } });
    open("/config");
    const table = await screen.findByRole("table");
    expect(within(table).getAllByRole("rowheader").map((h) => h.textContent)).toEqual(["Orders", "Revenue"]);
    await waitFor(() => expect(draw).toHaveBeenCalledTimes(2));
  });

  it("says when nothing needs doing, and shows a failure", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/dashboard": { body: { ...data, todo: { toFulfil: 0, unpaid: 0, lowStock: 0, restockWaiting: 0 } } },
    });
    open("/config");
    await screen.findByText("Nothing needs doing right now.");
    server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/dashboard": { status: 503, body: { message: "The store cannot be reached right now." } } });
    open("/config");
    expect((await screen.findByRole("alert")).textContent).toContain("The store cannot be reached right now.");
  });
});
