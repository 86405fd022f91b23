import { act, fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { headerFooterBody } from "../../src/admin/screens/header-footer";
import { heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const HF = "/api/site-header-footer";

// jsdom lays nothing out; ProseMirror asks where the selection is when it scrolls to it.
const noRects = () => Object.assign([], { item: () => null }) as unknown as DOMRectList;
Range.prototype.getClientRects = noRects;
Range.prototype.getBoundingClientRect = () => new DOMRect();
(Text.prototype as unknown as { getClientRects: () => DOMRectList }).getClientRects = noRects;

const loaded = () => ({
  header: { layout: "brand-left", showCart: false },
  footer: { text: "Quillback Cycles", blockFields: { "footer-blocks": "<p>Ride with us</p>", other: "<p>kept</p>" }, style: 2 },
  declared: [{ id: "footer-blocks", label: "Footer content" }],
});

const routes = (areas: Parameters<typeof me>[0], extra: Record<string, any> = {}) => ({
  [`GET ${SESSION}`]: { body: me(areas) },
  [`GET /api/owner/design`]: { body: { compiled: true, templateVersion: 1, groups: [], previews: [], tweaks: [] } },
  [`GET /api/owner/site-identity`]: { status: 503, body: { message: "not here" } },
  [`GET /api/owner/site-notices`]: { status: 503, body: { message: "not here" } },
  [`GET ${HF}`]: { body: loaded() },
  ...extra,
});

afterEach(() => vi.unstubAllGlobals());

describe("Design → header and footer", () => {
  it("merges the draft into the header and footer as loaded", () => {
    expect(headerFooterBody(loaded(), { fields: {} })).toEqual({ header: loaded().header, footer: loaded().footer });
    expect(headerFooterBody(loaded(), { text: "New", fields: { "footer-blocks": "<p>Hi</p>" } })).toEqual({
      header: { layout: "brand-left", showCart: false },
      footer: { text: "New", style: 2, blockFields: { "footer-blocks": "<p>Hi</p>", other: "<p>kept</p>" } },
    });
  });

  it("edits the footer's content area and text, saves the merged objects, shows an error", async () => {
    let tries = 0;
    const calls = server(
      routes(undefined, {
        [`PUT ${HF}`]: (c: Sent) => (++tries === 1 ? { status: 503, body: { message: "The store is busy; try again." } } : { body: { header: c.body.header, footer: c.body.footer } }),
      }),
    );
    open("/config/design");
    await heading("Design");
    const section = await screen.findByRole("region", { name: "Header and footer" });
    const box = (await within(section).findByRole("textbox", { name: "Footer content" }, { timeout: 5000 })) as HTMLElement;
    expect(box.innerHTML).toContain("Ride with us");
    const save = within(section).getByRole("button", { name: "Save header and footer" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    // A rich-text change: the paragraph made a heading from the toolbar.
    act(() => {
      box.focus();
    });
    fireEvent.click(within(within(section).getByRole("toolbar", { name: "Formatting: Footer content" })).getByRole("button", { name: "Heading" }));
    await waitFor(() => expect(box.innerHTML).toContain("<h2>Ride with us</h2>"));
    fireEvent.input(within(section).getByLabelText("Footer text"), { target: { value: "Quillback Cycles · Tanner Street" } });
    expect(calls.filter((c) => c.method === "GET" && c.path === HF).length).toBe(1);
    fireEvent.click(save);
    expect(await within(section).findByRole("alert")).toBeTruthy();
    expect(within(section).getByRole("alert").textContent).toContain("The store is busy; try again.");
    fireEvent.click(save);
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Header and footer saved. Visitors see them now."));
    const puts = calls.filter((c) => c.method === "PUT" && c.path === HF);
    expect(puts.length).toBe(2);
    expect(puts[1].body).toEqual({
      header: { layout: "brand-left", showCart: false },
      footer: { text: "Quillback Cycles · Tanner Street", style: 2, blockFields: { "footer-blocks": expect.stringMatching(/^<h2>Ride with us<\/h2>/), other: "<p>kept</p>" } },
    });
    expect(puts[1].headers["X-CSRF-Token"]).toBe("csrf-123");
    expect(within(section).queryByRole("alert")).toBeNull();
  });

  it("says so when the template declares no site-wide content area", async () => {
    server(routes(undefined, { [`GET ${HF}`]: { body: { header: {}, footer: {}, declared: [] } } }));
    open("/config/design");
    const section = await screen.findByRole("region", { name: "Header and footer" });
    expect(await within(section).findByText("This template has no site-wide content areas.")).toBeTruthy();
    expect(within(section).queryByRole("button")).toBeNull();
  });

  it("offers the footer text when the template prints it, though the site has none yet", async () => {
    const calls = server(
      routes(undefined, {
        [`GET ${HF}`]: { body: { header: {}, footer: { style: 1 }, declared: [], footerText: true } },
        [`PUT ${HF}`]: (c: Sent) => ({ body: { header: c.body.header, footer: c.body.footer } }),
      }),
    );
    open("/config/design");
    const section = await screen.findByRole("region", { name: "Header and footer" });
    const text = (await within(section).findByLabelText("Footer text")) as HTMLInputElement;
    expect(text.value).toBe("");
    fireEvent.input(text, { target: { value: "Open Tuesday to Saturday" } });
    fireEvent.click(within(section).getByRole("button", { name: "Save header and footer" }));
    await waitFor(() => expect(calls.some((c) => c.method === "PUT" && c.path === HF)).toBe(true));
    expect(calls.find((c) => c.method === "PUT" && c.path === HF)!.body).toEqual({
      header: {},
      footer: { style: 1, text: "Open Tuesday to Saturday" },
    });

    server(routes(undefined, { [`GET ${HF}`]: { body: { header: {}, footer: {}, declared: [{ id: "f", label: "Footer" }], footerText: false } } }));
    open("/config/design");
    const again = await screen.findByRole("region", { name: "Header and footer" });
    await within(again).findByRole("textbox", { name: "Footer" }, { timeout: 5000 });
    expect(within(again).queryByLabelText("Footer text")).toBeNull();
  });

  it("a role that may only read the content sees it without a save; without the content area, not at all", async () => {
    server(routes({ design: "write", content: "read" }));
    open("/config/design");
    const section = await screen.findByRole("region", { name: "Header and footer" });
    expect(await within(section).findByText(/can read the header and footer here but not change them/)).toBeTruthy();
    expect((within(section).getByLabelText("Footer text") as HTMLInputElement).disabled).toBe(true);
    expect(within(section).queryByRole("button", { name: "Save header and footer" })).toBeNull();

    const calls = server(routes({ design: "write" }));
    open("/config/design");
    await heading("Design");
    await screen.findByRole("heading", { name: "Style" });
    expect(screen.queryByRole("region", { name: "Header and footer" })).toBeNull();
    expect(calls.some((c) => c.path === HF)).toBe(false);
  });
});
