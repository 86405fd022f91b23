// An order: its lines (variants, additional-field answers), totals, addresses, payment,
// coupons, gift cards, downloads, the paid member areas it opened, fulfilments and history,
// and the actions the server says
// this order and this role allow now (`actions`), each confirmed in a dialog.
// `GET /api/owner/orders/{id}`; actions `POST /api/owner/orders/{id}/…`.
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { ApiError, post } from "../api/client";
import type { Address, OrderAction, OrderDetail, OrderLine } from "../api/types";
import { Dialog } from "../ui/dialog";
import { Field } from "../ui/field";
import { date, dateTime, decimals, FULFILMENT, PAYMENT } from "../ui/format";
import { announce, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";

// Keyed by the server's words for the moves (strings in its document).
const ACTIONS: Record<OrderAction | (string & {}), { label: string; done: string; danger?: boolean }> = {
  "mark-paid": { label: "Mark as paid", done: "Order marked as paid." },
  fulfil: { label: "Mark as fulfilled", done: "Fulfilment saved." },
  refund: { label: "Refund", done: "Refund made.", danger: true },
  cancel: { label: "Cancel order", done: "Order cancelled.", danger: true },
  "resend-confirmation": { label: "Resend confirmation", done: "Confirmation sent again." },
};

export default function Order({ id }: { id: string }) {
  const path = `/api/owner/orders/${encodeURIComponent(id)}`;
  const { data: order, error, loading, reload } = useGet<OrderDetail>(path);
  const [open, setOpen] = useState<OrderAction | null>(null);
  if (loading)
    return (
      <>
        <Heading title="Order">Order</Heading>
        <Loading what="the order" />
      </>
    );
  if (!order)
    return (
      <>
        <Heading title="Order">Order</Heading>
        <ErrorText message={error} />
        <p>
          <Link href="/orders">Back to orders</Link>
        </p>
      </>
    );
  const done = (action: OrderAction) => {
    setOpen(null);
    announce(ACTIONS[action].done);
    reload();
  };
  return (
    <>
      <p>
        <Link href="/orders">Back to orders</Link>
      </p>
      <Heading title={`Order #${order.number}`}>Order #{order.number}</Heading>
      <dl class="pairs">
        <dt>Placed</dt>
        <dd>{dateTime(order.placedMs)}</dd>
        <dt>Payment</dt>
        <dd>{PAYMENT[order.payment] ?? order.payment}</dd>
        <dt>Fulfilment</dt>
        <dd>{FULFILMENT[order.fulfilment] ?? order.fulfilment}</dd>
        {order.cancelled && (
          <>
            <dt>Status</dt>
            <dd>Cancelled</dd>
          </>
        )}
        {order.testMode && (
          <>
            <dt>Mode</dt>
            <dd>Test order (no real payment)</dd>
          </>
        )}
        <dt>Customer</dt>
        <dd>
          {order.name && `${order.name}, `}
          <a href={`mailto:${order.email}`}>{order.email}</a>
        </dd>
      </dl>
      {order.actions.length > 0 && (
        <div class="actions" role="group" aria-label="Order actions">
          {order.actions.map((a) => (
            <button key={a} type="button" class={ACTIONS[a]?.danger ? "danger" : undefined} onClick={() => setOpen(a as OrderAction)}>
              {ACTIONS[a]?.label ?? a}
            </button>
          ))}
        </div>
      )}
      <Lines order={order} />
      <Totals order={order} />
      <div class="grid2">
        <AddressBlock title="Shipping address" address={order.shippingAddress} extra={order.shippingOption?.name} />
        <AddressBlock title="Billing address" address={order.billingAddress} />
      </div>
      <Extras order={order} />
      <History order={order} />
      {open === "fulfil" && <FulfilDialog order={order} path={path} onClose={() => setOpen(null)} onDone={() => done("fulfil")} />}
      {open === "refund" && <RefundDialog order={order} path={path} onClose={() => setOpen(null)} onDone={() => done("refund")} />}
      {open && open !== "fulfil" && open !== "refund" && (
        <ConfirmDialog order={order} action={open} path={path} onClose={() => setOpen(null)} onDone={() => done(open)} />
      )}
    </>
  );
}

function Lines({ order }: { order: OrderDetail }) {
  return (
    <section aria-labelledby="lines">
      <h2 id="lines">Items</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">SKU</th>
            <th scope="col" class="num">
              Quantity
            </th>
            <th scope="col" class="num">
              Fulfilled
            </th>
            <th scope="col" class="num">
              Unit price
            </th>
            <th scope="col" class="num">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {order.lines.map((l) => (
            <tr key={l.position}>
              <th scope="row">
                {l.productName}
                {Object.entries(l.attributes).map(([k, v]) => (
                  <div key={k} class="hint">
                    {k}: {v}
                  </div>
                ))}
                {l.additionalFields.map((f, i) => (
                  <div key={i} class="hint">
                    {f.label}: {f.value}
                  </div>
                ))}
              </th>
              <td>{l.sku}</td>
              <td class="num">
                {l.quantity}
                {l.refundedQuantity > 0 && ` (${l.refundedQuantity} refunded)`}
              </td>
              <td class="num">{l.fulfilledQuantity}</td>
              <td class="num">{l.unitPrice.formatted}</td>
              <td class="num">{l.lineTotal.formatted}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Totals({ order }: { order: OrderDetail }) {
  const rows: [string, string, boolean][] = [
    ["Subtotal", order.subtotal.formatted, true],
    ["Discount", `−${order.discount.formatted}`, order.discount.minor > 0],
    ["Shipping", order.shipping.formatted, true],
    [order.taxIncluded ? "Tax (included)" : "Tax", order.tax.formatted, order.tax.minor > 0 || !order.taxIncluded],
    ["Paid by gift card", `−${order.giftCardPaid.formatted}`, order.giftCardPaid.minor > 0],
    ["Total", order.total.formatted, true],
    ["Charged", order.charged.formatted, true],
    ["Refunded", order.refunded.formatted, order.refunded.minor > 0],
  ];
  return (
    <section aria-labelledby="totals">
      <h2 id="totals">Totals</h2>
      <dl class="pairs">
        {rows
          .filter(([, , shown]) => shown)
          .map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </Fragment>
          ))}
        <dt>Payment method</dt>
        <dd>{order.paymentMethod || "None"}</dd>
        {order.coupons.length > 0 && (
          <>
            <dt>Coupons</dt>
            <dd>{order.coupons.join(", ")}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

const ADDRESS_LINES = (a: Address) =>
  [
    [a.firstName, a.lastName].filter(Boolean).join(" "),
    a.line1,
    a.line2,
    [a.postalCode, a.city].filter(Boolean).join(" "),
    [a.region, a.country].filter(Boolean).join(", "),
    a.phone,
  ].filter((l): l is string => !!l);

function AddressBlock({ title, address, extra }: { title: string; address?: Address | null; extra?: string }) {
  return (
    <section>
      <h2>{title}</h2>
      {address ? (
        <address>
          {ADDRESS_LINES(address).map((l, i) => (
            <div key={i}>{l}</div>
          ))}
        </address>
      ) : (
        <p class="empty">None</p>
      )}
      {extra && <p>Shipping: {extra}</p>}
    </section>
  );
}

function Extras({ order }: { order: OrderDetail }) {
  return (
    <>
      {order.notes && (
        <section>
          <h2>{order.notes.label}</h2>
          <p>{order.notes.text}</p>
        </section>
      )}
      {order.giftCards.length > 0 && (
        <section>
          <h2>Gift cards</h2>
          <ul>
            {order.giftCards.map((g) => (
              <li key={g.code}>
                Card ending {g.code}: {g.balance.formatted} left
              </li>
            ))}
          </ul>
        </section>
      )}
      {order.downloads.length > 0 && (
        <section>
          <h2>Downloads</h2>
          <ul>
            {order.downloads.map((d, i) => (
              <li key={i}>
                {d.productName}: link expires {date(d.expiresMs)}
              </li>
            ))}
          </ul>
        </section>
      )}
      {order.memberAreas && order.memberAreas.length > 0 && (
        <section>
          <h2>Member areas opened</h2>
          <p>
            This order gives its member {order.memberAreas.map((a) => a.title).join(", ")}; refunding it in full or cancelling it
            ends that.
          </p>
        </section>
      )}
      {order.fulfilments.length > 0 && (
        <section>
          <h2>Fulfilments</h2>
          <ul>
            {order.fulfilments.map((f) => (
              <li key={f.id}>
                {dateTime(f.createdMs)}: {f.lines.map((l) => `${l.quantity} × ${lineName(order, l.position)}`).join(", ")}
                {f.carrier && `, ${f.carrier}`}
                {f.trackingNumber && `, tracking number ${f.trackingNumber}`}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

const lineName = (order: OrderDetail, position: number) => order.lines.find((l) => l.position === position)?.productName ?? `line ${position}`;

function History({ order }: { order: OrderDetail }) {
  return (
    <section aria-labelledby="history">
      <h2 id="history">History</h2>
      {order.history.length === 0 ? (
        <p class="empty">Nothing has happened to this order yet.</p>
      ) : (
        <ol class="history">
          {order.history.map((h, i) => (
            <li key={i}>
              <time dateTime={new Date(h.atMs).toISOString()}>{dateTime(h.atMs)}</time>: {h.text}
              {h.actor && ` (${h.actor})`}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

type DialogProps = { order: OrderDetail; path: string; onClose: () => void; onDone: () => void };

/** Sends an action; on failure keeps the dialog open with the server's words. */
function useSend(onDone: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const send = async (url: string, body: unknown) => {
    setBusy(true);
    setError(null);
    try {
      await post(url, body);
      onDone();
    } catch (e) {
      setError(e as ApiError);
      setBusy(false);
    }
  };
  return { busy, error, send };
}

const CONFIRM: Partial<Record<OrderAction, string>> = {
  "mark-paid": "Mark this order as paid? The buyer is emailed, and what payment opens (gift card codes, downloads) is sent.",
  cancel: "Cancel this order? Its stock goes back, a paid order is refunded what is left, and the buyer is emailed.",
  "resend-confirmation": "Send the order confirmation to the buyer again?",
};

function ConfirmDialog({ order, action, path, onClose, onDone }: DialogProps & { action: OrderAction }) {
  const { busy, error, send } = useSend(onDone);
  const a = ACTIONS[action];
  return (
    <Dialog title={`${a.label}: order #${order.number}`} onClose={onClose}>
      <p>{CONFIRM[action]}</p>
      <ErrorText message={error?.message} />
      <div class="actions">
        <button type="button" class={a.danger ? "danger" : "primary"} disabled={busy} onClick={() => send(`${path}/${action}`, {})}>
          {a.label}
        </button>
        <button type="button" onClick={onClose}>
          Keep as it is
        </button>
      </div>
    </Dialog>
  );
}

const left = (l: OrderLine) => Math.max(0, l.quantity - l.fulfilledQuantity - l.refundedQuantity);

function FulfilDialog({ order, path, onClose, onDone }: DialogProps) {
  const { busy, error, send } = useSend(onDone);
  const open = order.lines.filter((l) => left(l) > 0);
  const [qty, setQty] = useState<Record<number, string>>(Object.fromEntries(open.map((l) => [l.position, String(left(l))])));
  const [carrier, setCarrier] = useState("");
  const [tracking, setTracking] = useState("");
  const submit = (e: Event) => {
    e.preventDefault();
    const lines = open
      .map((l) => ({ lineId: l.position, quantity: Number(qty[l.position] || 0) }))
      .filter((l) => l.quantity > 0);
    send(`${path}/fulfilments`, { lines, carrier: carrier.trim(), trackingNumber: tracking.trim() });
  };
  return (
    <Dialog title={`Mark as fulfilled: order #${order.number}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorText message={error?.message} />
        {open.map((l, i) => (
          <Field
            key={l.position}
            label={`Quantity of ${l.productName}${l.sku ? ` (${l.sku})` : ""}`}
            hint={`${left(l)} not yet fulfilled`}
            type="number"
            min={0}
            step={1}
            value={qty[l.position] ?? ""}
            onValue={(v) => setQty({ ...qty, [l.position]: v })}
            error={error?.fields[`lines.${i}.quantity`]}
          />
        ))}
        <Field label="Carrier" hint="Optional" value={carrier} onValue={setCarrier} error={error?.fields.carrier} />
        <Field label="Tracking number" hint="Optional" value={tracking} onValue={setTracking} error={error?.fields.trackingNumber} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Mark as fulfilled
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RefundDialog({ order, path, onClose, onDone }: DialogProps) {
  const { busy, error, send } = useSend(onDone);
  const places = decimals(order.charged.currency);
  const refundable = order.charged.minor - order.refunded.minor;
  const [amount, setAmount] = useState((refundable / 10 ** places).toFixed(places));
  const [reason, setReason] = useState("");
  const submit = (e: Event) => {
    e.preventDefault();
    const minor = Math.round(Number(amount.replace(",", ".")) * 10 ** places);
    send(`${path}/refunds`, { amount: Number.isFinite(minor) ? minor : amount, reason: reason.trim() });
  };
  return (
    <Dialog title={`Refund: order #${order.number}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <p>
          Charged {order.charged.formatted}
          {order.refunded.minor > 0 && `, ${order.refunded.formatted} refunded already`}. The refund goes back through the payment provider and the buyer is emailed.
        </p>
        <ErrorText message={error?.message} />
        <Field
          label={`Amount (${order.charged.currency})`}
          inputMode="decimal"
          value={amount}
          onValue={setAmount}
          error={error?.fields.amount}
        />
        <Field label="Reason" hint="Optional; shown to the buyer" value={reason} onValue={setReason} error={error?.fields.reason} />
        <div class="actions">
          <button type="submit" class="danger" disabled={busy}>
            Refund
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
