import { act, fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StoreSettings } from "../../src/admin/api/types";
import { patchOf } from "../../src/admin/screens/store-settings";
import { heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const PATH = "/api/owner/store-settings";

const settings = (extra: Partial<StoreSettings> = {}): StoreSettings => ({
  currency: "EUR",
  checkout: { minimumSubtotal: "10.00", termsUrl: "/terms" } as StoreSettings["checkout"],
  taxes: { pricesIncludeTax: true, rules: [{ name: "BTW", country: "NL", rate: "21" }] },
  shipping: {
    options: [
      { id: "pickup", name: "Pick up", kind: "flat", price: "0.00" },
      { id: "parcel", name: "Parcel", kind: "weight", countries: ["NL", "BE"], rates: [{ upToGrams: 1000, price: "6.95" }] },
    ],
  },
  coupons: { codes: [{ code: "WELCOME10", kind: "percent", percent: "10" }] },
  payments: { testMode: true, manual: { label: "Bank transfer", instructions: "IBAN NL00" } },
  restock: {},
  notifications: {},
  contactEmail: "hello@loam.example",
  products: 3,
  orders: 0,
  currencies: ["EUR", "USD", "JPY"],
  ...extra,
});

const COUNTRIES = {
  countries: [
    { code: "NL", name: "Netherlands", regions: [] },
    { code: "US", name: "United States", regions: [{ code: "ME", name: "Maine" }, { code: "NY", name: "New York" }] },
  ],
};

const routes = (areas: Parameters<typeof me>[0], doc: StoreSettings, extra: Record<string, any> = {}) => ({
  [`GET ${SESSION}`]: { body: me(areas) },
  [`GET ${PATH}`]: { body: doc },
  "GET /api/commerce/countries": { body: COUNTRIES },
  ...extra,
});

/** The screen with its settings in. */
async function loaded() {
  await heading("Store settings");
  await screen.findByRole("heading", { level: 2, name: "Currency" });
}
const group = (name: string) => within(screen.getByRole("group", { name }));
/** Picks `value` in a select, as a browser does. */
function pick(select: HTMLSelectElement, value: string) {
  act(() => {
    select.value = value;
    select.dispatchEvent(new Event("input", { bubbles: true }));
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}
const patches = (calls: Sent[]) => calls.filter((c) => c.method === "PATCH");

afterEach(() => vi.unstubAllGlobals());

describe("store settings", () => {
  it("sends what changed, and shows the server's errors beside their fields with a summary linking to them", async () => {
    const calls = server(
      routes({ store: "write" }, settings(), {
        [`PATCH ${PATH}`]: {
          status: 400,
          body: {
            message: "One or more fields is invalid, please check your entries.",
            errors: { "shipping.options[1].rates[0].price": '"6,95" is not a price like "12.50"', currency: "The store has 3 products in EUR: the currency can change only while it has no products or orders." },
          },
        },
      }),
    );
    open("/config/settings/store");
    await loaded();
    // The currency is shown as locked, with why.
    expect(screen.getByText(/The store has 3 products in EUR/)).toBeTruthy();

    const price = group("Weight brackets of shipping option 2").getByLabelText("Bracket 1: price (EUR)") as HTMLInputElement;
    expect(price.value).toBe("6.95");
    fireEvent.input(price, { target: { value: "6,95" } });
    fireEvent.click(screen.getByRole("button", { name: "Save store settings" }));
    await waitFor(() => expect(patches(calls)).toHaveLength(1));
    const sent = patches(calls)[0];
    expect(sent.headers["X-CSRF-Token"]).toBe("csrf-123");
    // Only the namespace that changed, its list whole.
    expect(sent.body).toEqual({
      shipping: {
        options: [
          { id: "pickup", name: "Pick up", kind: "flat", price: "0.00" },
          { id: "parcel", name: "Parcel", kind: "weight", countries: ["NL", "BE"], rates: [{ upToGrams: 1000, price: "6,95" }] },
        ],
      },
    });

    // Beside the field, tied to it.
    const message = await screen.findByText('"6,95" is not a price like "12.50"', { selector: ".field-error" });
    await waitFor(() => expect(price.getAttribute("aria-invalid")).toBe("true"));
    expect(price.getAttribute("aria-describedby")).toContain(message.id);
    const currency = screen.getByRole("combobox", { name: "Currency" });
    expect(currency.getAttribute("aria-invalid")).toBe("true");
    // The summary names each problem and links to its field.
    const summary = screen.getByRole("alert");
    const link = within(summary).getByRole("link", { name: /Shipping option 2: Bracket 1: price \(EUR\)/ });
    expect(link.getAttribute("href")).toBe(`#${price.id}`);
    fireEvent.click(link);
    expect(document.activeElement).toBe(price);
  });

  it("keeps keys it does not show, and saves the new document", async () => {
    let doc = settings();
    const calls = server(
      routes({ store: "write" }, doc, {
        [`PATCH ${PATH}`]: (c: Sent) => {
          doc = { ...doc, checkout: { ...doc.checkout, orderNotesLabel: c.body.checkout.orderNotesLabel, minimumSubtotal: undefined } };
          return { body: doc };
        },
      }),
    );
    open("/config/settings/store");
    await loaded();
    fireEvent.input(screen.getByLabelText("Order notes label"), { target: { value: "Gift note" } });
    fireEvent.input(screen.getByLabelText("Minimum order (EUR)"), { target: { value: "" } });
    fireEvent.click(screen.getByRole("button", { name: "Save store settings" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Store settings saved."));
    // termsUrl is not touched; the emptied minimum is removed.
    expect(patches(calls)[0].body).toEqual({ checkout: { orderNotesLabel: "Gift note", minimumSubtotal: null } });
  });

  it("has empty states with a way to add, and region pickers for a country with regions", async () => {
    const calls = server(
      routes({ store: "write" }, settings({ shipping: {}, taxes: {}, coupons: {} }), {
        [`PATCH ${PATH}`]: { status: 400, body: { errors: {} } },
      }),
    );
    open("/config/settings/store");
    await loaded();
    expect(screen.getByText("No shipping options yet.")).toBeTruthy();
    expect(screen.getByText("No tax rules yet.")).toBeTruthy();
    expect(screen.getByText("No coupons yet.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Add shipping option" }));
    expect(group("Shipping option 1").getByLabelText("Name")).toBeTruthy();
    expect(screen.queryByText("No shipping options yet.")).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "Add tax rule" }));
    await waitFor(() => expect(group("Tax rule 1").getByRole("option", { name: "United States (US)" })).toBeTruthy());
    expect(group("Tax rule 1").queryByLabelText("Region")).toBeNull();
    pick(group("Tax rule 1").getByLabelText("Country") as HTMLSelectElement, "US");
    pick((await waitFor(() => group("Tax rule 1").getByLabelText("Region"))) as HTMLSelectElement, "ME");
    fireEvent.input(group("Tax rule 1").getByLabelText("Rate (%)"), { target: { value: "5.5" } });
    fireEvent.click(screen.getByRole("button", { name: "Save store settings" }));
    await waitFor(() => expect(patches(calls)).toHaveLength(1));
    expect(patches(calls)[0].body.taxes).toEqual({ rules: [{ country: "US", region: "ME", rate: "5.5" }] });
    expect(patches(calls)[0].body.shipping).toEqual({ options: [{ id: "option-1", kind: "flat" }] });
  });

  it("is read-only for a role that may only read the store", async () => {
    server(routes({ store: "read" }, settings()));
    open("/config/settings/store");
    await loaded();
    expect(screen.getByText("Your role can read the store settings but not change them.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Save store settings" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Add|Remove/ })).toBeNull();
    const name = group("Shipping option 1").getByLabelText("Name") as HTMLInputElement;
    expect(name.value).toBe("Pick up");
    expect(name.disabled).toBe(true);
    expect((screen.getByLabelText("Prices include tax") as HTMLInputElement).disabled).toBe(true);
  });

  it("is not there for a role without the store", async () => {
    const calls = server(routes({ orders: "read" }, settings()));
    open("/config/settings/store");
    await heading("No access");
    expect(calls.some((c) => c.path === PATH)).toBe(false);
  });

  it("patches only what changed", () => {
    const doc = settings();
    const draft = JSON.parse(JSON.stringify(doc));
    expect(patchOf(doc, draft)).toEqual({});
    draft.currency = "USD";
    draft.payments.manual = undefined;
    draft.restock.lowStockAt = 2;
    expect(patchOf(doc, draft)).toEqual({ currency: "USD", payments: { manual: null }, restock: { lowStockAt: 2 } });
  });
});
