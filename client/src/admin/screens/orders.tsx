// Orders: search (number, email, name), filters (payment, fulfilment, cancelled, dates),
// keyset paging, the CSV of the same filters. `GET /api/owner/orders?…`.
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { withQuery } from "../api/client";
import type { OrderSummary } from "../api/types";
import { Field, Select } from "../ui/field";
import { count, dateTime, dayMs, FULFILMENT, PAYMENT } from "../ui/format";
import { Empty, ErrorText, Heading, Loading } from "../ui/page";
import { Pager, usePages } from "../ui/pager";
import { useGet, useQuery } from "../ui/query";

const FILTERS = ["q", "payment", "fulfilment", "cancelled", "from", "to"] as const;

export default function Orders() {
  const [params, setParams] = useQuery();
  const value = (k: string) => params.get(k) ?? "";
  const filters = {
    q: value("q"),
    payment: value("payment"),
    fulfilment: value("fulfilment"),
    cancelled: value("cancelled"),
    fromMs: dayMs(value("from")),
    toMs: dayMs(value("to"), true),
  };
  const after = value("after");
  const { data, error, loading } = useGet<{ orders: OrderSummary[]; next: string | null }>(
    withQuery("/api/owner/orders", { ...filters, after }),
  );
  const pages = usePages(after, (cursor) => setParams({ after: cursor }));
  const [q, setQ] = useState(filters.q);
  const filtered = FILTERS.some((k) => value(k));
  const csv = withQuery("/api/owner/orders.csv", filters);

  return (
    <>
      <Heading title="Orders">Orders</Heading>
      <form
        class="filters"
        role="search"
        aria-label="Orders"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ q: q.trim(), after: "" });
        }}
      >
        <Field label="Search orders" type="search" hint="Number, email or name" value={q} onValue={setQ} />
        <button type="submit">Search</button>
      </form>
      <div class="filters">
        <Select
          label="Payment"
          value={filters.payment}
          onValue={(v) => setParams({ payment: v, after: "" })}
          options={[["", "Any"], ...Object.entries(PAYMENT)]}
        />
        <Select
          label="Fulfilment"
          value={filters.fulfilment}
          onValue={(v) => setParams({ fulfilment: v, after: "" })}
          options={[["", "Any"], ...Object.entries(FULFILMENT)]}
        />
        <Select
          label="Cancelled"
          value={filters.cancelled}
          onValue={(v) => setParams({ cancelled: v, after: "" })}
          options={[
            ["", "Any"],
            ["false", "Not cancelled"],
            ["true", "Cancelled"],
          ]}
        />
        <Field label="Placed from" type="date" value={value("from")} onValue={(v) => setParams({ from: v, after: "" })} />
        <Field label="Placed to" type="date" value={value("to")} onValue={(v) => setParams({ to: v, after: "" })} />
      </div>
      <div class="toolbar">
        {filtered && (
          <button
            type="button"
            onClick={() => {
              setQ("");
              setParams(Object.fromEntries([...FILTERS, "after"].map((k) => [k, ""])));
            }}
          >
            Clear filters
          </button>
        )}
        <a class="button" href={csv} download>
          Export CSV
        </a>
      </div>
      <ErrorText message={error} />
      {loading && <Loading what="orders" />}
      {data && data.orders.length === 0 && (
        <Empty>{filtered || after ? "No orders match these filters." : "No orders yet."}</Empty>
      )}
      {data && data.orders.length > 0 && (
        <>
          <table>
            <caption class="visually-hidden">Orders, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Placed</th>
                <th scope="col">Customer</th>
                <th scope="col" class="num">
                  Items
                </th>
                <th scope="col" class="num">
                  Total
                </th>
                <th scope="col">Payment</th>
                <th scope="col">Fulfilment</th>
              </tr>
            </thead>
            <tbody>
              {data.orders.map((o) => (
                <tr key={o.id}>
                  <th scope="row">
                    <Link href={`/orders/${encodeURIComponent(o.id)}`}>Order #{o.number}</Link>
                    {o.cancelled && <span class="badge">Cancelled</span>}
                    {o.testMode && <span class="badge">Test</span>}
                  </th>
                  <td>{dateTime(o.placedMs)}</td>
                  <td>
                    {o.name && <div>{o.name}</div>}
                    <div>{o.email}</div>
                  </td>
                  <td class="num">{count(o.itemCount)}</td>
                  <td class="num">{o.total.formatted}</td>
                  <td>{PAYMENT[o.payment] ?? o.payment}</td>
                  <td>{FULFILMENT[o.fulfilment] ?? o.fulfilment}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Pages of orders" next={data.next} onNext={pages.next} onPrevious={pages.previous} />
        </>
      )}
    </>
  );
}
