// Analytics for a chosen period: visits and page views per day, revenue per day, the funnel
// (page view → add to cart → checkout → purchase), top pages and referrers — charts with
// the numbers beside them. One call: `GET /api/owner/analytics?fromMs&toMs`.
import { useMemo } from "preact/hooks";
import { withQuery } from "../api/client";
import type { Analytics as Data } from "../api/types";
import { LineChart } from "../ui/chart";
import { Field, Select } from "../ui/field";
import { count, date, dayMs, decimals, percent } from "../ui/format";
import { useSession } from "../session";
import { Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet, useQuery } from "../ui/query";

const DAY = 86_400_000;
const PERIODS: [string, string][] = [
  ["7", "Last 7 days"],
  ["30", "Last 30 days"],
  ["90", "Last 90 days"],
  ["custom", "Dates I choose"],
];

/** The period's bounds: the last N days up to now (local days), or the dates chosen. */
function bounds(period: string, from: string, to: string, now = Date.now()): { fromMs: number | null; toMs: number | null } {
  if (period === "custom") return { fromMs: dayMs(from), toMs: dayMs(to, true) };
  const today = new Date(now);
  today.setHours(0, 0, 0, 0);
  return { fromMs: today.getTime() - (Number(period) - 1) * DAY, toMs: now };
}

export default function Analytics() {
  const { me } = useSession();
  const [params, setParams] = useQuery();
  const period = params.get("period") ?? "30";
  const from = params.get("from") ?? "";
  const to = params.get("to") ?? "";
  // The bounds of a rolling period are fixed when it is chosen, not on every render.
  const range = useMemo(() => bounds(period, from, to), [period, from, to]);
  const ready = range.fromMs !== null && range.toMs !== null;
  const { data, error, loading } = useGet<Data>(ready ? withQuery("/api/owner/analytics", range) : "");
  return (
    <>
      <Heading title="Analytics">Analytics</Heading>
      <div class="filters">
        <Select label="Period" value={period} onValue={(v) => setParams({ period: v === "30" ? "" : v })} options={PERIODS} />
        {period === "custom" && (
          <>
            <Field label="From" type="date" value={from} onValue={(v) => setParams({ from: v })} />
            <Field label="To" type="date" value={to} onValue={(v) => setParams({ to: v })} />
          </>
        )}
      </div>
      {!ready && <p>Choose the first and last day.</p>}
      <ErrorText message={ready ? error : null} />
      {ready && loading && <Loading what="analytics" />}
      {ready && data && <Report data={data} currency={me.site.currency} />}
    </>
  );
}

function Report({ data, currency }: { data: Data; currency: string }) {
  const traffic = useMemo(
    () => ({
      x: data.daily.map((d) => d.dayMs),
      lines: [
        { label: "Visits", y: data.daily.map((d) => d.visits ?? 0) },
        { label: "Page views", y: data.daily.map((d) => d.pageViews ?? 0), dashed: true },
      ],
    }),
    [data],
  );
  const places = decimals(currency);
  const sales = useMemo(
    () => ({
      x: data.daily.map((d) => d.dayMs),
      lines: [{ label: `Revenue (${currency})`, y: data.daily.map((d) => (d.revenueMinor ?? 0) / 10 ** places) }],
    }),
    [data, currency, places],
  );
  const money = (minor: number) =>
    new Intl.NumberFormat(undefined, { style: "currency", currency }).format(minor / 10 ** places);
  // Orders and revenue are null for a role that reads analytics but not orders: that part is
  // left out rather than shown as zero.
  const { totals } = data;
  const withSales = totals.orders !== null && totals.orders !== undefined;
  const steps: [string, number][] = [
    ["Page views", data.funnel.pageViews],
    ["Added to cart", data.funnel.addToCart],
    ["Reached checkout", data.funnel.checkout],
    ["Purchased", data.funnel.purchase],
  ];
  return (
    <>
      <section aria-labelledby="traffic">
        <h2 id="traffic">Visits and page views</h2>
        <p>
          {count(totals.visits ?? 0)} visits and {count(totals.pageViews ?? 0)} page views in {count(data.daily.length)} days.
        </p>
        {data.daily.length > 0 && <LineChart label="Visits and page views per day" data={traffic} />}
      </section>
      {withSales && (
        <section aria-labelledby="sales">
          <h2 id="sales">Orders and revenue</h2>
          <p>
            {count(totals.orders ?? 0)} orders, {totals.revenue?.formatted ?? money(0)} in revenue.
          </p>
          {data.daily.length > 0 && <LineChart label="Revenue per day" data={sales} />}
        </section>
      )}
      <details>
        <summary>Numbers per day</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col" class="num">
                Visits
              </th>
              <th scope="col" class="num">
                Page views
              </th>
              {withSales && (
                <>
                  <th scope="col" class="num">
                    Orders
                  </th>
                  <th scope="col" class="num">
                    Revenue
                  </th>
                </>
              )}
            </tr>
          </thead>
          <tbody>
            {data.daily.map((d) => (
              <tr key={d.dayMs}>
                <th scope="row">{date(d.dayMs)}</th>
                <td class="num">{count(d.visits ?? 0)}</td>
                <td class="num">{count(d.pageViews ?? 0)}</td>
                {withSales && (
                  <>
                    <td class="num">{count(d.orders ?? 0)}</td>
                    <td class="num">{money(d.revenueMinor ?? 0)}</td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      <section aria-labelledby="funnel">
        <h2 id="funnel">From page view to purchase</h2>
        <table class="funnel">
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col" class="num">
                Count
              </th>
              <th scope="col" class="num">
                Of page views
              </th>
              <th scope="col">
                <span class="visually-hidden">Bar</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {steps.map(([name, n]) => {
              const share = data.funnel.pageViews > 0 ? n / data.funnel.pageViews : 0;
              return (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td class="num">{count(n)}</td>
                  <td class="num">{percent(share)}</td>
                  <td>
                    <span class="bar" aria-hidden="true" style={{ width: `${Math.max(share * 100, n > 0 ? 1 : 0)}%` }} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
      <div class="grid2">
        <section aria-labelledby="pages">
          <h2 id="pages">Top pages</h2>
          {data.topPages.length === 0 ? (
            <Empty>No page views in this period.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Page</th>
                  <th scope="col" class="num">
                    Views
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.topPages.map((p) => (
                  <tr key={p.path}>
                    <th scope="row">{p.path}</th>
                    <td class="num">{count(p.views)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section aria-labelledby="referrers">
          <h2 id="referrers">Referrers</h2>
          {data.referrers.length === 0 ? (
            <Empty>No visits from other sites in this period.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Site</th>
                  <th scope="col" class="num">
                    Visits
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.referrers.map((r) => (
                  <tr key={r.host}>
                    <th scope="row">{r.host}</th>
                    <td class="num">{count(r.visits)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </>
  );
}
