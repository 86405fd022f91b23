// The JSON the owner's app reads: the server's OpenAPI document's shapes (generated into
// client/src/api/schema.d.ts by scripts/api-reference), under the names the screens use
// (camelCase; money as `Money`, times as epoch milliseconds `…Ms`, lists as
// `{<plural>: T[], next}`). A change on the server that the app does not follow fails the
// type check.

import type { components } from "../../api/schema";

/** The shapes of the server's OpenAPI document (generated into client/src/api/schema.d.ts). */
type Schemas = components["schemas"];

export type Money = Schemas["OwnerMoney"];

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

export type Me = Schemas["OwnerMe"];

export type Account = Schemas["OwnerAccountView"];

export type Invite = Schemas["OwnerInviteView"];

export type ApiToken = Schemas["OwnerTokenView"];

// ---- B. orders ----

export type PaymentState = "awaiting-payment" | "paid" | "partially-refunded" | "refunded" | "expired";
export type FulfilmentState = "unfulfilled" | "partially-fulfilled" | "fulfilled" | "not-required";
export type OrderAction = "mark-paid" | "fulfil" | "cancel" | "refund" | "resend-confirmation";

export type OrderSummary = Schemas["OwnerOrderSummary"];

/** A postal address as orders keep it (the country and region as ISO codes). */
export type Address = Schemas["PostalAddress"];

export type OrderLine = Schemas["OwnerOrderLine"];

export type OrderDetail = Schemas["OwnerOrderDetail"];

// ---- C. catalog, customers, analytics ----

// The dashboard, as the server's document has it: a measure is `null` when the role does
// not read it (visits and page views without analytics, orders and revenue without orders).
export type PeriodNumbers = Schemas["OwnerPeriod"];
export type DailyRow = Schemas["OwnerDay"];
export type Dashboard = Schemas["OwnerDashboard"];

export type Analytics = Schemas["OwnerAnalytics"];

export type ProductRow = Schemas["OwnerProductRow"];

/** A product's visibility: shown, a draft only owners see, or shown from `publishOn` on. */
export type Visibility = Schemas["OwnerProductVisibility"];

export type VariantRow = Schemas["OwnerInventoryRow"];

export type InventoryUpdate = Schemas["OwnerStockUpdate"];

export type CustomerRow = Schemas["OwnerCustomer"];

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

// ---- Pages (issue 44) ----

/** `GET /api/owner/pages`: the navigations, the not-linked area, every page, the types. */
export type Pages = Schemas["OwnerPages"];
export type SitePage = Schemas["OwnerPage"];
export type PageType = Schemas["OwnerPageType"];
export type NewPage = Schemas["OwnerNewPage"];
export type PagePatch = Schemas["OwnerPagePatch"];
/** `PATCH /api/owner/pages`: the navigations named are replaced; `notLinked` states that area. */
export type PagesArrangement = Partial<Pick<Schemas["OwnerPagesArrangement"], "templateId">> & {
  navigations?: Record<string, unknown[]>;
  notLinked?: unknown[];
};

// ---- D. the site: templates and the community ----

export type TemplateVersions = Schemas["TemplateVersions"];
export type TemplateVersion = Schemas["TemplateVersionJson"];
export type TemplateUploaded = Schemas["TemplateUploaded"];
export type TemplateProblem = Schemas["TemplateProblem"];

export type CommentState = "pending" | "approved" | "rejected" | "spam";
export type OwnerComments = Schemas["OwnerComments"];
export type OwnerComment = Schemas["OwnerComment"];
export type Members = Schemas["OwnerMembers"];
export type Member = Schemas["OwnerMember"];
export type MemberAreas = Schemas["OwnerMemberAreas"];
export type MemberArea = Schemas["OwnerMemberArea"];
export type PlanProduct = Schemas["OwnerPlanProduct"];

// ---- D. building the site: design ----

