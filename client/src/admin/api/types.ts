// The JSON the owner's app reads, as the issue 43 plan's contract fixes it (camelCase; money
// as `Money`, times as epoch milliseconds `…Ms`, lists as `{<plural>: T[], next}`).
// Written by hand while the routes are built on other branches; when they land, these
// become aliases of the generated `client/src/api/schema.d.ts` types (one file to swap).

import type { components } from "../../api/schema";

/** The shapes of the server's OpenAPI document (generated into client/src/api/schema.d.ts). */
type Schemas = components["schemas"];

export interface Money {
  minor: number;
  currency: string;
  /** Formatted by the server in the site's locale. */
  formatted: string;
}

/** A list page: the rows under their plural key, and the cursor of the next page. */
export type Page<K extends string, T> = { [key in K]: T[] } & { next: string | null };

// ---- A. accounts and the session ----

export type AreaName =
  | "content"
  | "design"
  | "store"
  | "orders"
  | "forms"
  | "analytics"
  | "comments"
  | "languages"
  | "access";
export type Access = "write" | "read" | null;

export interface Me {
  /** Null when the caller is a bearer token. */
  account: { id: string; email: string; role: number; roleName: string } | null;
  csrf: string | null;
  site: { identifier: string; title: string; currency: string };
  areas: Record<AreaName, Access>;
}

export interface Account {
  id: string;
  email: string;
  role: number;
  roleName: string;
  createdMs: number;
  passwordSet: boolean;
}

export interface Invite {
  id: string;
  email: string;
  role: number;
  roleName: string;
  expiresMs: number;
}

export interface ApiToken {
  id: string;
  name: string;
  role: number;
  roleName: string;
  createdMs: number;
  lastUsedMs: number | null;
}

// ---- B. orders ----

export type PaymentState = "awaiting-payment" | "paid" | "partially-refunded" | "refunded" | "expired";
export type FulfilmentState = "unfulfilled" | "partially-fulfilled" | "fulfilled" | "not-required";
export type OrderAction = "mark-paid" | "fulfil" | "cancel" | "refund" | "resend-confirmation";

export interface OrderSummary {
  id: string;
  number: number | string;
  placedMs: number;
  email: string;
  /** The billing or shipping name, or "". */
  name: string;
  total: Money;
  payment: PaymentState;
  fulfilment: FulfilmentState;
  cancelled: boolean;
  itemCount: number;
  testMode: boolean;
}

export interface Address {
  firstName?: string;
  lastName?: string;
  address1?: string;
  address2?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  countryCode?: string;
  phone?: string;
  [key: string]: string | undefined;
}

export interface OrderLine {
  position: number;
  itemId: string;
  sku: string;
  productName: string;
  productType: string;
  attributes: Record<string, string>;
  quantity: number;
  fulfilledQuantity: number;
  refundedQuantity: number;
  unitPrice: Money;
  lineTotal: Money;
  additionalFields: { label: string; value: string }[];
}

export interface OrderDetail extends OrderSummary {
  lines: OrderLine[];
  subtotal: Money;
  discount: Money;
  shipping: Money;
  tax: Money;
  taxIncluded: boolean;
  giftCardPaid: Money;
  charged: Money;
  refunded: Money;
  coupons: string[];
  shippingAddress: Address | null;
  billingAddress: Address | null;
  shippingOption: { name: string } | null;
  paymentMethod: string;
  notes: { label: string; text: string } | null;
  giftCards: { code: string; balance: Money }[];
  downloads: { productName: string; expiresMs: number }[];
  fulfilments: {
    id: string;
    createdMs: number;
    carrier: string;
    trackingNumber: string;
    lines: { position: number; quantity: number }[];
  }[];
  history: { atMs: number; kind: string; actor: string; text: string }[];
  /** The moves the state machine allows now and the caller's role may make. */
  actions: OrderAction[];
}

// ---- C. catalog, customers, analytics ----

// The dashboard, as the server's document has it: a measure is `null` when the role does
// not read it (visits and page views without analytics, orders and revenue without orders).
export type PeriodNumbers = Schemas["OwnerPeriod"];
export type DailyRow = Schemas["OwnerDay"];
export type Dashboard = Schemas["OwnerDashboard"];

export type Analytics = Schemas["OwnerAnalytics"];

export interface ProductRow {
  id: string;
  title: string;
  type: string;
  image: string | null;
  /** The lowest price. */
  price: Money;
  onSale: boolean;
  /** Null: unlimited. */
  stock: number | null;
  /** The site shows it now (its store is on, and it is visible or its time has come). */
  visible: boolean;
  /** Its own visibility. */
  visibility: Visibility;
  /** When a scheduled product shows from, epoch ms. */
  publishOnMs?: number;
}

/** A product's visibility: shown, a draft only owners see, or shown from `publishOn` on. */
export type Visibility = Schemas["OwnerProductVisibility"];

export interface VariantRow {
  itemId: string;
  sku: string;
  productTitle: string;
  attributes: Record<string, string>;
  /** Null: unlimited. */
  stock: number | null;
  restockWaiting: number;
}

export interface InventoryUpdate {
  itemId: string;
  sku: string;
  stock: number | null;
}

export interface CustomerRow {
  email: string;
  name: string;
  orders: number;
  spent: Money;
  lastOrderMs: number | null;
  member: boolean;
  subscriber: boolean;
}

// ---- Settings → Store (generated from the OpenAPI document) ----


/** `GET /api/owner/store-settings`: the currency and the store's commerce preferences. */
export type StoreSettings = Schemas["OwnerStoreSettings"];
/** `PATCH /api/owner/store-settings`'s body (a JSON Merge Patch of `StoreSettings`). */
export type StoreSettingsPatch = Schemas["OwnerStoreSettingsPatch"];
/** `GET /api/commerce/countries`: every country with its regions. */
export type Country = Schemas["Country"];

// ---- Customers: a customer's page, subscriptions, gift cards (generated shapes) ----

export type CustomerDetail = Schemas["OwnerCustomerDetail"];
export type CustomerOrder = Schemas["OwnerCustomerOrder"];
export type CustomerSubscription = Schemas["OwnerCustomerSubscription"];
export type SubscriptionRow = Schemas["OwnerSubscription"];
export type GiftCardRow = Schemas["OwnerGiftCard"];
export type GiftCardDetail = Schemas["OwnerGiftCardDetail"];
export type GiftCardEvent = Schemas["OwnerGiftCardEvent"];
