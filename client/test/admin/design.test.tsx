import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Design, SiteIdentity } from "../../src/admin/api/types";
import { hex6, shownValue } from "../../src/admin/screens/design";
import { identityPatch } from "../../src/admin/screens/site-identity";
import { DEVICES, linkAction, MOBILE_MAX, previewStyles } from "../../src/admin/ui/site-frame";
import { choose, heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const PATH = "/api/owner/design";
const IDENTITY = "/api/owner/site-identity";

const design = (): Design => ({
  compiled: true,
  templateVersion: 3,
  groups: ["Colours", "Layout"],
  previews: [
    { kind: "SPLASH_PAGE", label: "Splash page", path: null },
    { kind: "LOCK_SCREEN", label: "Lock screen", path: "/members" },
    { kind: "POPUP_OVERLAY", label: "Popup overlay", path: null },
    { kind: "CHECKOUT", label: "Checkout", path: "/checkout" },
  ],
  tweaks: [
    { title: "tweak-text-color", label: "Text color", kind: "color", group: "Colours", default: "#1d2a30", value: "#1d2a30", set: false },
    { title: "tweak-site-width", label: "Site width", kind: "value", group: "Layout", default: "58rem", value: "62rem", set: true, min: 40, max: 80, units: "rem" },
    { title: "tweak-header-style", label: "Header style", kind: "dropdown", group: "Layout", default: "Left Title", value: "Centered Title", set: true, options: ["Left Title", "Centered Title"] },
    { title: "tweak-show-dates", label: "Show dates", kind: "checkbox", group: "Layout", default: true, value: true, set: false },
    { title: "tweak-heading-font", label: "Heading font", kind: "font", group: "Layout", default: { "font-family": "Georgia, serif", "font-size": "32px" }, value: { "font-family": "Georgia, serif", "font-size": "32px" }, set: false },
  ],
});

const identity = (): SiteIdentity => ({
  siteTitle: "Harbor Lane Pottery",
  siteTagLine: "Stoneware",
  logo: null,
  favicon: null,
  contactEmail: "studio@harbor.example",
  contactPhoneNumber: "",
  location: { addressTitle: "", addressLine1: "14 Harbor Lane", addressLine2: "", addressCountry: "United States" },
  socialAccounts: [],
  services: ["email", "instagram", "x"],
  businessHours: {},
});

const routes = (areas: Parameters<typeof me>[0], extra: Record<string, any> = {}) => ({
  [`GET ${SESSION}`]: { body: me(areas) },
  [`GET ${PATH}`]: { body: design() },
  [`GET ${IDENTITY}`]: { body: identity() },
  [`POST ${PATH}/preview`]: { body: { css: "body { color: #aa0000; }", addClasses: [], removeClasses: [] } },
  ...extra,
});

const of = (calls: Sent[], method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

async function loaded() {
  await heading("Design");
  await screen.findByRole("group", { name: "Colours" });
}

afterEach(() => vi.unstubAllGlobals());

describe("the design screen", () => {
  it("shows each tweak as a control of its kind, grouped as the template declares, with its value and default", async () => {
    server(routes({ design: "write", content: "write" }));
    open("/config/design");
    await loaded();
    const colours = within(screen.getByRole("group", { name: "Colours" }));
    const text = colours.getByLabelText("Text color") as HTMLInputElement;
    expect(text.value).toBe("#1d2a30");
    expect(colours.getByText("Default: #1d2a30")).toBeTruthy();
    expect((colours.getByLabelText("Text color: pick a colour") as HTMLInputElement).value).toBe("#1d2a30");
    const layout = within(screen.getByRole("group", { name: "Layout" }));
    const width = layout.getByLabelText("Site width (rem)") as HTMLInputElement;
    expect([width.type, width.value, width.min, width.max]).toEqual(["number", "62", "40", "80"]);
    expect((layout.getByLabelText("Header style") as HTMLSelectElement).value).toBe("Centered Title");
    expect((layout.getByLabelText("Show dates") as HTMLInputElement).checked).toBe(true);
    const font = within(screen.getByRole("group", { name: "Heading font" }));
    expect((font.getByLabelText("Size") as HTMLInputElement).value).toBe("32px");
    // The frame: the live site, its device views and the editor's page kinds.
    const frame = screen.getByTitle("Site preview") as HTMLIFrameElement;
    expect(frame.getAttribute("src")).toBe("/");
    expect(screen.getByRole("option", { name: "Splash page (this site has none)" })).toHaveProperty("disabled", true);
    expect(screen.getByRole("option", { name: "Lock screen" })).toHaveProperty("value", "/members");
    // Nothing unsaved: nothing to save.
    expect(screen.getByRole("button", { name: "Save" })).toHaveProperty("disabled", true);
  });

  it("previews a change before saving, shows a bad value beside its field, and saves", async () => {
    let previewed = 0;
    const calls = server(
      routes(
        { design: "write" },
        {
          [`POST ${PATH}/preview`]: (c: Sent) => {
            previewed++;
            if (c.body.values["tweak-text-color"] === "hsl(400, 0.5, 0.5)") {
              return { status: 400, body: { message: "Please correct the fields marked below.", errors: { "values.tweak-text-color": "Hue out of bounds." } } };
            }
            return { body: { css: "body { color: #aa0000; }", addClasses: [], removeClasses: [] } };
          },
          [`PATCH ${PATH}`]: (c: Sent) => {
            const d = design();
            d.tweaks[0].value = c.body.values["tweak-text-color"];
            d.tweaks[0].set = true;
            return { body: d };
          },
        },
      ),
    );
    open("/config/design");
    await loaded();
    const text = screen.getByLabelText("Text color") as HTMLInputElement;
    fireEvent.input(text, { target: { value: "hsl(400, 0.5, 0.5)" } });
    await waitFor(() => expect(text.getAttribute("aria-invalid")).toBe("true"));
    const message = screen.getByText("Hue out of bounds.");
    expect(text.getAttribute("aria-describedby")).toContain(message.id);

    fireEvent.input(text, { target: { value: "#aa0000" } });
    await waitFor(() => expect(text.getAttribute("aria-invalid")).toBeNull());
    const previews = of(calls, "POST", `${PATH}/preview`);
    expect(previews[previews.length - 1].body).toEqual({ values: { "tweak-text-color": "#aa0000" } });
    expect(previews[previews.length - 1].headers["X-CSRF-Token"]).toBe("csrf-123");
    await screen.findByText("Previewing unsaved changes.");
    // Debounced: not one call per keystroke.
    expect(previewed).toBe(2);
    // Nothing is stored until Save.
    expect(of(calls, "PATCH", PATH)).toHaveLength(0);

    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(of(calls, "PATCH", PATH)).toHaveLength(1));
    expect(of(calls, "PATCH", PATH)[0].body).toEqual({ values: { "tweak-text-color": "#aa0000" } });
    await screen.findByText("Design saved. Visitors see it now.");
    expect((screen.getByLabelText("Text color") as HTMLInputElement).value).toBe("#aa0000");
    expect(screen.getByRole("button", { name: "Save" })).toHaveProperty("disabled", true);
  });

  it("resets every value to the template's default, previewed, then saved", async () => {
    const calls = server(routes({ design: "write" }, { [`PATCH ${PATH}`]: { body: design() } }));
    open("/config/design");
    await loaded();
    fireEvent.click(screen.getByRole("button", { name: "Reset to defaults" }));
    expect((screen.getByLabelText("Site width (rem)") as HTMLInputElement).value).toBe("58");
    expect((screen.getByLabelText("Header style") as HTMLSelectElement).value).toBe("Left Title");
    await waitFor(() => expect(of(calls, "POST", `${PATH}/preview`)).toHaveLength(1));
    const nulls = Object.fromEntries(design().tweaks.map((t) => [t.title, null]));
    expect(of(calls, "POST", `${PATH}/preview`)[0].body).toEqual({ values: nulls });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(of(calls, "PATCH", PATH)).toHaveLength(1));
    expect(of(calls, "PATCH", PATH)[0].body).toEqual({ values: nulls });
  });

  it("offers a role that only reads the preview, never Save", async () => {
    server(routes({ design: "read" }));
    open("/config/design");
    await loaded();
    expect(screen.queryByRole("button", { name: "Save" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Reset to defaults" })).toBeNull();
    expect(screen.getByText("Your role can preview changes here but not save them.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Save site identity" })).toBeNull();
    expect(screen.queryByLabelText("Upload a logo")).toBeNull();
  });

  it("says so when the template declares no style settings", async () => {
    server(routes({ design: "write" }, { [`GET ${PATH}`]: { body: { ...design(), tweaks: [], groups: [] } } }));
    open("/config/design");
    await heading("Design");
    await screen.findByText(/declares no style settings/);
  });

  it("device views resize the frame", async () => {
    server(routes({ design: "write" }));
    open("/config/design");
    await loaded();
    const frame = screen.getByTitle("Site preview") as HTMLIFrameElement;
    const views = within(screen.getByRole("group", { name: "Device view" }));
    expect(views.getAllByRole("button").map((b) => b.textContent)).toEqual(["Desktop", "Tablet", "Phone"]);
    expect(views.getByRole("button", { name: "Desktop" }).getAttribute("aria-pressed")).toBe("true");
    fireEvent.click(views.getByRole("button", { name: "Phone" }));
    expect(views.getByRole("button", { name: "Phone" }).getAttribute("aria-pressed")).toBe("true");
    expect(frame.style.width).toBe("390px");
    fireEvent.click(views.getByRole("button", { name: "Tablet" }));
    expect(frame.style.width).toBe("768px");
    expect(DEVICES.find((d) => d.id === "phone")!.width!).toBeLessThanOrEqual(MOBILE_MAX);
  });

  it("saves the site's identity: what changed, errors beside their fields", async () => {
    const calls = server(
      routes(
        { design: "write", content: "write" },
        {
          [`PATCH ${IDENTITY}`]: (c: Sent) =>
            c.body.contactEmail === "nope"
              ? { status: 400, body: { message: "Please correct the fields marked below.", errors: { contactEmail: "Please enter a valid email" } } }
              : { body: { ...identity(), ...c.body } },
        },
      ),
    );
    open("/config/design");
    await loaded();
    const title = (await screen.findByLabelText("Site title")) as HTMLInputElement;
    expect(title.value).toBe("Harbor Lane Pottery");
    fireEvent.input(title, { target: { value: "Harbor Lane Studio" } });
    fireEvent.input(screen.getByLabelText("Contact email"), { target: { value: "nope" } });
    fireEvent.click(screen.getByRole("button", { name: "Save site identity" }));
    await waitFor(() => expect(of(calls, "PATCH", IDENTITY)).toHaveLength(1));
    const email = screen.getByLabelText("Contact email");
    await waitFor(() => expect(email.getAttribute("aria-invalid")).toBe("true"));
    expect(of(calls, "PATCH", IDENTITY)[0].body).toEqual({ siteTitle: "Harbor Lane Studio", contactEmail: "nope" });
    fireEvent.input(email, { target: { value: "hello@harbor.example" } });
    fireEvent.click(screen.getByRole("button", { name: "Save site identity" }));
    await screen.findByText("Site identity saved.");
    expect(screen.getByLabelText("Upload a logo")).toBeTruthy();
    // A social account, added and saved: the list goes whole.
    screen.getByText("No social accounts yet.");
    fireEvent.click(screen.getByRole("button", { name: "Add a social account" }));
    choose("Account 1: network", "instagram");
    fireEvent.input(screen.getByLabelText("Account 1: profile address"), { target: { value: "https://instagram.example/h" } });
    fireEvent.click(screen.getByRole("button", { name: "Save site identity" }));
    await waitFor(() => expect(of(calls, "PATCH", IDENTITY)).toHaveLength(3));
    expect(of(calls, "PATCH", IDENTITY)[2].body).toEqual({ socialAccounts: [{ serviceName: "instagram", profileUrl: "https://instagram.example/h" }] });
  });
});

describe("the frame's parts", () => {
  const origin = window.location.origin;
  const link = (href: string, attrs: Record<string, string> = {}) => {
    const a = document.createElement("a");
    a.setAttribute("href", href);
    for (const [k, v] of Object.entries(attrs)) a.setAttribute(k, v);
    document.body.appendChild(a);
    return a;
  };

  it("keeps the site's links in the frame, whatever their target, and sends others away", () => {
    // The floating cart pill's link, and one a template aims at the top window.
    expect(linkAction(link("/cart", { class: "tessera-cart-pill" }), origin)).toEqual({ kind: "frame", path: "/cart" });
    expect(linkAction(link("/shop?category=mugs", { target: "_top" }), origin)).toEqual({ kind: "frame", path: "/shop?category=mugs" });
    expect(linkAction(link("https://elsewhere.example/x"), origin)).toEqual({ kind: "outside", href: "https://elsewhere.example/x" });
    expect(linkAction(link("/config/orders"), origin)).toEqual({ kind: "none" });
    expect(linkAction(link("mailto:a@b.example"), origin)).toEqual({ kind: "default" });
    expect(linkAction(null, origin)).toEqual({ kind: "default" });
  });

  it("swaps the preview stylesheet in for the site's and changes the body's classes", () => {
    const doc = document.implementation.createHTMLDocument("site");
    doc.head.innerHTML = '<link rel="stylesheet" href="/site.css"><link rel="stylesheet" href="/_tessera/islands/islands.css">';
    doc.body.className = "tweak-header-style-centered-title";
    previewStyles(doc, "body { color: #aa0000; }", ["tweak-header-style-left-title"], ["tweak-header-style-centered-title"]);
    const [site, islands] = Array.from(doc.querySelectorAll("link")) as HTMLLinkElement[];
    expect(site.disabled).toBe(true);
    expect(islands.disabled).not.toBe(true);
    expect(doc.body.className).toBe("tweak-header-style-left-title");
    previewStyles(doc, "body { color: #00aa00; }");
    const styles = doc.querySelectorAll("style");
    // One preview stylesheet, the newest.
    expect(styles.length).toBeLessThanOrEqual(1);
    if (styles.length === 1) expect(styles[0].textContent).toBe("body { color: #00aa00; }");
  });

  it("reads values as the controls show them", () => {
    const t = design().tweaks[1];
    expect(shownValue(t, {})).toBe("62rem");
    expect(shownValue(t, { "tweak-site-width": "70rem" })).toBe("70rem");
    expect(shownValue(t, { "tweak-site-width": null })).toBe("58rem");
    expect(hex6("#ABC")).toBe("#aabbcc");
    expect(hex6("hsl(1, 0.5, 0.5)")).toBeNull();
    const saved = identity();
    const form = {
      siteTitle: "New",
      siteTagLine: saved.siteTagLine,
      contactEmail: saved.contactEmail,
      contactPhoneNumber: saved.contactPhoneNumber,
      socialAccounts: saved.socialAccounts,
      ...saved.location,
      addressLine2: "Port Wren",
    };
    expect(identityPatch(saved, form)).toEqual({
      siteTitle: "New",
      location: { addressLine2: "Port Wren" },
    });
  });
});
