// A gift card's page: its code (the last 4 characters), buyer, value and balance, and its
// history: issued by the order that bought it, redeemed on orders, given back when such an
// order was cancelled. `GET /api/owner/gift-cards/{id}`.
import { Link } from "wouter";
import type { GiftCardDetail, GiftCardEvent } from "../api/types";
import { dateTime } from "../ui/format";
import { ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { CustomersNav, masked } from "./customers-nav";
import { giftCardStatus } from "./gift-cards";

const EVENT: Record<string, (e: GiftCardEvent) => string> = {
  issued: (e) => `Issued for ${e.amount.formatted}, bought with`,
  redeemed: (e) => `Redeemed ${e.amount.formatted} on`,
  refunded: (e) => `${e.amount.formatted} given back, cancelled`,
};

export default function GiftCard({ id }: { id: string }) {
  const { data, error, loading } = useGet<GiftCardDetail>(`/api/owner/gift-cards/${encodeURIComponent(id)}`);
  const g = data?.giftCard;
  const title = g ? `Gift card ${masked(g.codeEnd)}` : "Gift card";
  return (
    <>
      <Heading title={title}>{title}</Heading>
      <CustomersNav />
      <ErrorText message={error} />
      {loading && <Loading what="the gift card" />}
      {data && g && (
        <>
          <dl class="facts">
            <dt>Bought by</dt>
            <dd>
              <Link href={`/customers/${encodeURIComponent(g.buyerEmail)}`}>{g.buyerEmail}</Link>
            </dd>
            <dt>Initial value</dt>
            <dd>{g.initial.formatted}</dd>
            <dt>Balance</dt>
            <dd>{g.balance.formatted}</dd>
            <dt>Status</dt>
            <dd>{giftCardStatus(g)}</dd>
          </dl>
          <section aria-labelledby="gift-card-history">
            <h2 id="gift-card-history">History</h2>
            <ol class="history">
              {data.events.map((e, i) => (
                <li key={i}>
                  <time dateTime={new Date(e.atMs).toISOString()}>{dateTime(e.atMs)}</time>: {(EVENT[e.kind] ?? ((x: GiftCardEvent) => `${x.kind}: ${x.amount.formatted}`))(e)}{" "}
                  <Link href={`/orders/${e.orderId}`}>order #{e.orderNumber}</Link>
                </li>
              ))}
            </ol>
          </section>
        </>
      )}
    </>
  );
}
