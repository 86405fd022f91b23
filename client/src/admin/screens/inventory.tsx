// Inventory: every variant's stock, edited in place and saved together
// (`PATCH /api/owner/inventory {updates}`: only the rows changed); a low-stock filter,
// search, keyset paging, and the restock sign-ups waiting per variant.
// `GET /api/owner/inventory?q&lowStock&after`.
import { useId, useState } from "preact/hooks";
import { api, ApiError, post, withQuery } from "../api/client";
import { Dialog } from "../ui/dialog";
import type { InventoryUpdate, VariantRow } from "../api/types";
import { canWrite, useSession } from "../session";
import { Field } from "../ui/field";
import { count } from "../ui/format";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { Pager, usePages } from "../ui/pager";
import { useGet, useQuery } from "../ui/query";

type Draft = { stock: string; unlimited: boolean };
const key = (v: { itemId: string; sku: string }) => `${v.itemId}\u0000${v.sku}`;
const draftOf = (v: VariantRow): Draft => ({ stock: v.stock == null ? "" : String(v.stock), unlimited: v.stock == null });
const describe = (v: VariantRow) =>
  [v.productTitle, ...Object.values(v.attributes), v.sku].filter(Boolean).join(", ");

export default function Inventory() {
  const { me } = useSession();
  const writable = canWrite(me, "store");
  const [params, setParams] = useQuery();
  const q = params.get("q") ?? "";
  const lowStock = params.get("lowStock") === "1";
  const after = params.get("after") ?? "";
  const { data, error, loading, setData } = useGet<{ variants: VariantRow[]; next: string | null }>(
    withQuery("/api/owner/inventory", { q, lowStock, after }),
  );
  const pages = usePages(after, (cursor) => setParams({ after: cursor }));
  const [search, setSearch] = useState(q);
  // Only the rows being edited (kept across pages until saved).
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [notify, setNotify] = useState<VariantRow | null>(null);

  const changed: (InventoryUpdate & { row: VariantRow })[] = [];
  let invalid = false;
  for (const v of data?.variants ?? []) {
    const d = drafts[key(v)];
    if (!d) continue;

    let stock: number | null = null;
    if (!d.unlimited) {
      stock = d.stock.trim() === "" ? NaN : Number(d.stock);
      if (!Number.isInteger(stock) || stock < 0) {
        invalid = true;
        continue;
      }
    }
    if (stock !== v.stock) changed.push({ itemId: v.itemId, sku: v.sku, stock, row: v });
  }

  const save = async (e: Event) => {
    e.preventDefault();
    if (invalid) {
      setSaveError(new ApiError(400, "Stock is a whole number, 0 or more, or Unlimited."));
      return;
    }
    setSaving(true);
    setSaveError(null);
    try {
      const answer = await api<{ variants: VariantRow[] }>("PATCH", "/api/owner/inventory", {
        updates: changed.map(({ itemId, sku, stock }) => ({ itemId, sku, stock })),
      });
      const updated = new Map(answer.variants.map((v) => [key(v), v]));
      setData({ ...data!, variants: data!.variants.map((v) => updated.get(key(v)) ?? v) });
      setDrafts({});
      announce(`Stock saved for ${changed.length} ${changed.length === 1 ? "variant" : "variants"}.`);
    } catch (err) {
      setSaveError(err as ApiError);
    }
    setSaving(false);
  };
  // `updates.N.stock` names the N-th update sent, which is the N-th changed row.
  const rowError = (v: VariantRow) => {
    const i = changed.findIndex((c) => key(c.row) === key(v));
    return i >= 0 ? saveError?.fields[`updates.${i}.stock`] : undefined;
  };

  return (
    <>
      <Heading title="Inventory">Inventory</Heading>
      <form
        class="filters"
        role="search"
        aria-label="Inventory"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ q: search.trim(), after: "" });
        }}
      >
        <Field label="Search products and SKUs" type="search" value={search} onValue={setSearch} />
        <button type="submit">Search</button>
        <label class="check">
          <input type="checkbox" checked={lowStock} onChange={(e) => setParams({ lowStock: (e.currentTarget as HTMLInputElement).checked ? "1" : "", after: "" })} />{" "}
          Low stock only
        </label>
      </form>
      <ErrorText message={error} />
      {loading && <Loading what="stock" />}
      {data && data.variants.length === 0 && (
        <Empty>{q || lowStock ? "No variants match these filters." : "No products with stock yet."}</Empty>
      )}
      {data && data.variants.length > 0 && (
        <form onSubmit={save} noValidate>
          <ErrorText message={saveError?.message} />
          <table>
            <caption class="visually-hidden">Stock per variant</caption>
            <thead>
              <tr>
                <th scope="col">Product</th>
                <th scope="col">SKU</th>
                <th scope="col">Stock</th>
                <th scope="col" class="num">
                  Restock sign-ups waiting
                </th>
              </tr>
            </thead>
            <tbody>
              {data.variants.map((v) => (
                <tr key={key(v)}>
                  <th scope="row">
                    {v.productTitle}
                    {Object.entries(v.attributes).map(([k, val]) => (
                      <div key={k} class="hint">
                        {k}: {val}
                      </div>
                    ))}
                  </th>
                  <td>{v.sku}</td>
                  <td>
                    {writable ? (
                      <StockCell
                        name={describe(v)}
                        draft={drafts[key(v)] ?? draftOf(v)}
                        onDraft={(d) => setDrafts({ ...drafts, [key(v)]: d })}
                        error={rowError(v)}
                      />
                    ) : v.stock == null ? (
                      "Unlimited"
                    ) : (
                      count(v.stock)
                    )}
                  </td>
                  <td class="num">
                    {count(v.restockWaiting)}
                    {writable && v.restockWaiting > 0 && (
                      <>
                        {" "}
                        <button type="button" aria-label={`Email them: the ${count(v.restockWaiting)} waiting for ${describe(v)}`} onClick={() => setNotify(v)}>
                          Email them
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {writable && (
            <div class="toolbar">
              <button type="submit" class="primary" disabled={saving || (changed.length === 0 && !invalid)}>
                {changed.length > 1 ? `Save ${changed.length} changes` : "Save changes"}
              </button>
            </div>
          )}
          <Pager label="Pages of stock" next={data.next} onNext={pages.next} onPrevious={pages.previous} />
        </form>
      )}
      {notify && data && (
        <NotifyDialog
          row={notify}
          onClose={() => setNotify(null)}
          onSent={(sent) => {
            setNotify(null);
            setData({ ...data, variants: data.variants.map((v) => (key(v) === key(notify) ? { ...v, restockWaiting: 0 } : v)) });
            announce(`Restock notice sent to ${sent} ${sent === 1 ? "person" : "people"}.`);
          }}
        />
      )}
    </>
  );
}

function NotifyDialog({ row, onClose, onSent }: { row: VariantRow; onClose: () => void; onSent: (sent: number) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = async () => {
    setBusy(true);
    try {
      const answer = await post<{ sent: number }>("/api/site-users/account/notifications/restock/send", { productId: row.itemId, variantId: row.sku });
      onSent(answer?.sent ?? 0);
    } catch (e) {
      setError((e as ApiError).message);
      setBusy(false);
    }
  };
  return (
    <Dialog title="Send restock notices" onClose={onClose}>
      <p>
        Email the {count(row.restockWaiting)} {row.restockWaiting === 1 ? "person" : "people"} waiting for {describe(row)} that it is back? Each is emailed once.
      </p>
      {row.stock === 0 && <p>Its stock is 0: save a new stock first, or they will find it sold out.</p>}
      <ErrorText message={error} />
      <div class="actions">
        <button type="button" class="primary" disabled={busy} onClick={send}>
          Send notices
        </button>
        <button type="button" onClick={onClose}>
          Not now
        </button>
      </div>
    </Dialog>
  );
}

function StockCell({ name, draft, onDraft, error }: { name: string; draft: Draft; onDraft: (d: Draft) => void; error?: string }) {
  const id = useId();
  return (
    <div class={error ? "field invalid" : "field"}>
      <label class="visually-hidden" for={id}>
        Stock of {name}
      </label>
      <input
        id={id}
        class="stock"
        type="number"
        min={0}
        step={1}
        inputMode="numeric"
        disabled={draft.unlimited}
        value={draft.unlimited ? "" : draft.stock}
        onInput={(e) => onDraft({ ...draft, stock: (e.currentTarget as HTMLInputElement).value })}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      <label>
        <input
          type="checkbox"
          checked={draft.unlimited}
          onChange={(e) => onDraft({ ...draft, unlimited: (e.currentTarget as HTMLInputElement).checked })}
        />{" "}
        Unlimited<span class="visually-hidden"> stock of {name}</span>
      </label>
      {error && (
        <span class="field-error" id={`${id}-error`}>
          <span aria-hidden="true">⚠ </span>
          {error}
        </span>
      )}
    </div>
  );
}
