// Add or edit a product: title, address (slug), description, type, and its variants (SKU,
// options, price, sale price, stock or unlimited), through the owner API's item routes that
// exist today: `GET /api/owner/collections` (the store), `GET …/collections/{id}/items`
// (the product), `POST …/collections/{id}/items` (add), `PATCH /api/owner/items/{id}`
// (JSON Merge Patch; prices in the import file's words, `price: "12.50"`, which the server
// reads in the store's currency). Errors by field, as the server names them
// (`title`, `urlId`, `variants[0].price` …). Images, digital files, subscriptions, the
// option editor, weight and categories come next.
import { useEffect, useState } from "preact/hooks";
import { Link, useLocation } from "wouter";
import { api, ApiError, get } from "../api/client";
import { Field, Select } from "../ui/field";
import { decimals } from "../ui/format";
import { announce, ErrorText, Heading, Loading } from "../ui/page";
import { useSession } from "../session";

interface Collection {
  id: string;
  title: string;
  type: number;
}
interface StoredVariant {
  sku: string;
  attributes?: Record<string, string>;
  currency?: string;
  priceMinor?: number;
  salePriceMinor?: number;
  onSale?: boolean;
  qtyInStock?: number;
  unlimited?: boolean;
  [key: string]: unknown;
}
interface StoredItem {
  id: string;
  title: string;
  urlId: string;
  body?: string;
  productType?: number | null;
  variants: StoredVariant[];
}

interface VariantDraft {
  sku: string;
  options: string;
  price: string;
  salePrice: string;
  onSale: boolean;
  stock: string;
  unlimited: boolean;
  stored: StoredVariant | null;
}

const TYPES: [string, string][] = [
  ["1", "Physical"],
  ["2", "Digital"],
  ["3", "Service"],
  ["4", "Gift card"],
];

/** `a-title-like-this` from a title. */
export function slug(title: string): string {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 200);
}

const amount = (minor: number | undefined, places: number) => ((minor ?? 0) / 10 ** places).toFixed(places);
/** `Size: M, Colour: Oat` ↔ `{Size: "M", Colour: "Oat"}`. */
const optionsText = (a: Record<string, string> | undefined) =>
  Object.entries(a ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join(", ");
const optionsOf = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(",")
      .map((p) => p.split(":").map((s) => s.trim()))
      .filter((kv) => kv.length === 2 && kv[0] && kv[1]),
  );

function draftOf(v: StoredVariant, places: number): VariantDraft {
  return {
    sku: v.sku,
    options: optionsText(v.attributes),
    price: amount(v.priceMinor, places),
    salePrice: v.salePriceMinor ? amount(v.salePriceMinor, places) : "",
    onSale: !!v.onSale,
    stock: String(v.qtyInStock ?? 0),
    unlimited: !!v.unlimited,
    stored: v,
  };
}

const blankVariant = (): VariantDraft => ({ sku: "", options: "", price: "", salePrice: "", onSale: false, stock: "0", unlimited: false, stored: null });

/** A variant as sent: what it had, with the form's values in the import file's words. */
function variantBody(d: VariantDraft) {
  const { priceMinor: _p, salePriceMinor: _s, qtyInStock: _q, ...kept } = d.stored ?? {};
  const body: Record<string, unknown> = {
    ...kept,
    sku: d.sku.trim(),
    attributes: optionsOf(d.options),
    price: d.price.trim(),
    onSale: d.onSale,
    unlimited: d.unlimited,
  };
  if (d.salePrice.trim()) body.salePrice = d.salePrice.trim();
  if (!d.unlimited) body.stock = d.stock.trim() === "" ? 0 : Number(d.stock);
  return body;
}