/** A tweak's value: a string (colour, value, dropdown), a boolean (checkbox), a font's CSS
 *  properties; null for none. */
export type TweakValue = string | boolean | Record<string, string> | null;
export type TweakKind = "color" | "value" | "font" | "dropdown" | "checkbox";
export type Tweak = Omit<Schemas["OwnerTweak"], "default" | "value" | "kind"> & {
  kind: TweakKind;
  default: TweakValue;
  value: TweakValue;
};
export type Design = Omit<Schemas["OwnerDesign"], "tweaks"> & { tweaks: Tweak[] };
export type DesignPreview = Schemas["OwnerDesignPreview"];
export type SiteIdentity = Schemas["OwnerSiteIdentity"];
export type Asset = Schemas["AssetAnswer"];

// ---- Forms (issue 44) ----

/** The field kinds of `GET /api/template/GetTemplateSchema?type=form`. */
export type FormKind =
  | "text"
  | "textarea"
  | "email"
  | "number"
  | "currency"
  | "phone"
  | "name"
  | "address"
  | "date"
  | "time"
  | "radio"
  | "checkbox"
  | "select"
  | "likert"
  | "hidden"
  | "section";
/** A form's field; a new one has no id until the server gives it one. */
export type FormField = Omit<Schemas["OwnerFormField"], "id" | "type" | "title"> & { id?: string; type: FormKind; title?: string };
export type FormSettings = Schemas["OwnerFormSettings"];
/** `GET /api/owner/forms/{id}`: a form as the builder edits it. */
export type OwnerFormView = Omit<Schemas["OwnerForm"], "fields"> & { fields: FormField[] };
export type FormList = Schemas["OwnerFormList"];
/** `GET /api/owner/forms/{id}/submissions`: the form's head and its answers, oldest first. */
export type SubmissionList = Schemas["OwnerSubmissionList"];
export type SubscriberList = Schemas["OwnerSubscriberList"];

// ---- E. Settings → Languages ----

/** `GET /api/multilingual/settings`. */
export type MultilingualSettings = Schemas["MultilingualSettings"];
/** A language as stored (`enabled` is always sent back). */
export type LanguageSetting = Required<Schemas["LanguageSetting"]>;

// ---- Content: posts, events, a page's own content (issue 44) ----

export type CollectionSummary = Schemas["OwnerCollectionSummary"];
/** `GET|PUT /api/owner/collections/{id}/content`. */
export type PageContent = Schemas["OwnerPageContent"];
/** An item's author, as the template context's `author` has it. */
export type Author = { id?: string; displayName: string; [k: string]: unknown };
/** An event's place (`location`, as templates read it). */
export type Place = { addressTitle?: string; addressLine1?: string; addressLine2?: string; addressCountry?: string; [k: string]: unknown };
/** An item of a collection as stored (the import format's words); the app's content editor
 *  reads and writes these keys. */
export type ContentItem = {
  id: string;
  collectionId: string;
  urlId: string;
  title: string;
  body: string;
  excerpt: string;
  recordType: number;
  visibility: Visibility;
  publishOn: number;
  addedOn: number;
  updatedOn: number;
  tags: string[];
  categories: string[];
  author?: Author | null;
  startDate?: number | null;
  endDate?: number | null;
  data: { commentState?: number; location?: Place; [k: string]: unknown };
};
/** `GET /api/owner/collections/{id}/items`: the items, the collection, the site's authors
 *  and its time zone. */
export type ItemList = Omit<Schemas["OwnerItemList"], "items" | "authors"> & { items: ContentItem[]; authors: Author[] };
// ---- Settings → Site access ----

/** `GET /api/owner/site-access`: whether a site password is set (never the password), and
 *  the lock screen's words. */
export type SiteAccess = Schemas["OwnerSiteAccess"];

// ---- Design → Announcement bar and cookie banner ----

/** `GET /api/owner/site-notices`. */
export type SiteNotices = Schemas["OwnerSiteNotices"];
