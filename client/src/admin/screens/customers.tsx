// Customers: everyone who ordered, and members and subscribers, with their orders, total
// spent and last order; search and keyset paging. `GET /api/owner/customers?q&after`.
// Each customer opens their page (/customers/{email}).
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { withQuery } from "../api/client";
import type { CustomerRow } from "../api/types";
import { Field } from "../ui/field";
import { count, date } from "../ui/format";
import { Empty, ErrorText, Heading, Loading } from "../ui/page";
import { Pager, usePages } from "../ui/pager";
import { useGet, useQuery } from "../ui/query";
import { CustomersNav } from "./customers-nav";

export default function Customers() {
  const [params, setParams] = useQuery();
  const q = params.get("q") ?? "";
  const after = params.get("after") ?? "";
  const { data, error, loading } = useGet<{ customers: CustomerRow[]; next: string | null }>(withQuery("/api/owner/customers", { q, after }));
  const pages = usePages(after, (cursor) => setParams({ after: cursor }));
  const [search, setSearch] = useState(q);
  return (
    <>
      <Heading title="Customers">Customers</Heading>
      <CustomersNav />
      <form
        class="filters"
        role="search"
        aria-label="Customers"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ q: search.trim(), after: "" });
        }}
      >
        <Field label="Search customers" type="search" hint="Email or name" value={search} onValue={setSearch} />
        <button type="submit">Search</button>
      </form>
      <ErrorText message={error} />
      {loading && <Loading what="customers" />}
      {data && data.customers.length === 0 && <Empty>{q ? "No customers match this search." : "No customers yet."}</Empty>}
      {data && data.customers.length > 0 && (
        <>
          <table>
            <caption class="visually-hidden">Customers</caption>
            <thead>
              <tr>
                <th scope="col">Customer</th>
                <th scope="col" class="num">
                  Orders
                </th>
                <th scope="col" class="num">
                  Total spent
                </th>
                <th scope="col">Last order</th>
                <th scope="col">Member</th>
                <th scope="col">Subscriber</th>
              </tr>
            </thead>
            <tbody>
              {data.customers.map((c) => (
                <tr key={c.email}>
                  <th scope="row">
                    <Link href={`/customers/${encodeURIComponent(c.email)}`}>
                      {c.name && <div>{c.name}</div>}
                      <div>{c.email}</div>
                    </Link>
                  </th>
                  <td class="num">
                    {c.orders > 0 ? (
                      <Link href={`/orders?q=${encodeURIComponent(c.email)}`} aria-label={`${count(c.orders)} ${c.orders === 1 ? "order" : "orders"} by ${c.email}`}>
                        {count(c.orders)}
                      </Link>
                    ) : (
                      "0"
                    )}
                  </td>
                  <td class="num">{c.spent.formatted}</td>
                  <td>{c.lastOrderMs == null ? "Never" : date(c.lastOrderMs)}</td>
                  <td>{c.member ? "Yes" : "No"}</td>
                  <td>{c.subscriber ? "Yes" : "No"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Pages of customers" next={data.next} onNext={pages.next} onPrevious={pages.previous} />
        </>
      )}
    </>
  );
}