export default function Product({ id }: { id?: string }) {
  const { me } = useSession();
  const places = decimals(me.site.currency);
  const [, navigate] = useLocation();
  const [stores, setStores] = useState<Collection[] | null>(null);
  const [storeId, setStoreId] = useState("");
  const [loadError, setLoadError] = useState<string | null>(null);
  const [title, setTitle] = useState("");
  const [urlId, setUrlId] = useState("");
  const [slugTouched, setSlugTouched] = useState(!!id);
  const [description, setDescription] = useState("");
  const [type, setType] = useState("1");
  const [variants, setVariants] = useState<VariantDraft[]>([blankVariant()]);
  const [loaded, setLoaded] = useState(!id);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    (async () => {
      const { collections } = await get<{ collections: Collection[] }>("/api/owner/collections");
      const mine = collections.filter((c) => c.type === 13);
      setStores(mine);
      setStoreId(mine[0]?.id ?? "");
      if (!id) return;
      for (const c of mine) {
        const { items } = await get<{ items: StoredItem[] }>(`/api/owner/collections/${encodeURIComponent(c.id)}/items`);
        const item = items.find((i) => i.id === id);
        if (item) {
          setStoreId(c.id);
          setTitle(item.title);
          setUrlId(item.urlId);
          setDescription(item.body ?? "");
          setType(String(item.productType ?? 1));
          setVariants(item.variants.length ? item.variants.map((v) => draftOf(v, places)) : [blankVariant()]);
          setLoaded(true);
          return;
        }
      }
      setLoadError("There is no such product on this site.");
    })().catch((e: ApiError) => setLoadError(e.message));
  }, [id]);

  const setVariant = (i: number, change: Partial<VariantDraft>) => setVariants(variants.map((v, j) => (j === i ? { ...v, ...change } : v)));
  const fieldError = (name: string) => error?.fields[name];
  const variantError = (i: number, ...names: string[]) => names.map((n) => error?.fields[`variants[${i}].${n}`]).find(Boolean);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body = {
      title: title.trim(),
      urlId: urlId.trim(),
      body: description,
      productType: Number(type),
      variants: variants.map(variantBody),
    };
    try {
      if (id) {
        await api("PATCH", `/api/owner/items/${encodeURIComponent(id)}`, body);
        announce("Product saved.");
        setBusy(false);
      } else {
        const made = await api<StoredItem>("POST", `/api/owner/collections/${encodeURIComponent(storeId)}/items`, body);
        announce("Product added.");
        navigate(`/products/${encodeURIComponent(made.id)}`, { replace: true });
      }
    } catch (err) {
      setError(err as ApiError);
      setBusy(false);
    }
  };

  const name = id ? "Edit product" : "Add product";
  const header = (
    <>
      <p>
        <Link href="/products">Back to products</Link>
      </p>
      <Heading title={id && title ? title : name}>{id ? title || name : name}</Heading>
    </>
  );
  if (loadError)
    return (
      <>
        {header}
        <ErrorText message={loadError} />
      </>
    );
  if (!stores || !loaded)
    return (
      <>
        {header}
        <Loading what="the product" />
      </>
    );
  if (stores.length === 0)
    return (
      <>
        {header}
        <p>This site has no store page to add products to.</p>
      </>
    );
  return (
    <>
      {header}
      <form onSubmit={submit} noValidate>
        <ErrorText message={error?.message} />
        {!id && stores.length > 1 && (
          <Select label="Store page" value={storeId} onValue={setStoreId} options={stores.map((s) => [s.id, s.title])} />
        )}
        <Field
          label="Title"
          required
          value={title}
          onValue={(v) => {
            setTitle(v);
            if (!slugTouched) setUrlId(slug(v));
          }}
          error={fieldError("title")}
        />
        <Field
          label="Address"
          hint="The last part of the product page's address: letters, digits, - _ ."
          value={urlId}
          onValue={(v) => {
            setSlugTouched(true);
            setUrlId(v);
          }}
          error={fieldError("urlId")}
        />
        <TextArea label="Description" hint="HTML" value={description} onValue={setDescription} error={fieldError("body")} />
        <Select label="Product type" value={type} onValue={setType} options={TYPES} />
        {fieldError("productType") && <ErrorText message={fieldError("productType")} />}
        <fieldset>
          <legend>Variants</legend>
          {fieldError("variants") && <ErrorText message={fieldError("variants")} />}
          {variants.map((v, i) => (
            <fieldset key={i} class="variant">
              <legend>Variant {i + 1}</legend>
              <div class="filters">
                <Field label="SKU" value={v.sku} onValue={(sku) => setVariant(i, { sku })} error={variantError(i, "sku")} />
                <Field label="Options" hint="Like Size: M, Colour: Oat" value={v.options} onValue={(options) => setVariant(i, { options })} />
                <Field
                  label={`Price (${me.site.currency})`}
                  inputMode="decimal"
                  value={v.price}
                  onValue={(price) => setVariant(i, { price })}
                  error={variantError(i, "price", "priceMinor", "currency")}
                />
                <Field
                  label={`Sale price (${me.site.currency})`}
                  inputMode="decimal"
                  value={v.salePrice}
                  onValue={(salePrice) => setVariant(i, { salePrice })}
                  error={variantError(i, "salePrice", "salePriceMinor")}
                />
                <Check label="On sale" checked={v.onSale} onChecked={(onSale) => setVariant(i, { onSale })} />
                <Field
                  label="Stock"
                  type="number"
                  min={0}
                  step={1}
                  disabled={v.unlimited}
                  value={v.unlimited ? "" : v.stock}
                  onValue={(stock) => setVariant(i, { stock })}
                  error={variantError(i, "stock", "qtyInStock")}
                />
                <Check label="Unlimited stock" checked={v.unlimited} onChecked={(unlimited) => setVariant(i, { unlimited })} />
              </div>
              {variants.length > 1 && (
                <button type="button" onClick={() => setVariants(variants.filter((_, j) => j !== i))}>
                  Remove variant {i + 1}
                </button>
              )}
            </fieldset>
          ))}
          <button type="button" onClick={() => setVariants([...variants, blankVariant()])}>
            Add a variant
          </button>
        </fieldset>
        <div class="toolbar">
          <button type="submit" class="primary" disabled={busy}>
            {id ? "Save product" : "Add product"}
          </button>
        </div>
      </form>
    </>
  );
}

function Check({ label, checked, onChecked }: { label: string; checked: boolean; onChecked: (v: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChecked((e.currentTarget as HTMLInputElement).checked)} /> {label}
    </label>
  );
}

function TextArea({ label, hint, value, onValue, error }: { label: string; hint?: string; value: string; onValue: (v: string) => void; error?: string }) {
  const id = `f-${label.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      <textarea
        id={id}
        rows={6}
        value={value}
        onInput={(e) => onValue((e.currentTarget as HTMLTextAreaElement).value)}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={[hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined}
      />
      {error && (
        <span class="field-error" id={`${id}-error`}>
          <span aria-hidden="true">⚠ </span>
          {error}
        </span>
      )}
    </div>
  );
}
