// Add or edit a product, "Add product" and edit being the same form. Its data in one call,
// `GET /api/owner/product-form?id=` (the product, its images and digital file, the stores,
// their categories, the forms); saved with `POST /api/owner/collections/{store}/items` or
// `PATCH /api/owner/items/{id}` (JSON Merge Patch; prices in the import file's words,
// `price: "12.50"`), uploads with `POST /api/owner/product-files?kind=image|download`.
// Errors land beside their field, by the server's names (`title`, `variants[0].price`,
// `images[1].altText`, `structuredContent.subscriptionPlan.billingPeriod.value` …).
//
// Sections: Basics, Media (upload; reorder by buttons; alt text or decorative), Type (a
// radio group whose own fields follow: the file of a digital product, a subscription's
// plan, a gift card's amounts), Options (names and values; the variants are every
// combination, keeping what a variant that still exists had), Pricing & stock (per
// variant), Organisation (visibility: visible, hidden, or scheduled with its date and time in
// the owner's own time zone; categories), Checkout (an additional-fields form). Leaving with
// unsaved changes asks first.
import { useEffect, useRef, useState } from "preact/hooks";
import { Link, useLocation } from "wouter";
import type { components } from "../../api/schema";
import { api, ApiError, get, upload } from "../api/client";
import { Check, Field, Select } from "../ui/field";
import { RichText } from "../ui/rich-text";
import { decimals, localDateTime, localDateTimeMs } from "../ui/format";
import type { Visibility } from "../api/types";
import { announce, ErrorText, Heading, Loading } from "../ui/page";
import { canWrite, useSession } from "../session";

type FormData = components["schemas"]["OwnerProductForm"];
type Image = components["schemas"]["OwnerProductImage"];
type Uploaded = components["schemas"]["AssetAnswer"];

interface StoredVariant {
  sku: string;
  attributes?: Record<string, string>;
  currency?: string;
  priceMinor?: number;
  salePriceMinor?: number;
  onSale?: boolean;
  qtyInStock?: number;
  unlimited?: boolean;
  weightGrams?: number;
  [key: string]: unknown;
}
interface StoredItem {
  id: string;
  collectionId: string;
  title: string;
  urlId: string;
  body?: string;
  productType?: number | null;
  categories?: string[];
  visibility?: Visibility;
  publishOn?: number;
  structuredContent?: Record<string, any>;
  variants: StoredVariant[];
}

export type Kind = "physical" | "digital" | "service" | "gift-card" | "subscription";
const KINDS: [Kind, string, string][] = [
  ["physical", "Physical", "Shipped to the buyer."],
  ["digital", "Digital", "A file the buyer downloads; one price."],
  ["service", "Service", "Nothing ships."],
  ["gift-card", "Gift card", "Sold in the amounts you set."],
  ["subscription", "Subscription", "A physical product sent and charged on a plan."],
];
const VISIBILITIES: [Visibility, string, string][] = [
  ["visible", "Visible", "Shown on the site."],
  ["hidden", "Hidden", "A draft: only you and the site's other owners see it, here."],
  ["scheduled", "Scheduled", "Hidden until the date and time you choose, shown from then on."],
];
/** The server's word (api/src/routes/owner/content.rs `NO_PUBLISH_ON`). */
export const NO_PUBLISH_ON = "A scheduled item needs the date and time it shows from.";
const TYPE_NUMBER: Record<Kind, number> = { physical: 1, digital: 2, service: 3, "gift-card": 4, subscription: 1 };
/** SPEC.md §9 and the server's limits (docs/src/store-owners.md). */
export const MAX_OPTIONS = 6;
export const MAX_VARIANTS = 100;
export const MAX_IMAGES = 20;

export interface Option {
  name: string;
  values: string[];
}
export interface VariantDraft {
  /** Option name → value; empty without options. */
  attributes: Record<string, string>;
  sku: string;
  price: string;
  salePrice: string;
  onSale: boolean;
  stock: string;
  unlimited: boolean;
  weight: string;
  stored: StoredVariant | null;
}
interface ImageDraft extends Image {
  key: string;
}

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

export const blankVariant = (attributes: Record<string, string> = {}): VariantDraft => ({
  attributes,
  sku: "",
  price: "",
  salePrice: "",
  onSale: false,
  stock: "0",
  unlimited: false,
  weight: "",
  stored: null,
});

