// A customer's page: contact, member and subscriber status, orders, total spent, their
// latest orders (each linking to the order's page), the subscriptions their orders started
// (with "Cancel subscription" for a role that changes orders) and the gift cards they
// bought. `GET /api/owner/customers/{email}`.
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { post } from "../api/client";
import type { CustomerDetail, CustomerSubscription } from "../api/types";
import { canWrite, useSession } from "../session";
import { Confirm } from "../ui/confirm";
import { count, date, PAYMENT } from "../ui/format";
import { Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { CustomersNav, masked, SUBSCRIPTION_STATUS } from "./customers-nav";

export default function Customer({ email }: { email: string }) {
  const { data, error, loading, reload } = useGet<CustomerDetail>(`/api/owner/customers/${encodeURIComponent(email)}`);
  const title = data ? data.customer.name || data.customer.email : email;
  return (
    <>
      <Heading title={title}>{title}</Heading>
      <CustomersNav />
      <ErrorText message={error} />
      {loading && <Loading what="the customer" />}
      {data && <Body data={data} reload={reload} />}
    </>
  );
}

function Body({ data, reload }: { data: CustomerDetail; reload: () => void }) {
  const c = data.customer;
  return (
    <>
      <dl class="facts">
        <dt>Email</dt>
        <dd>
          <a href={`mailto:${c.email}`}>{c.email}</a>
        </dd>
        <dt>Member</dt>
        <dd>{c.member ? "Yes" : "No"}</dd>
        <dt>Subscriber</dt>
        <dd>{c.subscriber ? "Yes" : "No"}</dd>
        <dt>Orders</dt>
        <dd>{count(c.orders)}</dd>
        <dt>Total spent</dt>
        <dd>{c.spent.formatted}</dd>
        <dt>Last order</dt>
        <dd>{c.lastOrderMs == null ? "Never" : date(c.lastOrderMs)}</dd>
      </dl>
      <section aria-labelledby="customer-orders">
        <h2 id="customer-orders">Orders</h2>
        {data.orders.length === 0 ? (
          <Empty>No orders yet.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Placed</th>
                <th scope="col">Payment</th>
                <th scope="col" class="num">
                  Items
                </th>
                <th scope="col" class="num">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {data.orders.map((o) => (
                <tr key={o.id}>
                  <th scope="row">
                    <Link href={`/orders/${o.id}`}>Order #{o.number}</Link>
                  </th>
                  <td>{date(o.placedMs)}</td>
                  <td>
                    {PAYMENT[o.status as keyof typeof PAYMENT] ?? o.status}
                    {o.cancelled && ", cancelled"}
                  </td>
                  <td class="num">{count(o.itemCount)}</td>
                  <td class="num">{o.total.formatted}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <Subscriptions subscriptions={data.subscriptions} reload={reload} />
      <section aria-labelledby="customer-gift-cards">
        <h2 id="customer-gift-cards">Gift cards</h2>
        {data.giftCards.length === 0 ? (
          <Empty>No gift cards bought.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Bought</th>
                <th scope="col" class="num">
                  Initial value
                </th>
                <th scope="col" class="num">
                  Balance
                </th>
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
                  <td>{date(g.createdMs)}</td>
                  <td class="num">{g.initial.formatted}</td>
                  <td class="num">{g.balance.formatted}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

function Subscriptions({ subscriptions, reload }: { subscriptions: CustomerSubscription[]; reload: () => void }) {
  const { me } = useSession();
  const [cancelling, setCancelling] = useState<CustomerSubscription | null>(null);
  return (
    <section aria-labelledby="customer-subscriptions">
      <h2 id="customer-subscriptions">Subscriptions</h2>
      {subscriptions.length === 0 ? (
        <Empty>No subscriptions.</Empty>
      ) : (
        <SubscriptionTable rows={subscriptions} canCancel={canWrite(me, "orders")} onCancel={setCancelling} />
      )}
      {cancelling && (
        <CancelSubscription
          subscription={cancelling}
          onClose={() => setCancelling(null)}
          onDone={() => {
            setCancelling(null);
            reload();
          }}
        />
      )}
    </section>
  );
}

export function SubscriptionTable({
  rows,
  canCancel,
  onCancel,
  customer,
}: {
  rows: (CustomerSubscription & { customerEmail?: string; orderNumber?: number })[];
  canCancel: boolean;
  onCancel: (s: CustomerSubscription) => void;
  customer?: boolean;
}) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Product</th>
          {customer && <th scope="col">Customer</th>}
          <th scope="col">Plan</th>
          <th scope="col">Status</th>
          <th scope="col">Next charge</th>
          {canCancel && <th scope="col">Actions</th>}
        </tr>
      </thead>
      <tbody>
        {rows.map((s) => (
          <tr key={s.id}>
            <th scope="row">
              {s.productName || s.sku}
              {s.quantity > 1 && ` × ${s.quantity}`}
            </th>
            {customer && (
              <td>
                <Link href={`/customers/${encodeURIComponent(s.customerEmail ?? "")}`}>{s.customerEmail}</Link>
              </td>
            )}
            <td>
              {s.price.formatted} {s.interval}
              {s.numBillingCycles > 0 && `, ${s.cyclesBilled} of ${s.numBillingCycles} billed`}
            </td>
            <td>{SUBSCRIPTION_STATUS[s.status] ?? s.status}</td>
            <td>{s.nextBillingMs == null ? "None" : date(s.nextBillingMs)}</td>
            {canCancel && (
              <td>
                {s.status === "active" && (
                  <button type="button" onClick={() => onCancel(s)} aria-label={`Cancel subscription to ${s.productName || s.sku}${s.customerEmail ? ` of ${s.customerEmail}` : ""}`}>
                    Cancel subscription
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CancelSubscription({
  subscription,
  onClose,
  onDone,
}: {
  subscription: CustomerSubscription;
  onClose: () => void;
  onDone: () => void;
}) {
  return (
    <Confirm
      title="Cancel subscription"
      action="Cancel subscription"
      keep="Keep it"
      run={() => post(`/api/owner/subscriptions/${encodeURIComponent(subscription.id)}/cancel`)}
      done="Subscription cancelled."
      onClose={onClose}
      onDone={onDone}
    >
      <p>
        Cancel the subscription to {subscription.productName || subscription.sku} ({subscription.price.formatted} {subscription.interval})? It will not be charged again.
      </p>
    </Confirm>
  );
}
