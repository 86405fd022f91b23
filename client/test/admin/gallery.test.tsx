import { act, fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { type Gallery, type GalleryImage, moved, NO_ALT, shownOptions } from "../../src/admin/screens/gallery";
import { heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const PATH = "/api/owner/galleries/g1";

const image = (id: string, title: string, extra: Partial<GalleryImage> = {}): GalleryImage => ({
  id,
  urlId: id,
  title,
  caption: "",
  altText: `${title} alt`,
  decorative: false,
  assetUrl: `/_tessera/files/${id}/${id}.jpg`,
  fileName: `${id}.jpg`,
  fullUrl: `/gallery/${id}`,
  ...extra,
});

const gallery = (extra: Partial<Gallery> = {}): Gallery => ({
  id: "g1",
  title: "Gallery",
  urlId: "gallery",
  fullUrl: "/gallery",
  enabled: true,
  maxImages: 250,
  options: { design: "grid", autoplay: false, "autoplay-duration": 5, "thumbnails-per-row": 4, padding: 20 },
  optionTypes: [
    {
      name: "design",
      label: "Design",
      type: "choice",
      default: "grid",
      designs: [],
      choices: [
        { value: "slideshow", label: "Slideshow" },
        { value: "slider", label: "Slider" },
        { value: "grid", label: "Grid" },
        { value: "stacked", label: "Stacked" },
      ],
    },
    { name: "autoplay", label: "Autoplay", type: "bool", default: false, designs: ["slideshow", "slider"] },
    { name: "autoplay-duration", label: "Autoplay duration (seconds)", type: "range", min: 1, max: 10, default: 5, designs: ["slideshow", "slider"], needs: "autoplay" },
    { name: "thumbnails-per-row", label: "Images per row", type: "range", min: 1, max: 10, default: 4, designs: ["grid"] },
    { name: "padding", label: "Spacing (px)", type: "range", min: 0, max: 50, default: 20, designs: ["slider", "grid", "stacked"] },
  ],
  images: [image("a1", "Andromeda"), image("b2", "Bubble nebula")],
  ...extra,
});

const routes = (extra: Record<string, any> = {}, areas?: Parameters<typeof me>[0]) => ({
  [`GET ${SESSION}`]: { body: me(areas) },
  [`GET ${PATH}`]: { body: gallery() },
  ...extra,
});

/** Files chosen in a file input, as the browser tells it (an `input` event). */
const pick = (input: HTMLInputElement, ...files: File[]) => {
  Object.defineProperty(input, "files", { value: files, configurable: true });
  act(() => {
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
};

const rowOf = (name: string) => screen.getByText(name, { selector: "strong" }).closest("li") as HTMLElement;

describe("Galleries", () => {
  it("shows only the options of the chosen design, and those whose switch is on", () => {
    const g = gallery();
    const names = (o: Record<string, unknown>) => shownOptions(g.optionTypes, o).map((t) => t.name);
    expect(names({ design: "grid" })).toEqual(["design", "thumbnails-per-row", "padding"]);
    expect(names({ design: "slideshow", autoplay: false })).toEqual(["design", "autoplay"]);
    expect(names({ design: "slideshow", autoplay: true })).toEqual(["design", "autoplay", "autoplay-duration"]);
    expect(moved(["a", "b", "c"], 2, 0)).toEqual(["c", "a", "b"]);
  });

  it("loads the gallery in one call, its images in order and the grid's options", async () => {
    const calls = server(routes());
    open("/config/galleries/g1");
    await heading("Gallery: Gallery");
    const rows = within(screen.getByRole("list", { name: "Images" })).getAllByRole("listitem");
    expect(rows.map((r) => r.querySelector("strong")?.textContent)).toEqual(["Andromeda", "Bubble nebula"]);
    expect(calls.filter((c) => c.path.startsWith("/api/owner/galleries")).map((c) => `${c.method} ${c.path}`)).toEqual([`GET ${PATH}`]);
    expect(screen.getByLabelText("Images per row")).toBeTruthy();
    expect(screen.queryByLabelText("Autoplay")).toBeNull();
    // Another design: its options instead.
    const design = screen.getByLabelText("Design") as HTMLSelectElement;
    act(() => {
      design.value = "slideshow";
      design.dispatchEvent(new Event("change", { bubbles: true }));
    });
    expect(screen.queryByLabelText("Images per row")).toBeNull();
    expect(screen.queryByLabelText("Autoplay duration (seconds)")).toBeNull();
    fireEvent.click(screen.getByLabelText("Autoplay"));
    expect(screen.getByLabelText("Autoplay duration (seconds)")).toBeTruthy();
    // The live gallery beside it.
    expect((document.querySelector("iframe") as HTMLIFrameElement).getAttribute("src")).toContain("/gallery");
  });

  it("moves an image by keyboard: Alt+Up on its row sends the new order, announces it and keeps the focus", async () => {
    const calls = server(
      routes({
        [`PUT ${PATH}/order`]: (c: Sent) => ({ body: gallery({ images: c.body.images.map((id: string) => gallery().images.find((i) => i.id === id)) }) }),
      }),
    );
    open("/config/galleries/g1");
    await heading("Gallery: Gallery");
    const edit = within(rowOf("Bubble nebula")).getByRole("button", { name: "Edit Bubble nebula" });
    edit.focus();
    fireEvent.keyDown(edit, { key: "ArrowUp", altKey: true });
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Bubble nebula moved to position 1 of 2."));
    const put = calls.find((c) => c.method === "PUT")!;
    expect(put.body).toEqual({ images: ["b2", "a1"] });
    expect(put.headers["X-CSRF-Token"]).toBe("csrf-123");
    const rows = within(screen.getByRole("list", { name: "Images" })).getAllByRole("listitem");
    expect(rows.map((r) => r.querySelector("strong")?.textContent)).toEqual(["Bubble nebula", "Andromeda"]);
    await waitFor(() => expect(document.activeElement?.getAttribute("aria-label")).toBe("Edit Bubble nebula"));
    // The Move buttons do the same; the first image has no "up".
    expect((within(rowOf("Bubble nebula")).getByRole("button", { name: "Move Bubble nebula up" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(rowOf("Bubble nebula")).getByRole("button", { name: "Move Bubble nebula down" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PUT")).toHaveLength(2));
    expect(calls.filter((c) => c.method === "PUT")[1].body).toEqual({ images: ["a1", "b2"] });
    // Alt+Home moves it first.
    await waitFor(() => expect(rowOf("Bubble nebula").nextElementSibling).toBeNull());
    fireEvent.keyDown(within(rowOf("Bubble nebula")).getByRole("button", { name: "Edit Bubble nebula" }), { key: "Home", altKey: true });
    await waitFor(() => expect(calls.filter((c) => c.method === "PUT")).toHaveLength(3));
    expect(calls.filter((c) => c.method === "PUT")[2].body).toEqual({ images: ["b2", "a1"] });
  });

  it("moves an image by dragging it onto another", async () => {
    const calls = server(
      routes({
        [`PUT ${PATH}/order`]: (c: Sent) => ({ body: gallery({ images: c.body.images.map((id: string) => gallery().images.find((i) => i.id === id)) }) }),
      }),
    );
    open("/config/galleries/g1");
    await heading("Gallery: Gallery");
    fireEvent.dragStart(rowOf("Andromeda"));
    fireEvent.dragOver(rowOf("Bubble nebula"));
    fireEvent.drop(rowOf("Bubble nebula"));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Andromeda moved to position 2 of 2."));
    expect(calls.find((c) => c.method === "PUT")!.body).toEqual({ images: ["b2", "a1"] });
  });

  it("asks for alt text (or decorative) beside each file before uploading, then uploads and adds it", async () => {
    const calls = server(
      routes({
        "POST /api/owner/assets": { status: 201, body: { id: "f9", fileName: "comet.png", contentType: "image/png", size: 10, createdOn: 1, url: "/_tessera/files/f9/comet.png" } },
        [`POST ${PATH}/images`]: (c: Sent) => ({ status: 201, body: image("c3", c.body.title, { altText: c.body.altText }) }),
      }),
    );
    open("/config/galleries/g1");
    await heading("Gallery: Gallery");
    const input = screen.getByLabelText("Choose images") as HTMLInputElement;
    const file = new File(["png"], "comet.png", { type: "image/png" });
    pick(input, file);
    await screen.findByText("comet.png");
    fireEvent.click(screen.getByRole("button", { name: "Upload 1 image" }));
    const alt = screen.getByLabelText("Alt text") as HTMLInputElement;
    await waitFor(() => expect(alt.getAttribute("aria-invalid")).toBe("true"));
    const described = alt.getAttribute("aria-describedby")!.split(" ").map((id) => document.getElementById(id)?.textContent ?? "");
    expect(described.join(" ")).toContain(NO_ALT);
    expect(calls.some((c) => c.method === "POST")).toBe(false);

    fireEvent.input(alt, { target: { value: "A comet over the barn" } });
    fireEvent.input(screen.getByLabelText("Title"), { target: { value: "Comet" } });
    fireEvent.click(screen.getByRole("button", { name: "Upload 1 image" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("1 image added."));
    const sentFile = calls.find((c) => c.path === "/api/owner/assets")!;
    expect(sentFile.query.get("fileName")).toBe("comet.png");
    expect(calls.find((c) => c.path === `${PATH}/images`)!.body).toEqual({ assetId: "f9", title: "Comet", altText: "A comet over the barn", decorative: false });
    expect(rowOf("Comet")).toBeTruthy();
  });

  it("shows the server's file message beside the file it refused", async () => {
    server(
      routes({
        "POST /api/owner/assets": { status: 415, body: { message: "The file notes.png does not appear to be a supported image or PDF file." } },
      }),
    );
    open("/config/galleries/g1");
    await heading("Gallery: Gallery");
    const input = screen.getByLabelText("Choose images") as HTMLInputElement;
    pick(input, new File(["x"], "notes.png"));
    await screen.findByText("notes.png");
    fireEvent.click(screen.getByLabelText("Decorative (no alt text)"));
    fireEvent.click(screen.getByRole("button", { name: "Upload 1 image" }));
    await screen.findByText("The file notes.png does not appear to be a supported image or PDF file.");
  });

  it("saves only the changed options, and shows a refused one beside its field", async () => {
    const calls = server(routes({ [`PATCH ${PATH}`]: { status: 400, body: { errors: { "options.thumbnails-per-row": "This is a whole number from 1 to 10." } } } }));
    open("/config/galleries/g1");
    await heading("Gallery: Gallery");
    const perRow = screen.getByLabelText("Images per row") as HTMLInputElement;
    fireEvent.input(perRow, { target: { value: "11" } });
    fireEvent.click(screen.getByRole("button", { name: "Save options" }));
    await waitFor(() => expect(perRow.getAttribute("aria-invalid")).toBe("true"));
    expect(calls.find((c) => c.method === "PATCH")!.body).toEqual({ options: { "thumbnails-per-row": 11 } });
    expect(document.getElementById(perRow.getAttribute("aria-describedby")!.split(" ").pop()!)?.textContent).toContain("This is a whole number from 1 to 10.");
  });

  it("edits an image's words and removes one after asking", async () => {
    const calls = server(
      routes({
        [`PATCH ${PATH}/images/a1`]: (c: Sent) => ({ body: image("a1", "Andromeda", { decorative: c.body.decorative, altText: "" }) }),
        [`DELETE ${PATH}/images/b2`]: { body: { deleted: "b2" } },
      }),
    );
    open("/config/galleries/g1");
    await heading("Gallery: Gallery");
    fireEvent.click(screen.getByRole("button", { name: "Edit Andromeda" }));
    const dialog = await screen.findByRole("dialog");
    fireEvent.input(within(dialog).getByLabelText("Alt text"), { target: { value: "" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    await within(dialog).findByText(NO_ALT);
    expect(calls.some((c) => c.method === "PATCH")).toBe(false);
    fireEvent.click(within(dialog).getByLabelText("Decorative (no alt text)"));
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(calls.find((c) => c.method === "PATCH")!.body).toEqual({ decorative: true });
    expect(within(rowOf("Andromeda")).getByText(/Decorative/)).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Remove Bubble nebula" }));
    const ask = await screen.findByRole("dialog", { name: "Remove Bubble nebula?" });
    fireEvent.click(within(ask).getByRole("button", { name: "Remove" }));
    await waitFor(() => expect(screen.queryByText("Bubble nebula", { selector: "strong" })).toBeNull());
    expect(calls.some((c) => c.method === "DELETE" && c.path === `${PATH}/images/b2`)).toBe(true);
  });

  it("offers a role that only reads content nothing to change", async () => {
    server(routes({}, { content: "read" }));
    open("/config/galleries/g1");
    await heading("Gallery: Gallery");
    expect(screen.queryByLabelText("Choose images")).toBeNull();
    expect(screen.queryByRole("button", { name: /Move|Edit|Remove|Save options/ })).toBeNull();
    expect((screen.getByLabelText("Design") as HTMLSelectElement).matches(":disabled")).toBe(true);
  });

  it("is opened from Pages: a gallery page's row has Edit gallery", async () => {
    const galleryPage = {
      id: "g1", title: "Gallery", navigationTitle: "Gallery", urlId: "gallery", fullUrl: "/gallery", type: 1, typeName: "gallery",
      enabled: true, homepage: false, folder: false, passwordProtected: false, seoTitle: "", seoDescription: "", items: 2, parentId: null,
    };
    const blog = { ...galleryPage, id: "b1", title: "Notes", navigationTitle: "Notes", urlId: "notes", fullUrl: "/notes", typeName: "blog" };
    server(
      routes({
        "GET /api/owner/pages": {
          body: { navigations: [{ identifier: "mainNav", title: "Main Navigation", links: [{ collectionId: "g1" }, { collectionId: "b1" }] }], notLinked: [], pages: [galleryPage, blog], types: [], memberAreas: [], templateId: "t1" },
        },
      }),
    );
    open("/config/pages");
    await heading("Pages");
    const link = await screen.findByRole("link", { name: "Edit gallery Gallery" });
    expect(link.getAttribute("href")).toBe("/config/galleries/g1");
    expect(screen.queryByRole("link", { name: "Edit gallery Notes" })).toBeNull();
    fireEvent.click(link);
    await heading("Gallery: Gallery");
  });
});