const sameAttributes = (a: Record<string, string>, b: Record<string, string>) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
};

/** Every combination of the options' values, in order; `[{}]` without options. */
export function combinations(options: Option[]): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const o of options) {
    if (!o.name.trim() || o.values.length === 0) continue;
    out = out.flatMap((a) => o.values.map((v) => ({ ...a, [o.name.trim()]: v })));
  }
  return out;
}

/** The variants of `options`: one per combination, a variant that still exists keeping
 *  what it had (price, stock, SKU …); a new one starts with the first variant's price. When
 *  the options lose or gain a name, a combination keeps the variant whose values it extends
 *  or narrows. */
export function generateVariants(options: Option[], existing: VariantDraft[]): VariantDraft[] {
  const combos = combinations(options);
  const used = new Set<VariantDraft>();
  const template = existing[0];
  const within = (small: Record<string, string>, big: Record<string, string>) => Object.entries(small).every(([k, x]) => big[k] === x);
  // An option added or taken away: the values a variant and a combination share decide.
  const matches = (v: VariantDraft, a: Record<string, string>) => within(v.attributes, a) || within(a, v.attributes);
  return combos.map((a) => {
    const found = existing.find((v) => !used.has(v) && sameAttributes(v.attributes, a)) ?? existing.find((v) => !used.has(v) && matches(v, a));
    if (found) {
      used.add(found);
      return { ...found, attributes: a };
    }
    return { ...blankVariant(a), price: template?.price ?? "", weight: template?.weight ?? "" };
  });
}

const amount = (minor: number | undefined, places: number) => ((minor ?? 0) / 10 ** places).toFixed(places);

function draftOf(v: StoredVariant, places: number): VariantDraft {
  return {
    attributes: { ...(v.attributes ?? {}) },
    sku: v.sku,
    price: amount(v.priceMinor, places),
    salePrice: v.salePriceMinor ? amount(v.salePriceMinor, places) : "",
    onSale: !!v.onSale,
    stock: String(v.qtyInStock ?? 0),
    unlimited: !!v.unlimited,
    weight: v.weightGrams ? String(v.weightGrams) : "",
    stored: v,
  };
}

/** A variant as sent: what it had, with the form's values in the import file's words. */
function variantBody(d: VariantDraft, weighed: boolean) {
  const { priceMinor: _p, salePriceMinor: _s, qtyInStock: _q, ...kept } = d.stored ?? {};
  const body: Record<string, unknown> = {
    ...kept,
    sku: d.sku.trim(),
    attributes: d.attributes,
    price: d.price.trim(),
    onSale: d.onSale,
    unlimited: d.unlimited,
  };
  if (d.salePrice.trim()) body.salePrice = d.salePrice.trim();
  if (!d.unlimited) body.stock = d.stock.trim() === "" ? 0 : Number(d.stock);
  if (weighed) body.weightGrams = d.weight.trim() === "" ? 0 : Number(d.weight);
  else delete body.weightGrams;
  return body;
}

const kindOf = (item: StoredItem): Kind => {
  if (item.structuredContent?.isSubscribable === true) return "subscription";
  return (["physical", "digital", "service", "gift-card"] as Kind[])[(item.productType ?? 1) - 1] ?? "physical";
};

/** Options from stored variants: `variantOptionOrdering`'s names (else the variants'), with
 *  the values in the order the variants first use them. */
function optionsOf(item: StoredItem): Option[] {
  const names: string[] = item.structuredContent?.variantOptionOrdering ?? [
    ...new Set(item.variants.flatMap((v) => Object.keys(v.attributes ?? {}))),
  ];
  return names.map((name) => ({
    name,
    values: [...new Set(item.variants.map((v) => v.attributes?.[name]).filter((x): x is string => !!x))],
  }));
}

let keys = 0;
const withKey = (i: Image): ImageDraft => ({ ...i, key: `img-${++keys}` });

