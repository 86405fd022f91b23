// The dashboard: today / 7 / 30 days of visits, page views, orders, revenue and conversion,
// each with a small chart of the last 30 days; and what needs doing, each linking to the
// list it counts. One call: `GET /api/owner/dashboard`. A measure the role does not read
// comes as `null` (visits without analytics, orders and revenue without orders) and is left
// out, as are the to-dos of areas the role does not open.
import { useEffect, useMemo, useState } from "preact/hooks";
import { Link } from "wouter";
import { ApiError, get } from "../api/client";
import type { Dashboard as Data, DailyRow, PeriodNumbers } from "../api/types";
import { allows, useSession } from "../session";
import { Sparkline } from "../ui/chart";
import { count, percent } from "../ui/format";
import { ErrorText, Heading, Loading } from "../ui/page";

type Metric = {
  name: string;
  /** The period's value as written, or null when the role does not read it. */
  value: (p: PeriodNumbers) => string | null;
  daily: (d: DailyRow) => number;
};

const maybe = <T,>(v: T | null | undefined, write: (v: T) => string) => (v === null || v === undefined ? null : write(v));

const METRICS: Metric[] = [
  { name: "Visits", value: (p) => maybe(p.visits, count), daily: (d) => d.visits ?? 0 },
  { name: "Page views", value: (p) => maybe(p.pageViews, count), daily: (d) => d.pageViews ?? 0 },
  { name: "Orders", value: (p) => maybe(p.orders, count), daily: (d) => d.orders ?? 0 },
  { name: "Revenue", value: (p) => maybe(p.revenue, (r) => r.formatted), daily: (d) => d.revenueMinor ?? 0 },
  {
    name: "Conversion",
    value: (p) => maybe(p.conversion, percent),
    daily: (d) => (d.visits && d.orders !== null && d.orders !== undefined ? d.orders / d.visits : 0),
  },
];

export default function Dashboard() {
  const { me } = useSession();
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    get<Data>("/api/owner/dashboard").then(setData, (e: ApiError) => setError(e.message));
  }, []);
  return (
    <>
      <Heading title="Dashboard">Dashboard</Heading>
      <ErrorText message={error} />
      {!data && !error && <Loading what="the dashboard" />}
      {data && <Numbers data={data} />}
      {data && <Todo todo={data.todo} orders={allows(me, ["orders"])} store={allows(me, ["store"])} />}
    </>
  );
}

function Numbers({ data }: { data: Data }) {
  const { today, days7, days30 } = data.periods;
  const metrics = useMemo(() => METRICS.filter((m) => m.value(today) !== null), [today]);
  const series = useMemo(() => {
    const x = data.daily.map((d) => d.dayMs);
    return metrics.map((m) => ({ x, y: data.daily.map(m.daily) }));
  }, [data, metrics]);
  if (metrics.length === 0) return null;
  return (
    <section aria-labelledby="numbers">
      <h2 id="numbers">How the site is doing</h2>
      <table class="numbers">
        <thead>
          <tr>
            <th scope="col">Measure</th>
            <th scope="col">Today</th>
            <th scope="col">7 days</th>
            <th scope="col">30 days</th>
            <th scope="col">
              <span class="visually-hidden">Chart of </span>the last 30 days
            </th>
          </tr>
        </thead>
        <tbody>
          {metrics.map((m, i) => (
            <tr key={m.name}>
              <th scope="row">{m.name}</th>
              <td>{m.value(today)}</td>
              <td>{m.value(days7)}</td>
              <td>{m.value(days30)}</td>
              <td>
                <Sparkline label={m.name} series={series[i]} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

function Todo({ todo, orders, store }: { todo: Data["todo"]; orders: boolean; store: boolean }) {
  const items: [number, string, string, boolean][] = [
    [todo.toFulfil ?? 0, plural(todo.toFulfil ?? 0, "order to fulfil", "orders to fulfil"), "/orders?payment=paid&fulfilment=unfulfilled", orders],
    [todo.unpaid ?? 0, plural(todo.unpaid ?? 0, "order awaiting payment", "orders awaiting payment"), "/orders?payment=awaiting-payment", orders],
    [todo.lowStock ?? 0, plural(todo.lowStock ?? 0, "variant low in stock", "variants low in stock"), "/inventory?lowStock=1", store],
    [todo.restockWaiting ?? 0, plural(todo.restockWaiting ?? 0, "restock sign-up waiting", "restock sign-ups waiting"), "/inventory", store],
  ];
  const shown = items.filter(([n, , , allowed]) => n > 0 && allowed);
  return (
    <section aria-labelledby="todo">
      <h2 id="todo">To do</h2>
      {shown.length === 0 ? (
        <p class="empty">Nothing needs doing right now.</p>
      ) : (
        <ul class="todo">
          {shown.map(([, text, href]) => (
            <li key={text}>
              <Link href={href}>{text}</Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
