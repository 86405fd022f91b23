import { act, fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Pages, SitePage } from "../../src/admin/api/types";
import { areasOf, arrangement, linkErrors, move } from "../../src/admin/screens/pages-tree";
import { choose, heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const PATH = "/api/owner/pages";

const page = (id: string, title: string, extra: Partial<SitePage> = {}): SitePage => ({
  id,
  title,
  navigationTitle: title,
  urlId: id,
  fullUrl: `/${id}`,
  type: 10,
  typeName: "page",
  enabled: true,
  homepage: false,
  folder: false,
  passwordProtected: false,
  seoTitle: "",
  seoDescription: "",
  items: 0,
  parentId: null,
  ...extra,
});

const data = (): Pages => ({
  navigations: [
    {
      identifier: "mainNav",
      title: "Main Navigation",
      links: [
        { collectionId: "home" },
        { collectionId: "workshop", items: [{ collectionId: "services" }] },
        { collectionId: "about" },
      ],
    },
    {
      identifier: "footerNav",
      title: "Footer Links",
      links: [{ externalLink: { url: "https://maps.example.org/", newWindow: true }, title: "Bike map" }],
    },
  ],
  notLinked: [{ collectionId: "draft" }],
  pages: [
    page("home", "Home", { homepage: true, fullUrl: "/" }),
    page("workshop", "Workshop", { folder: true, typeName: "folder", type: 1 }),
    page("services", "Services", { parentId: "workshop" }),
    page("about", "About", { passwordProtected: true }),
    page("draft", "Draft", { enabled: false }),
  ],
  types: [
    { typeName: "page", title: "Page", type: 10, folder: false },
    { typeName: "folder", title: "Folder", type: 1, folder: true },
    { typeName: "products", title: "Products", type: 13, folder: false },
  ],
  memberAreas: [],
  templateId: "7",
});

const routes = (areas: Parameters<typeof me>[0], extra: Record<string, any> = {}) => ({
  [`GET ${SESSION}`]: { body: me(areas) },
  [`GET ${PATH}`]: { body: data() },
  ...extra,
});

const area = (name: string) => within(screen.getByRole("region", { name }));
const sent = (calls: Sent[], method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

afterEach(() => vi.unstubAllGlobals());

describe("the pages model", () => {
  it("moves a link, into a folder but never a folder into one, and sends only what changed", () => {
    const d = data();
    const areas = areasOf(d);
    const down = move(areas, { area: "nav:mainNav", index: 0 }, { area: "nav:mainNav", index: 1 }, d.pages)!;
    expect(down[0].links.map((l) => l.collectionId)).toEqual(["workshop", "home", "about"]);
    const into = move(areas, { area: "free", index: 0 }, { area: "nav:mainNav", index: 1, child: 1 }, d.pages)!;
    expect(into[0].links[1].items).toEqual([{ collectionId: "services" }, { collectionId: "draft" }]);
    expect(arrangement(areas, into, "7")).toEqual({
      templateId: "7",
      navigations: { mainNav: [{ collectionId: "home" }, { collectionId: "workshop", items: [{ collectionId: "services" }, { collectionId: "draft" }] }, { collectionId: "about" }] },
      notLinked: [],
    });
    expect(move(areas, { area: "nav:mainNav", index: 1 }, { area: "nav:mainNav", index: 0, child: 0 }, d.pages)).toBeNull();
    expect(move(areas, { area: "nav:footerNav", index: 0 }, { area: "free", index: 0 }, d.pages)).toBeNull();
    expect(linkErrors({ "navigations.footerNav[0].externalLink": "bad", "navigations.footerNav[1].title": "other" }, { area: "nav:footerNav", index: 0 })).toEqual({
      externalLink: "bad",
    });
  });
});

describe("the Pages screen", () => {
  it("shows each navigation and Not linked as the site does, with View links, and nothing to change for a reader", async () => {
    server(routes({ content: "read" }));
    open("/config/pages");
    await heading("Pages");
    const main = area("Main Navigation");
    const rows = main.getAllByRole("listitem").map((li) => li.querySelector(".pages-title")!.textContent);
    expect(rows[0]).toContain("Home");
    expect(rows[1]).toContain("Workshop");
    expect(rows[2]).toContain("Services");
    expect(main.getByText("Password")).toBeTruthy();
    const view = main.getByRole("link", { name: "View About (opens in a new tab)" });
    expect(view.getAttribute("href")).toBe("/about");
    expect(view.getAttribute("target")).toBe("_blank");
    expect(area("Footer Links").getByText("Bike map")).toBeTruthy();
    const free = area("Not linked");
    expect(free.getByText("Disabled")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Add page" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Move/ })).toBeNull();
    expect(screen.queryByRole("button", { name: /Settings/ })).toBeNull();
  });

  it("shows the live site beside the panel, and a page's Preview shows it there", async () => {
    server(routes({ content: "read" }));
    open("/config/pages");
    await heading("Pages");
    const frame = screen.getByTitle("Site preview") as HTMLIFrameElement;
    expect(frame.getAttribute("src")).toBe("/");
    const main = area("Main Navigation");
    const row = (name: string) => main.getAllByRole("listitem").find((li) => li.querySelector(".pages-title")!.textContent!.startsWith(name))!;
    expect(within(row("Home")).getByText("In the preview")).toBeTruthy();
    const preview = main.getByRole("button", { name: "Preview About in the frame" });
    expect(preview.getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(preview);
    await waitFor(() => expect(within(row("About")).queryByText("In the preview")).toBeTruthy());
    expect(within(row("Home")).queryByText("In the preview")).toBeNull();
    expect(preview.getAttribute("aria-pressed")).toBe("true");
  });

  it("opens a page's content from its row (not a folder's, a link's or a store's)", async () => {
    const d = data();
    d.pages.push(page("shop", "Shop", { typeName: "products", type: 13 }));
    d.notLinked.push({ collectionId: "shop" });
    const calls = server({ ...routes({ content: "read" }), [`GET ${PATH}`]: { body: d } });
    open("/config/pages");
    await heading("Pages");
    const content = area("Main Navigation").getByRole("link", { name: "Content of About" });
    expect(content.getAttribute("href")).toBe("/config/content/about");
    expect(area("Main Navigation").queryByRole("link", { name: "Content of Workshop" })).toBeNull();
    expect(area("Not linked").queryByRole("link", { name: "Content of Shop" })).toBeNull();
    fireEvent.click(content);
    await waitFor(() => expect(calls.some((c) => c.path === "/api/owner/collections/about/items")).toBe(true));
  });

  it("says so when nothing is under Not linked", async () => {
    const d = data();
    d.notLinked = [];
    server({ ...routes({ content: "write" }), [`GET ${PATH}`]: { body: d } });
    open("/config/pages");
    await heading("Pages");
    expect(area("Not linked").getByText("Every page is linked in a navigation.")).toBeTruthy();
  });

  it("reorders from the keyboard, announces the new position and keeps the focus on the row", async () => {
    const calls = server(
      routes({ content: "write" }, {
        [`PATCH ${PATH}`]: (c: Sent) => {
          const d = data();
          d.navigations[0].links = c.body.navigations.mainNav;
          return { body: d };
        },
      }),
    );
    open("/config/pages");
    await heading("Pages");
    const settings = screen.getByRole("button", { name: "Settings of Home" });
    settings.focus();
    await act(async () => {
      fireEvent.keyDown(settings, { key: "ArrowDown", altKey: true });
    });
    await waitFor(() => expect(sent(calls, "PATCH", PATH)).toHaveLength(1));
    expect(sent(calls, "PATCH", PATH)[0].body).toEqual({
      templateId: "7",
      navigations: { mainNav: [{ collectionId: "workshop", items: [{ collectionId: "services" }] }, { collectionId: "home" }, { collectionId: "about" }] },
    });
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Home moved to position 2 of 3 in Main Navigation."));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole("button", { name: "Settings of Home" })));
    // The Move buttons do the same; the first row cannot go up.
    expect((screen.getByRole("button", { name: "Move Workshop up" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Move About up" }));
    await waitFor(() => expect(sent(calls, "PATCH", PATH)).toHaveLength(2));
    expect(sent(calls, "PATCH", PATH)[1].body.navigations.mainNav.map((l: any) => l.collectionId)).toEqual(["workshop", "about", "home"]);
  });

  it("adds a page of a chosen type and place, with the server's errors beside their fields", async () => {
    let tries = 0;
    const calls = server(
      routes({ content: "write" }, {
        "POST /api/owner/collections": () =>
          ++tries === 1
            ? { status: 400, body: { message: "Please correct the fields marked below.", errors: { urlId: "a b is not a valid page URL" } } }
            : { status: 201, body: page("rides", "Rides") },
      }),
    );
    open("/config/pages");
    await heading("Pages");
    fireEvent.click(screen.getByRole("button", { name: "Add page" }));
    const dialog = within(screen.getByRole("dialog", { name: "Add a page" }));
    // The editor is offered no store.
    const types = (dialog.getByLabelText("Type") as HTMLSelectElement).options;
    expect([...types].map((o) => o.textContent)).toEqual(["Page", "Folder"]);
    fireEvent.input(dialog.getByLabelText("Title"), { target: { value: "Rides" } });
    fireEvent.input(dialog.getByLabelText("URL"), { target: { value: "a b" } });
    const where = dialog.getByLabelText("Where") as HTMLSelectElement;
    expect([...where.options].map((o) => o.textContent)).toEqual(["Main Navigation", "Main Navigation › Workshop", "Footer Links", "Not linked"]);
    choose("Where", "nav:mainNav#1");
    fireEvent.click(dialog.getByRole("button", { name: "Add page" }));
    const url = await dialog.findByLabelText("URL");
    await waitFor(() => expect(url.getAttribute("aria-invalid")).toBe("true"));
    const described = url.getAttribute("aria-describedby")!.split(" ").map((id) => document.getElementById(id)!.textContent);
    expect(described.join(" ")).toContain("a b is not a valid page URL");
    expect(sent(calls, "POST", "/api/owner/collections")[0].body).toEqual({ typeName: "page", title: "Rides", urlId: "a b", folderId: "workshop" });
    fireEvent.input(url, { target: { value: "rides" } });
    fireEvent.click(dialog.getByRole("button", { name: "Add page" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Rides added."));
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("changes a page's settings, sending only what changed, and deletes it after asking", async () => {
    const calls = server(
      routes({ content: "write" }, {
        "PATCH /api/owner/collections/about": (c: Sent) =>
          c.body.urlId === "cart"
            ? { status: 400, body: { message: "Please correct the fields marked below.", errors: { urlId: "cart is not a valid page URL" } } }
            : { body: page("about", "Our story") },
        "DELETE /api/owner/collections/about": { body: { deleted: "about" } },
      }),
    );
    open("/config/pages");
    await heading("Pages");
    fireEvent.click(screen.getByRole("button", { name: "Settings of About" }));
    let dialog = within(screen.getByRole("dialog", { name: "Settings of About" }));
    expect(dialog.getByText("Visitors must enter a password to see this page.")).toBeTruthy();
    fireEvent.input(dialog.getByLabelText("URL"), { target: { value: "cart" } });
    fireEvent.click(dialog.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(dialog.getByText("cart is not a valid page URL")).toBeTruthy());
    expect(dialog.getByLabelText("URL").getAttribute("aria-invalid")).toBe("true");
    fireEvent.input(dialog.getByLabelText("URL"), { target: { value: "our-story" } });
    fireEvent.input(dialog.getByLabelText("Title"), { target: { value: "Our story" } });
    fireEvent.input(dialog.getByLabelText("SEO title"), { target: { value: "The story" } });
    fireEvent.click(dialog.getByLabelText("Remove the password"));
    fireEvent.click(dialog.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Our story saved."));
    expect(sent(calls, "PATCH", "/api/owner/collections/about")[1].body).toEqual({ title: "Our story", urlId: "our-story", password: null, seoTitle: "The story" });

    fireEvent.click(screen.getByRole("button", { name: "Settings of About" }));
    dialog = within(screen.getByRole("dialog", { name: "Settings of About" }));
    fireEvent.click(dialog.getByRole("button", { name: "Delete page" }));
    const confirm = within(screen.getByRole("dialog", { name: "Delete About?" }));
    expect(confirm.getByText(/taken out of every navigation\. This cannot be undone\./)).toBeTruthy();
    fireEvent.click(confirm.getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(sent(calls, "DELETE", "/api/owner/collections/about")).toHaveLength(1));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("About deleted."));
  });

  it("adds an external link, with SPEC.md's message beside the URL", async () => {
    const calls = server(
      routes({ content: "write" }, {
        [`PATCH ${PATH}`]: {
          status: 400,
          body: {
            message: "Please correct the fields marked below.",
            errors: { "navigations.footerNav[1].externalLink": "Links must be formatted as www.example.com or https://www.example.com" },
          },
        },
      }),
    );
    open("/config/pages");
    await heading("Pages");
    fireEvent.click(screen.getByRole("button", { name: "Add link" }));
    const dialog = within(screen.getByRole("dialog", { name: "Add a link" }));
    fireEvent.input(dialog.getByLabelText("Title"), { target: { value: "Partners" } });
    fireEvent.input(dialog.getByLabelText("URL"), { target: { value: "not a link" } });
    fireEvent.click(dialog.getByLabelText("Open in a new window"));
    choose("Where", "nav:footerNav");
    fireEvent.click(dialog.getByRole("button", { name: "Add link" }));
    await waitFor(() => expect(dialog.getByText("Links must be formatted as www.example.com or https://www.example.com")).toBeTruthy());
    expect(dialog.getByLabelText("URL").getAttribute("aria-invalid")).toBe("true");
    expect(sent(calls, "PATCH", PATH)[0].body.navigations.footerNav[1]).toEqual({ title: "Partners", externalLink: { url: "not a link", newWindow: true } });
  });
});