export default function Product({ id }: { id?: string }) {
  const { me } = useSession();
  const places = decimals(me.site.currency);
  const currency = me.site.currency;
  const writable = canWrite(me, "store");
  const [, navigate] = useLocation();
  const [data, setData] = useState<FormData | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [storeId, setStoreId] = useState("");
  const [title, setTitle] = useState("");
  const [urlId, setUrlId] = useState("");
  const [slugTouched, setSlugTouched] = useState(!!id);
  const [description, setDescription] = useState("");
  const [kind, setKind] = useState<Kind>("physical");
  const [images, setImages] = useState<ImageDraft[]>([]);
  const [download, setDownload] = useState<{ fileName: string; assetId?: string } | null>(null);
  const [plan, setPlan] = useState({ value: "1", unit: "MONTH", cycles: "0" });
  const [options, setOptions] = useState<Option[]>([]);
  const [variants, setVariants] = useState<VariantDraft[]>([blankVariant()]);
  const [categories, setCategories] = useState<string[]>([]);
  const [visibility, setVisibility] = useState<Visibility>("visible");
  const [publishAt, setPublishAt] = useState("");
  const [formId, setFormId] = useState("");
  const [busy, setBusy] = useState(false);
  const [uploading, setUploading] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [dirty, setDirty] = useState(false);
  const stored = useRef<StoredItem | null>(null);

  useEffect(() => {
    get<FormData>(`/api/owner/product-form${id ? `?id=${encodeURIComponent(id)}` : ""}`)
      .then((d) => {
        setData(d);
        const item = d.product as StoredItem | null | undefined;
        stored.current = item ?? null;
        setStoreId(item?.collectionId ?? d.stores[0]?.id ?? "");
        setImages(d.images.map(withKey));
        setDownload(d.digitalFile ? { fileName: d.digitalFile.fileName } : null);
        if (!item) return;
        setTitle(item.title);
        setUrlId(item.urlId);
        setDescription(item.body ?? "");
        const k = kindOf(item);
        setKind(k);
        const p = item.structuredContent?.subscriptionPlan;
        if (p) setPlan({ value: String(p.billingPeriod?.value ?? 1), unit: p.billingPeriod?.unit ?? "MONTH", cycles: String(p.numBillingCycles ?? 0) });
        setOptions(optionsOf(item));
        setVariants(item.variants.length ? item.variants.map((v) => draftOf(v, places)) : [blankVariant()]);
        setCategories(item.categories ?? []);
        setVisibility(item.visibility ?? "visible");
        if (item.visibility === "scheduled" && item.publishOn) setPublishAt(localDateTime(item.publishOn));
        setFormId(item.structuredContent?.additionalFieldsFormId ?? "");
      })
      .catch((e: ApiError) => setLoadError(e.status === 404 ? "There is no such product on this site." : e.message));
  }, [id]);

  // Unsaved changes: asked before the page is left, by the app's links or the browser.
  useEffect(() => {
    if (!dirty) return;
    const unload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    const click = (e: MouseEvent) => {
      const a = (e.target as HTMLElement | null)?.closest?.("a[href]");
      if (a && !window.confirm("You have unsaved changes. Leave without saving them?")) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    window.addEventListener("beforeunload", unload);
    document.addEventListener("click", click, true);
    return () => {
      window.removeEventListener("beforeunload", unload);
      document.removeEventListener("click", click, true);
    };
  }, [dirty]);

  /** A setter that marks the form changed. */
  const changing =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setDirty(true);
    };
  const fieldError = (name: string) => error?.fields[name];
  const variantError = (i: number, ...names: string[]) => names.map((n) => error?.fields[`variants[${i}].${n}`]).find(Boolean);

  const setVariant = (i: number, change: Partial<VariantDraft>) => {
    setVariants(variants.map((v, j) => (j === i ? { ...v, ...change } : v)));
    setDirty(true);
  };
  const setOptionList = (next: Option[]) => {
    setOptions(next);
    setVariants(generateVariants(next, variants));
    setDirty(true);
  };
  /** A new name for option `i`: the variants keep their values under it. */
  const renameOption = (i: number, name: string) => {
    const was = options[i].name.trim();
    const now = name.trim();
    const next = options.map((x, j) => (j === i ? { ...x, name } : x));
    const renamed = variants.map((v) => {
      if (!was || !(was in v.attributes) || !now) return v;
      const { [was]: value, ...rest } = v.attributes;
      return { ...v, attributes: { ...rest, [now]: value } };
    });
    setOptions(next);
    setVariants(generateVariants(next, renamed));
    setDirty(true);
  };
  const chooseKind = (k: Kind) => {
    setKind(k);
    setDirty(true);
    if (k === "digital" || k === "gift-card") {
      // A digital good has one price; a gift card's options are its amounts.
      const next = k === "gift-card" ? options.filter((o) => o.name === "Amount") : [];
      setOptions(next);
      setVariants(generateVariants(next, variants));
    }
  };

  const uploadFile = async (file: File, kindOfFile: "image" | "download") => {
    setUploading(file.name);
    setError(null);
    try {
      const made = await upload<Uploaded>(`/api/owner/product-files?fileName=${encodeURIComponent(file.name)}&kind=${kindOfFile}`, file);
      if (kindOfFile === "image") setImages((list) => [...list, withKey({ url: made.url, altText: "", decorative: false })]);
      else setDownload({ fileName: made.fileName, assetId: made.id });
      setDirty(true);
      announce(`${file.name} uploaded.`);
    } catch (e) {
      const err = e as ApiError;
      setError(new ApiError(err.status, err.message, { [kindOfFile === "image" ? "images" : "digitalFile"]: err.message }));
    } finally {
      setUploading(null);
    }
  };
  const moveImage = (i: number, by: number) => {
    const next = [...images];
    const [it] = next.splice(i, 1);
    next.splice(i + by, 0, it);
    setImages(next);
    setDirty(true);
    announce(`Image moved to position ${i + by + 1} of ${next.length}.`);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const publishOn = visibility === "scheduled" ? localDateTimeMs(publishAt) : null;
    if (visibility === "scheduled" && publishOn === null) {
      // Left to the server, an edit would keep the product's old date.
      setError(new ApiError(400, NO_PUBLISH_ON, { publishOn: NO_PUBLISH_ON }));
      return;
    }
    setBusy(true);
    setError(null);
    const editing = !!id;
    const withNull = (v: unknown) => (editing ? v : undefined);
    const named = options.filter((o) => o.name.trim() && o.values.length);
    const sc: Record<string, unknown> = {
      variantOptionOrdering: named.length ? named.map((o) => o.name.trim()) : withNull(null),
      isSubscribable: kind === "subscription" ? true : withNull(null),
      subscriptionPlan:
        kind === "subscription"
          ? { billingPeriod: { value: Number(plan.value), unit: plan.unit }, numBillingCycles: Number(plan.cycles) }
          : withNull(null),
      additionalFieldsFormId: formId || withNull(""),
    };
    Object.keys(sc).forEach((k) => sc[k] === undefined && delete sc[k]);
    const weighed = kind === "physical" || kind === "subscription";
    const body: Record<string, unknown> = {
      title: title.trim(),
      urlId: urlId.trim(),
      body: description,
      productType: TYPE_NUMBER[kind],
      categories,
      visibility,
      images: images.map(({ url, altText, decorative }) => ({ url, altText: decorative ? "" : altText, decorative })),
      structuredContent: sc,
      variants: variants.map((v) => variantBody(v, weighed)),
    };
    if (publishOn !== null) body.publishOn = publishOn;
    if (kind === "digital" && download?.assetId) body.digitalFile = { assetId: download.assetId };
    try {
      if (editing) {
        const saved = await api<StoredItem>("PATCH", `/api/owner/items/${encodeURIComponent(id!)}`, body);
        stored.current = saved;
        setVariants(saved.variants.map((v) => draftOf(v, places)));
        if (download?.assetId) setDownload({ fileName: download.fileName });
        setDirty(false);
        announce("Product saved.");
        setBusy(false);
      } else {
        const made = await api<StoredItem>("POST", `/api/owner/collections/${encodeURIComponent(storeId)}/items`, body);
        setDirty(false);
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
  if (!data)
    return (
      <>
        {header}
        <Loading what="the product" />
      </>
    );
  if (data.stores.length === 0)
    return (
      <>
        {header}
        <p>This site has no store page to add products to.</p>
      </>
    );
  if (!writable)
    return (
      <>
        {header}
        <p>Your role may look at products but not change them.</p>
      </>
    );
  const storeCategories = data.categories.filter((c) => c.collectionId === storeId);
  const hasOptions = kind !== "digital" && kind !== "gift-card";
  const weighed = kind === "physical" || kind === "subscription";
  const variantName = (v: VariantDraft) => Object.values(v.attributes).join(" / ") || "The product";
  return (
    <>
      {header}
      <form onSubmit={submit} noValidate class="product-form">
        <ErrorText message={error?.message} />
        <fieldset>
          <legend>Basics</legend>
          {!id && data.stores.length > 1 && (
            <Select label="Store page" value={storeId} onValue={changing(setStoreId)} options={data.stores.map((s) => [s.id, s.title])} />
          )}
          <Field
            label="Title"
            required
            value={title}
            onValue={(v) => {
              setTitle(v);
              setDirty(true);
              if (!slugTouched) setUrlId(slug(v));
            }}
            error={fieldError("title")}
          />
          <Field
            label="Address"
            hint="The last part of the product page's address: 3-200 of a-z, 0-9, - _ ."
            value={urlId}
            onValue={(v) => {
              setSlugTouched(true);
              setUrlId(v);
              setDirty(true);
            }}
            error={fieldError("urlId")}
          />
          <RichText label="Description" value={description} onValue={changing(setDescription)} error={fieldError("body")} images={canWrite(me, "content")} />
        </fieldset>

        <fieldset>
          <legend>Media</legend>
          {images.length === 0 && <p>No images yet.</p>}
          <ol class="images">
            {images.map((img, i) => (
              <li key={img.key}>
                <fieldset>
                  <legend>Image {i + 1}</legend>
                  <img src={img.url} alt="" width={96} height={96} />
                  <Field
                    label="Alt text"
                    hint="What the picture shows, for people who cannot see it."
                    disabled={img.decorative}
                    value={img.decorative ? "" : img.altText}
                    onValue={(altText) => changing(setImages)(images.map((x, j) => (j === i ? { ...x, altText } : x)))}
                    error={fieldError(`images[${i}].altText`) ?? fieldError(`images[${i}].url`)}
                  />
                  <Check
                    label="Decorative (no alt text)"
                    checked={img.decorative}
                    onChange={(decorative) => changing(setImages)(images.map((x, j) => (j === i ? { ...x, decorative } : x)))}
                  />
                  <div class="actions">
                    <button type="button" disabled={i === 0} onClick={() => moveImage(i, -1)}>
                      Move image {i + 1} up
                    </button>
                    <button type="button" disabled={i === images.length - 1} onClick={() => moveImage(i, 1)}>
                      Move image {i + 1} down
                    </button>
                    <button type="button" onClick={() => changing(setImages)(images.filter((_, j) => j !== i))}>
                      Remove image {i + 1}
                    </button>
                  </div>
                </fieldset>
              </li>
            ))}
          </ol>
          {images.length < MAX_IMAGES && (
            <FileField
              label="Upload an image"
              hint="PNG, JPEG, GIF or WebP, at most 20 MB. The first image is the main one."
              accept="image/png,image/jpeg,image/gif,image/webp"
              busy={uploading}
              error={fieldError("images")}
              onFile={(f) => uploadFile(f, "image")}
            />
          )}
        </fieldset>

        <fieldset>
          <legend>Type</legend>
          <div role="radiogroup" aria-label="Product type">
            {KINDS.map(([k, label, hint]) => (
              <label class="check" key={k}>
                <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => chooseKind(k)} /> {label}
                <span class="hint">{hint}</span>
              </label>
            ))}
          </div>
          {fieldError("productType") && <ErrorText message={fieldError("productType")} />}
          {kind === "digital" && (
            <FileField
              label="File to download"
              hint={download ? `Now: ${download.fileName}${download.assetId ? " (saved with the product)" : ""}` : "PDF, ZIP, MP3, MP4 or an image, at most 20 MB."}
              busy={uploading}
              error={fieldError("digitalFile")}
              onFile={(f) => uploadFile(f, "download")}
            />
          )}
          {kind === "subscription" && (
            <fieldset>
              <legend>Plan</legend>
              <div class="filters">
                <Field
                  label="Bill every"
                  type="number"
                  min={1}
                  step={1}
                  value={plan.value}
                  onValue={(value) => changing(setPlan)({ ...plan, value })}
                  error={fieldError("structuredContent.subscriptionPlan.billingPeriod.value") ?? fieldError("structuredContent.subscriptionPlan")}
                />
                <Select
                  label="Period"
                  value={plan.unit}
                  onValue={(unit) => changing(setPlan)({ ...plan, unit })}
                  options={[
                    ["WEEK", "Weeks"],
                    ["MONTH", "Months"],
                    ["YEAR", "Years"],
                  ]}
                />
                <Field
                  label="Number of payments"
                  hint="0: until the subscriber cancels."
                  type="number"
                  min={0}
                  step={1}
                  value={plan.cycles}
                  onValue={(cycles) => changing(setPlan)({ ...plan, cycles })}
                  error={fieldError("structuredContent.subscriptionPlan.numBillingCycles")}
                />
              </div>
            </fieldset>
          )}
          {kind === "gift-card" && (
            <ValueList
              label="Amounts"
              hint={`Each amount the card is sold in, like 25.00 (${currency}).`}
              values={options[0]?.values ?? []}
              onValues={(values) => {
                const next = values.length ? [{ name: "Amount", values }] : [];
                setOptions(next);
                // A new amount is the price of its variant; a gift card is never sold out.
                const had = new Set(variants.map((v) => v.attributes.Amount));
                setVariants(
                  generateVariants(next, variants).map((v) => (had.has(v.attributes.Amount) ? v : { ...v, price: v.attributes.Amount ?? "", unlimited: true })),
                );
                setDirty(true);
              }}
              error={fieldError("structuredContent.variantOptionOrdering")}
            />
          )}
        </fieldset>

        {hasOptions && (
          <fieldset>
            <legend>Options</legend>
            <p class="hint">
              Like Size or Colour, each with its values: the product has a variant for every combination (at most {MAX_OPTIONS} options and{" "}
              {MAX_VARIANTS} variants).
            </p>
            {fieldError("structuredContent.variantOptionOrdering") && <ErrorText message={fieldError("structuredContent.variantOptionOrdering")} />}
            {options.map((o, i) => (
              <fieldset key={i}>
                <legend>Option {i + 1}</legend>
                <Field
                  label="Option name"
                  value={o.name}
                  onValue={(name) => renameOption(i, name)}
                  error={fieldError(`structuredContent.variantOptionOrdering[${i}]`)}
                />
                <ValueList
                  label={`Values of ${o.name || `option ${i + 1}`}`}
                  values={o.values}
                  onValues={(values) => setOptionList(options.map((x, j) => (j === i ? { ...x, values } : x)))}
                />
                <button type="button" onClick={() => setOptionList(options.filter((_, j) => j !== i))}>
                  Remove option {o.name || i + 1}
                </button>
              </fieldset>
            ))}
            {options.length < MAX_OPTIONS && (
              <button type="button" onClick={() => setOptionList([...options, { name: "", values: [] }])}>
                Add an option
              </button>
            )}
            {variants.length > MAX_VARIANTS && <ErrorText message={`A product has at most ${MAX_VARIANTS} variants.`} />}
          </fieldset>
        )}

        <fieldset>
          <legend>Pricing &amp; stock</legend>
          {fieldError("variants") && <ErrorText message={fieldError("variants")} />}
          {variants.map((v, i) => (
            <fieldset key={i} class="variant">
              <legend>{variantName(v)}</legend>
              {variantError(i, "attributes") && <ErrorText message={variantError(i, "attributes")} />}
              <div class="filters">
                <Field
                  label={`Price (${currency})`}
                  inputMode="decimal"
                  value={v.price}
                  onValue={(price) => setVariant(i, { price })}
                  error={variantError(i, "price", "priceMinor", "currency")}
                />
                {kind !== "gift-card" && (
                  <>
                    <Field
                      label={`Sale price (${currency})`}
                      inputMode="decimal"
                      value={v.salePrice}
                      onValue={(salePrice) => setVariant(i, { salePrice })}
                      error={variantError(i, "salePrice", "salePriceMinor")}
                    />
                    <Check label="On sale" checked={v.onSale} onChange={(onSale) => setVariant(i, { onSale })} />
                  </>
                )}
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
                <Check label="Unlimited stock" checked={v.unlimited} onChange={(unlimited) => setVariant(i, { unlimited })} />
                <Field label="SKU" value={v.sku} onValue={(sku) => setVariant(i, { sku })} error={variantError(i, "sku")} />
                {weighed && (
                  <Field
                    label="Weight (g)"
                    type="number"
                    min={0}
                    step={1}
                    value={v.weight}
                    onValue={(weight) => setVariant(i, { weight })}
                    error={variantError(i, "weightGrams")}
                  />
                )}
              </div>
            </fieldset>
          ))}
        </fieldset>

        <fieldset>
          <legend>Organisation</legend>
          <fieldset>
            <legend>Visibility</legend>
            <div role="radiogroup" aria-label="Visibility">
              {VISIBILITIES.map(([v, label, hint]) => (
                <label class="check" key={v}>
                  <input type="radio" name="visibility" value={v} checked={visibility === v} onChange={() => changing(setVisibility)(v)} /> {label}
                  <span class="hint">{hint}</span>
                </label>
              ))}
            </div>
            {fieldError("visibility") && <ErrorText message={fieldError("visibility")} />}
            {visibility === "scheduled" && (
              <Field
                label="Shown from"
                hint="Date and time, in your time zone."
                type="datetime-local"
                value={publishAt}
                onValue={changing(setPublishAt)}
                error={fieldError("publishOn")}
              />
            )}
          </fieldset>
          {storeCategories.length === 0 ? (
            <p>This store has no categories.</p>
          ) : (
            <fieldset>
              <legend>Categories</legend>
              {storeCategories.map((c) => {
                const at = categories.indexOf(c.name);
                return (
                  <div key={c.name}>
                    <Check
                      label={c.name}
                      checked={at >= 0}
                      onChange={(on) => changing(setCategories)(on ? [...categories, c.name] : categories.filter((x) => x !== c.name))}
                    />
                    {at >= 0 && fieldError(`categories[${at}]`) && <ErrorText message={fieldError(`categories[${at}]`)} />}
                  </div>
                );
              })}
            </fieldset>
          )}
        </fieldset>

        <fieldset>
          <legend>Checkout</legend>
          <Select
            label="Additional fields form"
            value={formId}
            onValue={changing(setFormId)}
            options={[["", "None"], ...data.forms.map((f): [string, string] => [f.id, f.name])]}
          />
          {fieldError("structuredContent.additionalFieldsFormId") && <ErrorText message={fieldError("structuredContent.additionalFieldsFormId")} />}
          <p class="hint">Checkout asks the buyer this form's questions for each of these they buy.</p>
        </fieldset>

        <div class="toolbar">
          <button type="submit" class="primary" disabled={busy || !!uploading}>
            {id ? "Save product" : "Add product"}
          </button>
        </div>
      </form>
    </>
  );
}

/** A list of values shown as chips, each removable, with a field and button to add one
 *  (Enter adds too). */
function ValueList({ label, hint, values, onValues, error }: { label: string; hint?: string; values: string[]; onValues: (v: string[]) => void; error?: string }) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  const add = () => {
    const v = text.trim();
    if (!v) return;
    if (v.length > 50) return setProblem("An option value is 1-50 characters.");
    if (values.includes(v)) return setProblem(`This value already exists`);
    setProblem(undefined);
    onValues([...values, v]);
    setText("");
  };
  return (
    <div class="value-list">
      <ul class="chips" aria-label={label}>
        {values.map((v) => (
          <li key={v} class="chip">
            {v}{" "}
            <button type="button" aria-label={`Remove ${v} from ${label}`} onClick={() => onValues(values.filter((x) => x !== v))}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <div
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            add();
          }
        }}
      >
        <Field label={`Add to ${label}`} hint={hint} value={text} onValue={setText} error={problem ?? error} />
      </div>
      <button type="button" onClick={add}>
        Add value
      </button>
    </div>
  );
}

function FileField({
  label,
  hint,
  accept,
  busy,
  error,
  onFile,
}: {
  label: string;
  hint: string;
  accept?: string;
  busy: string | null;
  error?: string;
  onFile: (f: File) => void;
}) {
  const id = `f-${label.toLowerCase().replace(/\W+/g, "-")}`;
  const ref = useRef<HTMLInputElement>(null);
  const latest = useRef(onFile);
  latest.current = onFile;
  // Listened to directly: the file chosen, once per choice.
  useEffect(() => {
    const input = ref.current!;
    const chosen = () => {
      const f = input.files?.[0];
      if (f) latest.current(f);
      input.value = "";
    };
    input.addEventListener("change", chosen);
    return () => input.removeEventListener("change", chosen);
  }, []);
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      <span class="hint" id={`${id}-hint`}>
        {busy ? `Uploading ${busy}…` : hint}
      </span>
      <input
        id={id}
        type="file"
        accept={accept}
        disabled={!!busy}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={[`${id}-hint`, error ? `${id}-error` : ""].filter(Boolean).join(" ")}
        ref={ref}
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

