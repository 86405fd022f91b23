// What the server tells the islands about the page (`<script type="application/json"
// id="tessera-data">`): the store's currency and locale, its express-checkout setting, and
// the visitor's cart summary, so the cart pill and widget show without a request; the
// instalment pills of the products on the page; the restock sign-up's success text.

export interface CartSummary {
  totalQuantity: number;
  subtotalCents: number;
  currency: string;
}

/** A product's instalment pill at its lowest price, as the server works it out. */
export interface InstalmentPill {
  provider: string;
  brand: string;
  payments: number;
  minimumCents: number;
  maximumCents: number;
  inRange: boolean;
  installmentCents: number;
  text: string;
}

export interface PageData {
  currency: string;
  locale: string;
  expressCheckout: boolean;
  cart: CartSummary | null;
  /** The instalment pills of the products on the page, by item id. */
  instalments?: Record<string, InstalmentPill>;
  /** The merchant's text for a restock sign-up that went through (else "Signed up!"). */
  restockSuccessText?: string | null;
  /** Present when analytics is on: whether the server counted this page, and its type. */
  analytics?: { track: boolean; pageType: number | null };
  /** The site's plan status when it shows (trial 3, expired 1, parking page 12). */
  websiteStatus?: number;
}

let cached: PageData | null = null;

export function pageData(): PageData {
  if (cached) return cached;
  let raw: Partial<PageData> = {};
  const el = document.getElementById("tessera-data");
  if (el?.textContent) {
    try {
      raw = JSON.parse(el.textContent);
    } catch {
      raw = {};
    }
  }
  cached = {
    currency: raw.currency ?? "USD",
    locale: raw.locale ?? document.documentElement.lang ?? "en-US",
    expressCheckout: raw.expressCheckout ?? false,
    cart: raw.cart ?? null,
    instalments: raw.instalments,
    restockSuccessText: raw.restockSuccessText,
    analytics: raw.analytics,
    websiteStatus: raw.websiteStatus,
  };
  return cached;
}

/** Forget what was read (tests change the page). */
export function resetPageData() {
  cached = null;
}
