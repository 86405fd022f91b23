import { act, fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { blankVariant, combinations, generateVariants, slug, type VariantDraft } from "../../src/admin/screens/product";
import { heading, me, money, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const FORM = "/api/owner/product-form";
const CHOICES = {
  stores: [{ id: "store1", title: "Shop" }],
  categories: [
    { collectionId: "store1", name: "Plants & Pots" },
    { collectionId: "store1", name: "Tools" },
  ],
  forms: [{ id: "f1", name: "Engraving" }],
};
const APRON = {
  id: "p1",
  collectionId: "store1",
  title: "Linen potting apron",
  urlId: "linen-potting-apron",
  body: "<p>Sturdy.</p>",
  productType: 1,
  categories: ["Tools"],
  structuredContent: { variantOptionOrdering: ["Size"] },
  variants: [
    { sku: "LPA-S", attributes: { Size: "S" }, currency: "EUR", priceMinor: 4200, salePriceMinor: 0, onSale: false, qtyInStock: 3, unlimited: false, weightGrams: 300 },
    { sku: "LPA-L", attributes: { Size: "L" }, currency: "EUR", priceMinor: 4500, salePriceMinor: 0, onSale: false, qtyInStock: 1, unlimited: false, weightGrams: 350 },
  ],
};
const group = (name: string) => within(screen.getByRole("group", { name }));
const type = (el: HTMLElement, value: string) => fireEvent.input(el, { target: { value } });
const value = (el: HTMLElement) => (el as HTMLInputElement).value;
/** A file chosen in a file input, as the browser tells it (dispatched by hand: this
 *  package's `fireEvent.change` did not reach the screen's change listeners). */
const choose = (input: HTMLElement, file: File) => {
  Object.defineProperty(input, "files", { value: [file], configurable: true });
  act(() => {
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });
};

afterEach(() => vi.unstubAllGlobals());

const draft = (attributes: Record<string, string>, price: string, stock: string): VariantDraft => ({ ...blankVariant(attributes), price, stock, sku: `S-${price}` });

describe("the option editor's variants", () => {
  it("are every combination of the values", () => {
    expect(
      combinations([
        { name: "Size", values: ["S", "L"] },
        { name: "Colour", values: ["Oat", "Moss"] },
      ]),
    ).toEqual([
      { Size: "S", Colour: "Oat" },
      { Size: "S", Colour: "Moss" },
      { Size: "L", Colour: "Oat" },
      { Size: "L", Colour: "Moss" },
    ]);
    expect(combinations([])).toEqual([{}]);
    expect(combinations([{ name: "Size", values: [] }])).toEqual([{}]);
  });

  it("keep what a variant that still exists had; new ones start from the first's price", () => {
    const s = draft({ Size: "S" }, "10.00", "3");
    const l = draft({ Size: "L" }, "12.00", "1");
    const more = generateVariants([{ name: "Size", values: ["S", "M", "L"] }], [s, l]);
    expect(more.map((v) => [v.attributes.Size, v.price, v.stock, v.sku])).toEqual([
      ["S", "10.00", "3", "S-10.00"],
      ["M", "10.00", "0", ""],
      ["L", "12.00", "1", "S-12.00"],
    ]);
    // Removing a value drops its variant only.
    const fewer = generateVariants([{ name: "Size", values: ["L"] }], more);
    expect(fewer.map((v) => [v.attributes.Size, v.price, v.stock])).toEqual([["L", "12.00", "1"]]);
    // A second option: each old variant carries on in its first combination.
    const two = generateVariants(
      [
        { name: "Size", values: ["S", "L"] },
        { name: "Colour", values: ["Oat", "Moss"] },
      ],
      [s, l],
    );
    expect(two.map((v) => [v.attributes.Size, v.attributes.Colour, v.stock])).toEqual([
      ["S", "Oat", "3"],
      ["S", "Moss", "0"],
      ["L", "Oat", "1"],
      ["L", "Moss", "0"],
    ]);
  });
});

describe("the product form", () => {
  it("makes an address from a title", () => {
    expect(slug("Crème Brûlée Pot — Large!")).toBe("creme-brulee-pot-large");
  });

  it("adds a product with options, categories and a form, then opens it", async () => {
    let made: any = null;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${FORM}`]: (c: Sent) => ({ body: { ...CHOICES, product: c.query.get("id") ? made : null, images: [], digitalFile: null } }),
      "POST /api/owner/collections/store1/items": (c: Sent) => {
        made = { ...c.body, id: "p9", collectionId: "store1", variants: [{ sku: "RG-S", attributes: { Size: "S" }, currency: "EUR", priceMinor: 1250, qtyInStock: 3 }] };
        return { status: 201, body: made };
      },
      "GET /api/owner/products": { body: { products: [], next: null } },
    });
    open("/config/products");
    fireEvent.click(await screen.findByRole("link", { name: "Add product" }));
    await heading("Add product");
    type(await screen.findByLabelText("Title"), "Rain gauge");
    expect(value(screen.getByLabelText(/^Address/))).toBe("rain-gauge");
    fireEvent.click(screen.getByRole("button", { name: "Add an option" }));
    type(group("Option 1").getByLabelText("Option name"), "Size");
    const add = group("Option 1").getByLabelText("Add to Values of Size");
    type(add, "S");
    fireEvent.keyDown(add, { key: "Enter" });
    type(add, "L");
    fireEvent.click(group("Option 1").getByRole("button", { name: "Add value" }));
    expect(within(screen.getByRole("list", { name: "Values of Size" })).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["S ×", "L ×"]);
    type(group("S").getByLabelText("Price (EUR)"), "12.50");
    type(group("S").getByLabelText("Stock"), "3");
    type(group("S").getByLabelText("SKU"), "RG-S");
    type(group("S").getByLabelText("Weight (g)"), "250");
    type(group("L").getByLabelText("Price (EUR)"), "14.00");
    fireEvent.click(group("L").getByLabelText("Unlimited stock"));
    type(group("L").getByLabelText("SKU"), "RG-L");
    fireEvent.click(screen.getByLabelText("Tools"));
    const select = screen.getByLabelText("Additional fields form") as HTMLSelectElement;
    select.value = "f1";
    act(() => {
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    fireEvent.click(screen.getByRole("button", { name: "Add product" }));
    await heading("Rain gauge");
    expect(window.location.pathname).toBe("/config/products/p9");
    const post = calls.find((c) => c.method === "POST")!;
    expect(post.body).toEqual({
      title: "Rain gauge",
      urlId: "rain-gauge",
      body: "",
      productType: 1,
      categories: ["Tools"],
      visibility: "visible",
      images: [],
      structuredContent: { variantOptionOrdering: ["Size"], additionalFieldsFormId: "f1" },
      variants: [
        { sku: "RG-S", attributes: { Size: "S" }, price: "12.50", onSale: false, unlimited: false, stock: 3, weightGrams: 250 },
        { sku: "RG-L", attributes: { Size: "L" }, price: "14.00", onSale: false, unlimited: true, weightGrams: 0 },
      ],
    });
    expect(post.headers["X-CSRF-Token"]).toBe("csrf-123");
  });

  it("edits a product: a new value adds a variant and keeps the others; errors land beside their fields", async () => {
    let n = 0;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${FORM}`]: { body: { ...CHOICES, product: APRON, images: [{ url: "/_tessera/files/i1/apron.png", altText: "An apron", decorative: false }], digitalFile: null } },
      "PATCH /api/owner/items/p1": () =>
        n++ === 0
          ? {
              status: 400,
              body: {
                message: "One or more fields is invalid, please check your entries.",
                errors: { "variants[0].price": "A price is a decimal like \"12.50\" in the store's currency.", "images[0].altText": "Please enter alt text, or mark the image as decorative.", "categories[0]": "That category does not exist in this store." },
              },
            }
          : { body: APRON },
    });
    open("/config/products/p1");
    await heading("Linen potting apron");
    expect(value(group("S").getByLabelText("Price (EUR)"))).toBe("42.00");
    expect(value(group("L").getByLabelText("Stock"))).toBe("1");
    expect((screen.getByLabelText("Tools") as HTMLInputElement).checked).toBe(true);
    const add = group("Option 1").getByLabelText("Add to Values of Size");
    type(add, "M");
    fireEvent.keyDown(add, { key: "Enter" });
    // S, L kept as they were; M new, from the first variant's price.
    expect(screen.getAllByRole("group").map((g) => g.querySelector("legend")?.textContent)).toEqual(expect.arrayContaining(["S", "L", "M"]));
    expect(value(group("L").getByLabelText("Price (EUR)"))).toBe("45.00");
    expect(value(group("L").getByLabelText("SKU"))).toBe("LPA-L");
    expect(value(group("M").getByLabelText("Price (EUR)"))).toBe("42.00");
    expect(value(group("M").getByLabelText("Stock"))).toBe("0");
    type(group("S").getByLabelText("Price (EUR)"), "forty");
    type(group("Image 1").getByLabelText(/^Alt text/), "");
    fireEvent.click(screen.getByRole("button", { name: "Save product" }));
    const priceError = await screen.findByText("A price is a decimal like \"12.50\" in the store's currency.");
    const price = group("S").getByLabelText("Price (EUR)");
    expect(price.getAttribute("aria-invalid")).toBe("true");
    expect(price.getAttribute("aria-describedby")).toContain(priceError.id);
    const alt = group("Image 1").getByLabelText(/^Alt text/);
    expect(alt.getAttribute("aria-invalid")).toBe("true");
    expect(group("Image 1").getByText("Please enter alt text, or mark the image as decorative.")).toBeTruthy();
    expect(screen.getByText("That category does not exist in this store.")).toBeTruthy();
    // Fixed: the image is decorative, the price a price; the body says so.
    fireEvent.click(group("Image 1").getByLabelText("Decorative (no alt text)"));
    type(group("S").getByLabelText("Price (EUR)"), "44");
    fireEvent.click(screen.getByRole("button", { name: "Save product" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Product saved."));
    const patch = calls.filter((c) => c.method === "PATCH").at(-1)!;
    expect(patch.body.images).toEqual([{ url: "/_tessera/files/i1/apron.png", altText: "", decorative: true }]);
    expect(patch.body.variants.map((v: any) => [v.sku, v.attributes.Size, v.price, v.stock])).toEqual([
      ["LPA-S", "S", "44", 3],
      ["LPA-L", "L", "45.00", 1],
      ["", "M", "42.00", 0],
    ]);
    expect(patch.body.structuredContent).toEqual({ variantOptionOrdering: ["Size"], isSubscribable: null, subscriptionPlan: null, additionalFieldsFormId: "" });
  });

  it("hides a product, schedules it with a date and time, and says a missing one beside its field", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${FORM}`]: { body: { ...CHOICES, product: { ...APRON, visibility: "hidden", publishOn: 1 }, images: [], digitalFile: null } },
      "PATCH /api/owner/items/p1": (c: Sent) => ({ body: { ...APRON, ...c.body, variants: APRON.variants } }),
    });
    open("/config/products/p1");
    await heading("Linen potting apron");
    const visibility = within(screen.getByRole("radiogroup", { name: "Visibility" }));
    expect((visibility.getByLabelText(/^Hidden/) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByLabelText(/^Shown from/)).toBeNull();
    // Scheduled without its moment: said beside the field, nothing sent.
    fireEvent.click(visibility.getByLabelText(/^Scheduled/));
    fireEvent.click(screen.getByRole("button", { name: "Save product" }));
    const when = await screen.findByLabelText(/^Shown from/);
    expect(when.getAttribute("aria-invalid")).toBe("true");
    expect(within(when.closest(".field")! as HTMLElement).getByText("A scheduled item needs the date and time it shows from.")).toBeTruthy();
    expect(calls.filter((c) => c.method === "PATCH")).toHaveLength(0);
    type(when, "2030-05-04T09:30");
    fireEvent.click(screen.getByRole("button", { name: "Save product" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Product saved."));
    const patch = calls.filter((c) => c.method === "PATCH").at(-1)!;
    expect(patch.body.visibility).toBe("scheduled");
    expect(patch.body.publishOn).toBe(new Date(2030, 4, 4, 9, 30).getTime());
    // Visible again: the date is not sent.
    fireEvent.click(visibility.getByLabelText(/^Visible/));
    fireEvent.click(screen.getByRole("button", { name: "Save product" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH")).toHaveLength(2));
    const again = calls.filter((c) => c.method === "PATCH").at(-1)!;
    expect(again.body.visibility).toBe("visible");
    expect("publishOn" in again.body).toBe(false);
  });

  it("shows a scheduled product's date and time", async () => {
    const at = new Date(2031, 0, 2, 8, 5).getTime();
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${FORM}`]: { body: { ...CHOICES, product: { ...APRON, visibility: "scheduled", publishOn: at }, images: [], digitalFile: null } },
    });
    open("/config/products/p1");
    await heading("Linen potting apron");
    expect((screen.getByLabelText(/^Scheduled/) as HTMLInputElement).checked).toBe(true);
    expect(value(screen.getByLabelText(/^Shown from/))).toBe("2031-01-02T08:05");
  });

  it("shows each type's own fields", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${FORM}`]: { body: { ...CHOICES, product: null, images: [], digitalFile: null } },
    });
    open("/config/products/new");
    await heading("Add product");
    await screen.findByLabelText("Title");
    const types = screen.getByRole("radiogroup", { name: "Product type" });
    expect(screen.getByRole("group", { name: "Options" })).toBeTruthy();
    expect(screen.queryByLabelText("File to download")).toBeNull();
    fireEvent.click(within(types).getByLabelText(/Digital/));
    expect(screen.getByLabelText("File to download")).toBeTruthy();
    expect(screen.queryByRole("group", { name: "Options" })).toBeNull();
    expect(screen.queryByLabelText("Weight (g)")).toBeNull();
    fireEvent.click(within(types).getByLabelText(/Subscription/));
    expect(screen.queryByLabelText("File to download")).toBeNull();
    expect(value(group("Plan").getByLabelText("Bill every"))).toBe("1");
    expect(value(group("Plan").getByLabelText(/^Number of payments/))).toBe("0");
    expect(screen.getByLabelText("Weight (g)")).toBeTruthy();
    fireEvent.click(within(types).getByLabelText(/Gift card/));
    expect(screen.queryByRole("group", { name: "Plan" })).toBeNull();
    const amounts = screen.getByLabelText(/^Add to Amounts/);
    type(amounts, "25.00");
    fireEvent.keyDown(amounts, { key: "Enter" });
    type(amounts, "50.00");
    fireEvent.keyDown(amounts, { key: "Enter" });
    expect(value(group("25.00").getByLabelText("Price (EUR)"))).toBe("25.00");
    expect(value(group("50.00").getByLabelText("Price (EUR)"))).toBe("50.00");
  });

  it("uploads a digital product's file and saves it with the product", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${FORM}`]: { body: { ...CHOICES, product: null, images: [], digitalFile: null } },
      "POST /api/owner/product-files": (c: Sent) =>
        c.query.get("fileName") === "notes.txt"
          ? { status: 415, body: { message: "The file notes.txt does not appear to be a supported PDF, ZIP, MP3, MP4 or image file." } }
          : { status: 201, body: { id: "a7", fileName: "guide.pdf", contentType: "application/pdf", size: 9, createdOn: 0, url: "/_tessera/files/a7/guide.pdf" } },
      "POST /api/owner/collections/store1/items": { status: 201, body: { id: "p5", collectionId: "store1", title: "Guide", urlId: "guide", productType: 2, variants: [] } },
    });
    open("/config/products/new");
    await heading("Add product");
    await screen.findByLabelText("Title");
    fireEvent.click(within(screen.getByRole("radiogroup", { name: "Product type" })).getByLabelText(/Digital/));
    const input = screen.getByLabelText("File to download");
    choose(input, new File(["words"], "notes.txt"));
    const problem = await screen.findByText("The file notes.txt does not appear to be a supported PDF, ZIP, MP3, MP4 or image file.", { selector: ".field-error" });
    expect(input.getAttribute("aria-describedby")).toContain(problem.id);
    choose(input, new File(["%PDF-1.4"], "guide.pdf"));
    await screen.findByText(/Now: guide\.pdf/);
    const sent = calls.filter((c) => c.method === "POST" && c.path === "/api/owner/product-files").at(-1)!;
    expect([sent.query.get("kind"), sent.headers["Content-Type"], sent.headers["X-CSRF-Token"]]).toEqual(["download", "application/octet-stream", "csrf-123"]);
    type(screen.getByLabelText("Title"), "Guide");
    type(screen.getByLabelText("Price (EUR)"), "9.00");
    fireEvent.click(screen.getByRole("button", { name: "Add product" }));
    await waitFor(() => expect(calls.some((c) => c.path === "/api/owner/collections/store1/items")).toBe(true));
    const post = calls.find((c) => c.path === "/api/owner/collections/store1/items")!;
    expect([post.body.productType, post.body.digitalFile, post.body.variants.length, "weightGrams" in post.body.variants[0]]).toEqual([2, { assetId: "a7" }, 1, false]);
  });

  it("says when the product is not on this site", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${FORM}`]: { status: 404, body: { message: "That product does not exist." } },
    });
    open("/config/products/nope");
    expect((await screen.findByRole("alert")).textContent).toContain("There is no such product on this site.");
  });

  it("is not offered to a role that only reads the store", async () => {
    server({
      [`GET ${SESSION}`]: { body: me({ store: "read" }) },
      "GET /api/owner/products": { body: { products: [{ id: "p1", title: "Apron", type: "physical", image: null, price: money(4200), onSale: false, stock: 1, visible: true, visibility: "visible" }], next: null } },
    });
    open("/config/products");
    await screen.findByRole("rowheader", { name: "Apron" });
    expect(screen.queryByRole("link", { name: "Add product" })).toBeNull();
    expect(screen.queryByRole("link", { name: "Apron" })).toBeNull();
  });
});
