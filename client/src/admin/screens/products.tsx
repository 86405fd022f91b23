// Products: the catalogue with image, type, lowest price, stock and visibility (a "Hidden"
// or "Scheduled for <date>" badge beside the title); search and keyset paging. `GET /api/owner/products?q&after`; "Add product" and each title open the
// product form (screens/product.tsx) for a role that may change the store.
import { useState } from "preact/hooks";
import { withQuery } from "../api/client";
import type { ProductRow } from "../api/types";
import { Link } from "wouter";
import { canWrite, useSession } from "../session";
import { Field } from "../ui/field";
import { count, dateTime } from "../ui/format";
import { Empty, ErrorText, Heading, Loading } from "../ui/page";
import { Pager, usePages } from "../ui/pager";
import { useGet, useQuery } from "../ui/query";

const TYPES: Record<string, string> = {
  physical: "Physical",
  digital: "Digital",
  service: "Service",
  "gift-card": "Gift card",
  subscription: "Subscription",
};

export default function Products() {
  const { me } = useSession();
  const writable = canWrite(me, "store");
  const [params, setParams] = useQuery();
  const q = params.get("q") ?? "";
  const after = params.get("after") ?? "";
  const { data, error, loading } = useGet<{ products: ProductRow[]; next: string | null }>(withQuery("/api/owner/products", { q, after }));
  const pages = usePages(after, (cursor) => setParams({ after: cursor }));
  const [search, setSearch] = useState(q);
  return (
    <>
      <Heading title="Products">Products</Heading>
      {writable && (
        <p>
          <Link href="/products/new" class="button">
            Add product
          </Link>
        </p>
      )}
      <form
        class="filters"
        role="search"
        aria-label="Products"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ q: search.trim(), after: "" });
        }}
      >
        <Field label="Search products" type="search" value={search} onValue={setSearch} />
        <button type="submit">Search</button>
      </form>
      <ErrorText message={error} />
      {loading && <Loading what="products" />}
      {data && data.products.length === 0 && <Empty>{q ? "No products match this search." : "No products yet."}</Empty>}
      {data && data.products.length > 0 && (
        <>
          <table>
            <caption class="visually-hidden">Products</caption>
            <thead>
              <tr>
                <th scope="col">
                  <span class="visually-hidden">Image</span>
                </th>
                <th scope="col">Product</th>
                <th scope="col">Type</th>
                <th scope="col" class="num">
                  Price
                </th>
                <th scope="col" class="num">
                  Stock
                </th>
                <th scope="col">Shown on the site</th>
              </tr>
            </thead>
            <tbody>
              {data.products.map((p) => (
                <tr key={p.id}>
                  <td>{p.image && <img src={p.image} alt="" width={48} height={48} loading="lazy" />}</td>
                  <th scope="row">
                    {writable ? <Link href={`/products/${encodeURIComponent(p.id)}`}>{p.title}</Link> : p.title}
                    <VisibilityBadge product={p} />
                  </th>
                  <td>{TYPES[p.type] ?? p.type}</td>
                  <td class="num">
                    {p.price.formatted}
                    {p.onSale && <span class="badge">On sale</span>}
                  </td>
                  <td class="num">{p.stock == null ? "Unlimited" : count(p.stock)}</td>
                  <td>{p.visible ? "Shown" : "Not shown"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Pages of products" next={data.next} onNext={pages.next} onPrevious={pages.previous} />
        </>
      )}
    </>
  );
}

/** What a product's own visibility says, when it is not simply shown. */
export function VisibilityBadge({ product }: { product: Pick<ProductRow, "visibility" | "publishOnMs" | "visible"> }) {
  if (product.visibility === "hidden") return <span class="badge">Hidden</span>;
  if (product.visibility === "scheduled" && !product.visible && product.publishOnMs != null)
    return <span class="badge">Scheduled for {dateTime(product.publishOnMs)}</span>;
  return null;
}
