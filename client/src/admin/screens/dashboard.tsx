// The dashboard: today / 7 / 30 days of visits, page views, orders, revenue and conversion,
// each with a small chart of the last 30 days; and what needs doing, each linking to the
// list it counts. One call: `GET /api/owner/dashboard`.
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
  value: (p: PeriodNumbers) => string;
  daily: (d: DailyRow) => number;
};

const METRICS: Metric[] = [
  { name: "Visits", value: (p) => count(p.visits), daily: (d) => d.visits },
  { name: "Page views", value: (p) => count(p.pageViews), daily: (d) => d.pageViews },
  { name: "Orders", value: (p) => count(p.orders), daily: (d) => d.orders },
  { name: "Revenue", value: (p) => p.revenue.formatted, daily: (d) => d.revenueMinor },
  {
    name: "Conversion",
    value: (p) => percent(p.conversion),
    daily: (d) => (d.visits > 0 ? d.orders / d.visits : 0),
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
  const series = useMemo(() => {
    const x = data.daily.map((d) => d.dayMs);
    return METRICS.map((m) => ({ x, y: data.daily.map(m.daily) }));
  }, [data]);
  const { today, days7, days30 } = data.periods;
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
          {METRICS.map((m, i) => (
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
    [todo.toFulfil, plural(todo.toFulfil, "order to fulfil", "orders to fulfil"), "/orders?payment=paid&fulfilment=unfulfilled", orders],
    [todo.unpaid, plural(todo.unpaid, "order awaiting payment", "orders awaiting payment"), "/orders?payment=awaiting-payment", orders],
    [todo.lowStock, plural(todo.lowStock, "variant low in stock", "variants low in stock"), "/inventory?lowStock=1", store],
    [todo.restockWaiting, plural(todo.restockWaiting, "restock sign-up waiting", "restock sign-ups waiting"), "/inventory", store],
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
