// A product's variants as the page carries them (`.product-variants[data-variants]`, one
// select or row of radio buttons per option) and the rules for choosing one.

export interface Money {
  currency?: string;
  value?: string;
  currencyCode?: string;
  decimalValue?: string;
}

export interface Variant {
  sku: string;
  attributes: Record<string, string>;
  qtyInStock?: number;
  unlimited?: boolean;
  onSale?: boolean;
  priceMoney?: Money;
  salePriceMoney?: Money;
  /** A variant's own image, when it has one. */
  mainImage?: { assetUrl?: string };
}

export function readVariants(el: Element): Variant[] {
  try {
    const parsed = JSON.parse(el.getAttribute("data-variants") ?? "[]");
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** The option names, in the order the page shows them. */
export function optionNames(el: Element): string[] {
  const names: string[] = [];
  for (const s of el.querySelectorAll("[data-variant-option-name]")) {
    const n = s.getAttribute("data-variant-option-name");
    if (n && !names.includes(n)) names.push(n);
  }
  return names;
}

/** What the visitor chose per option (from the selects, or the checked radio buttons). */
export function selection(el: Element): Record<string, string> {
  const chosen: Record<string, string> = {};
  for (const s of el.querySelectorAll<HTMLSelectElement>("select[data-variant-option-name]")) {
    if (s.value) chosen[s.getAttribute("data-variant-option-name")!] = s.value;
  }
  for (const r of el.querySelectorAll<HTMLInputElement>("input.variant-radiobtn:checked")) {
    const name = r.closest("[data-variant-option-name]")?.getAttribute("data-variant-option-name");
    if (name && !chosen[name]) chosen[name] = r.value;
  }
  return chosen;
}

export function missingOptions(names: string[], chosen: Record<string, string>): string[] {
  return names.filter((n) => !chosen[n]);
}

/** The variant whose options are all the chosen ones. */
export function findVariant(variants: Variant[], chosen: Record<string, string>): Variant | null {
  return (
    variants.find((v) => {
      const attrs = v.attributes ?? {};
      const keys = Object.keys(attrs);
      return keys.length > 0 && keys.every((k) => chosen[k] === attrs[k]);
    }) ?? null
  );
}

export function isSoldOut(v: Variant): boolean {
  return !v.unlimited && (v.qtyInStock ?? 0) <= 0;
}

/** Whether some variant in stock has `value` for `option`, given the other choices. */
export function valueAvailable(
  variants: Variant[],
  chosen: Record<string, string>,
  option: string,
  value: string,
): boolean {
  return variants.some((v) => {
    const attrs = v.attributes ?? {};
    if (attrs[option] !== value || isSoldOut(v)) return false;
    return Object.entries(chosen).every(([k, c]) => k === option || attrs[k] === c);
  });
}

/** The price a variant sells at, in minor units. */
export function sellingCents(v: Variant): number | null {
  const m = v.onSale ? v.salePriceMoney : v.priceMoney;
  const text = m?.value ?? m?.decimalValue;
  if (text === undefined) return null;
  const [whole, frac = ""] = text.split(".");
  const digits = frac.length;
  return Number(whole) * 10 ** Math.max(digits, 0) + (digits ? Number(frac) : 0);
}
