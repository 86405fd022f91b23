// The API's shapes, as the OpenAPI document describes them: aliases of the types
// openapi-typescript generates from it (`src/api/schema.d.ts`, made by
// `scripts/api-reference`; never edit it by hand). A changed answer on the server changes
// these, so the type check catches an island that still reads the old shape.

import type { components } from "../api/schema";

/** Every schema of the document, by name. */
export type Schemas = components["schemas"];

/** A money object (`{currency, value}`). */
export type Money = Schemas["Money"];
/** The cart, priced, as every cart route answers it (SPEC "Shopping cart"). */
export type FullCart = Schemas["ShoppingCart"];
/** A cart line (SPEC "Cart entry"). */
export type Entry = Schemas["CartEntry"];
export type ShippingOption = Schemas["CartShippingOption"];
/** Where the cart ships (also the shipping-location route's body). */
export type Location = Schemas["CartLocation"];
/** What the checkout page offers, beside the cart. */
export type CheckoutTerms = Schemas["CheckoutTerms"];
/** The JSON body of every error answer. */
export type ErrorBody = Schemas["Error"];
/** A performance record (`POST /api/1/performance/records` takes a list). */
export type PerformanceRecord = Schemas["PerformanceRecord"];
/** An error report (`POST /api/events/RecordJavascriptErrors` takes a list). */
export type ReportedError = Schemas["ReportedError"];
