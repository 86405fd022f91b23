// Subscriptions: every subscription of the store, the newest first, with its customer,
// plan, status and next charge; a status filter, a search, keyset paging, and "Cancel
// subscription" for a role that changes orders. `GET /api/owner/subscriptions`.
import { useState } from "preact/hooks";
import { withQuery } from "../api/client";
import type { CustomerSubscription, SubscriptionRow } from "../api/types";
import { canWrite, useSession } from "../session";
import { Field } from "../ui/field";
import { Empty, ErrorText, Heading, Loading } from "../ui/page";
import { Pager, usePages } from "../ui/pager";
import { useGet, useQuery } from "../ui/query";
import { CancelSubscription, SubscriptionTable } from "./customer";
import { CustomersNav } from "./customers-nav";

export default function Subscriptions() {
  const { me } = useSession();
  const [params, setParams] = useQuery();
  const q = params.get("q") ?? "";
  const status = params.get("status") ?? "";
  const after = params.get("after") ?? "";
  const { data, error, loading, reload } = useGet<{ subscriptions: SubscriptionRow[]; next: string | null }>(
    withQuery("/api/owner/subscriptions", { q, status, after }),
  );
  const pages = usePages(after, (cursor) => setParams({ after: cursor }));
  const [search, setSearch] = useState(q);
  const [cancelling, setCancelling] = useState<CustomerSubscription | null>(null);
  const filtered = !!(q || status);
  return (
    <>
      <Heading title="Subscriptions">Subscriptions</Heading>
      <CustomersNav />
      <form
        class="filters"
        role="search"
        aria-label="Subscriptions"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ q: search.trim(), after: "" });
        }}
      >
        <Field label="Search subscriptions" type="search" hint="Customer's email or product" value={search} onValue={setSearch} />
        <label>
          Status
          <select value={status} onChange={(e) => setParams({ status: (e.target as HTMLSelectElement).value, after: "" })}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="cancelled">Cancelled</option>
            <option value="completed">Completed</option>
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorText message={error} />
      {loading && <Loading what="subscriptions" />}
      {data && data.subscriptions.length === 0 && <Empty>{filtered ? "No subscriptions match." : "No subscriptions yet."}</Empty>}
      {data && data.subscriptions.length > 0 && (
        <>
          <SubscriptionTable rows={data.subscriptions} canCancel={canWrite(me, "orders")} onCancel={setCancelling} customer />
          <Pager label="Pages of subscriptions" next={data.next} onNext={pages.next} onPrevious={pages.previous} />
        </>
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
    </>
  );
}
