// The shapes the commerce API answers with (README "Commerce API"): the cart with its
// entries, as the cart page and checkout read them.

export interface Money {
  currency: string;
  value: string;
}

export interface Entry {
  id: string;
  itemId: string;
  quantity: number;
  chosenVariant: { sku: string; attributes: Record<string, string> };
  /** The additional-fields form's answers, as the product's form named them. */
  additionalFields: Record<string, unknown> | string | null;
  title: string;
  productType: number;
  currency: string;
  variantDescription: string;
  price: Money;
  lineTotal: Money;
  subTotal: number;
  url: string | null;
  imageUrl: string | null;
}

export interface ShippingOption {
  id: string;
  name: string;
  costCents: number;
  cost: Money;
}

export interface Location {
  country: string;
  region?: string | null;
  postalCode?: string | null;
}

export interface CheckoutTerms {
  shipsTo: string[] | null;
  testMode: boolean;
  manualPayment: { label: string; instructions: string } | null;
}

export interface FullCart {
  id: string | null;
  currency: string;
  entries: Entry[];
  shippingOptions: ShippingOption[];
  selectedShippingOption: ShippingOption | null;
  shippingLocation: Location | null;
  shippingUnavailable: boolean;
  coupons: string[];
  validCoupons: { code: string; type: string; discountCents: number }[];
  invalidCoupons: { code: string; reason: string; message: string }[];
  subtotalCents: number;
  discountCents: number;
  shippingCostCents: number;
  taxCents: number;
  grandTotalCents: number;
  totalQuantity: number;
  purelyDigital: boolean;
  requiresShipping: boolean;
  pricesIncludeTax: boolean;
  minimumSubtotalCents: number | null;
  checkoutMessage: string | null;
  checkout: CheckoutTerms;
}
