// Gift cards: every gift card of the store, the newest first: its code (all but the last 4
// characters hidden), buyer, initial value and balance; a search (the buyer's email, or
// the whole code) and keyset paging. Each opens its page. `GET /api/owner/gift-cards`.
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { withQuery } from "../api/client";
import type { GiftCardRow } from "../api/types";
import { Field } from "../ui/field";
import { date } from "../ui/format";
import { Empty, ErrorText, Heading, Loading } from "../ui/page";
import { Pager, usePages } from "../ui/pager";
import { useGet, useQuery } from "../ui/query";
import { CustomersNav, masked } from "./customers-nav";

export function giftCardStatus(g: GiftCardRow): string {
  if (g.balance.minor === 0) return "Spent";
  return g.balance.minor < g.initial.minor ? "Partly spent" : "Unused";
}

export default function GiftCards() {
  const [params, setParams] = useQuery();
  const q = params.get("q") ?? "";
  const after = params.get("after") ?? "";
  const { data, error, loading } = useGet<{ giftCards: GiftCardRow[]; next: string | null }>(withQuery("/api/owner/gift-cards", { q, after }));
  const pages = usePages(after, (cursor) => setParams({ after: cursor }));
  const [search, setSearch] = useState(q);
  return (
    <>
      <Heading title="Gift cards">Gift cards</Heading>
      <CustomersNav />
      <form
        class="filters"
        role="search"
        aria-label="Gift cards"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ q: search.trim(), after: "" });
        }}
      >
        <Field label="Search gift cards" type="search" hint="Buyer's email, or the whole code" value={search} onValue={setSearch} />
        <button type="submit">Search</button>
      </form>
      <ErrorText message={error} />
      {loading && <Loading what="gift cards" />}
      {data && data.giftCards.length === 0 && <Empty>{q ? "No gift cards match this search." : "No gift cards sold yet."}</Empty>}
      {data && data.giftCards.length > 0 && (
        <>
          <table>
            <caption class="visually-hidden">Gift cards</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Bought by</th>
                <th scope="col">Bought</th>
                <th scope="col" class="num">
                  Initial value
                </th>
                <th scope="col" class="num">
                  Balance
                </th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {data.giftCards.map((g) => (
                <tr key={g.id}>
                  <th scope="row">
                    <Link href={`/customers/gift-cards/${g.id}`} aria-label={`Gift card ending ${g.codeEnd}`}>
                      {masked(g.codeEnd)}
                    </Link>
                  </th>
                  <td>
                    <Link href={`/customers/${encodeURIComponent(g.buyerEmail)}`}>{g.buyerEmail}</Link>
                  </td>
                  <td>{date(g.createdMs)}</td>
                  <td class="num">{g.initial.formatted}</td>
                  <td class="num">{g.balance.formatted}</td>
                  <td>{giftCardStatus(g)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Pages of gift cards" next={data.next} onNext={pages.next} onPrevious={pages.previous} />
        </>
      )}
    </>
  );
}
