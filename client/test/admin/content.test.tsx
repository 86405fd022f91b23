import { act, fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ContentItem, ItemList } from "../../src/admin/api/types";
import { slugOf, statusOf } from "../../src/admin/screens/content";
import { resetSiteForms } from "../../src/admin/ui/form-block";
import { checkLink, unkept } from "../../src/admin/ui/rich-text-rules";
import { fromLocalInput, toLocalInput } from "../../src/admin/ui/zoned";
import { heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const BLOG = "blog1";
const ITEMS = `/api/owner/collections/${BLOG}/items`;
const ZONE = "America/New_York";
const FUTURE = Date.UTC(2031, 2, 3, 14, 0); // 09:00 in New York

const post = (id: string, title: string, extra: Partial<ContentItem> = {}): ContentItem => ({
  id,
  collectionId: BLOG,
  urlId: slugOf(title),
  title,
  body: "<p>Text</p>",
  excerpt: "",
  recordType: 1,
  visibility: "visible",
  publishOn: Date.UTC(2026, 0, 5),
  addedOn: 0,
  updatedOn: 0,
  tags: ["kiln"],
  categories: [],
  author: { displayName: "Mara Lind" },
  data: { commentState: 1 },
  ...extra,
});

const list = (items: ContentItem[] = [post("p1", "Spring firing"), post("p2", "Next firing", { visibility: "scheduled", publishOn: FUTURE }), post("p3", "Notes", { visibility: "hidden" })]): ItemList => ({
  items,
  collection: { id: BLOG, urlId: "journal", title: "Journal", type: 1, typeName: "blog", enabled: true, items: items.length },
  authors: [{ displayName: "Jonah Reyes" }, { displayName: "Mara Lind" }],
  timeZone: ZONE,
});

afterEach(() => vi.unstubAllGlobals());

// jsdom lays nothing out; ProseMirror asks where the selection is when it scrolls to it.
const noRects = () => Object.assign([], { item: () => null }) as unknown as DOMRectList;
Range.prototype.getClientRects = noRects;
Range.prototype.getBoundingClientRect = () => new DOMRect();
(Text.prototype as unknown as { getClientRects: () => DOMRectList }).getClientRects = noRects;

describe("content rules", () => {
  it("says what visitors see of an item", () => {
    const now = Date.UTC(2027, 0, 1);
    expect(statusOf({ visibility: "hidden", publishOn: 0 }, now)).toBe("Draft");
    expect(statusOf({ visibility: "scheduled", publishOn: now + 1 }, now)).toBe("Scheduled");
    expect(statusOf({ visibility: "scheduled", publishOn: now - 1 }, now)).toBe("Published");
    expect(statusOf({ visibility: "visible", publishOn: now + 1 }, now)).toBe("Published");
  });

  it("reads and shows times in the site's zone, not the browser's", () => {
    expect(fromLocalInput("2031-03-03T09:00", ZONE)).toBe(FUTURE);
    expect(toLocalInput(FUTURE, ZONE)).toBe("2031-03-03T09:00");
    // Summer time: New York is UTC-4.
    expect(fromLocalInput("2031-07-01T09:00", ZONE)).toBe(Date.UTC(2031, 6, 1, 13, 0));
    expect(fromLocalInput("2031-07-01T09:00", "Asia/Tokyo")).toBe(Date.UTC(2031, 6, 1, 0, 0));
    expect(fromLocalInput("tomorrow", ZONE)).toBeNull();
  });

  it("checks links as the server does", () => {
    expect(checkLink("www.example.com")).toBe("https://www.example.com");
    expect(checkLink("https://example.com/a")).toBe("https://example.com/a");
    expect(checkLink("/about")).toBe("/about");
    expect(checkLink("mailto:a@b.example")).toBe("mailto:a@b.example");
    expect(checkLink("javascript:alert(1)")).toBeNull();
    expect(checkLink("not a link")).toBeNull();
    expect(checkLink("//evil.example")).toBeNull();
  });

  it("makes URL ids from titles", () => {
    expect(slugOf("Kiln day: Spring Firing!")).toBe("kiln-day-spring-firing");
    expect(slugOf("Crème brûlée")).toBe("creme-brulee");
  });
});

describe("the content list", () => {
  it("lists a blog's posts with their status, and deletes one after asking", async () => {
    let items = list();
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${ITEMS}`]: () => ({ body: items }),
      "DELETE /api/owner/items/p3": () => {
        items = list(items.items.filter((i) => i.id !== "p3"));
        return { body: { deleted: "p3" } };
      },
    });
    open(`/config/content/${BLOG}`);
    await heading("Journal");
    const rows = screen.getAllByRole("row").slice(1);
    expect(rows.map((r) => within(r).getByRole("rowheader").textContent)).toEqual(["Next firing", "Spring firing", "Notes"]);
    expect(within(rows[0]).getByText("Scheduled")).toBeTruthy();
    expect(within(rows[1]).getByText("Published")).toBeTruthy();
    expect(within(rows[2]).getByText("Draft")).toBeTruthy();
    expect(screen.getByRole("link", { name: "New post" })).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Delete Notes" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete Notes?" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(screen.queryByText("Notes")).toBeNull());
    expect(calls.some((c) => c.method === "DELETE" && c.path === "/api/owner/items/p3")).toBe(true);
  });

  it("offers nothing to change to a role that only reads content", async () => {
    server({ [`GET ${SESSION}`]: { body: me({ content: "read" }) }, [`GET ${ITEMS}`]: { body: list() } });
    open(`/config/content/${BLOG}`);
    await heading("Journal");
    expect(screen.queryByRole("link", { name: "New post" })).toBeNull();
    expect(screen.queryByRole("button", { name: /^Delete/ })).toBeNull();
  });

  it("says so when a page has nothing yet", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${ITEMS}`]: { body: list([]) } });
    open(`/config/content/${BLOG}`);
    await heading("Journal");
    expect(screen.getByText(/No posts yet/)).toBeTruthy();
  });
});

/** The text box of the rich-text field labelled `label`, once the editor's chunk loaded. */
async function editorBox(label: string) {
  return (await screen.findByRole("textbox", { name: label }, { timeout: 5000 })) as HTMLElement;
}

describe("writing a post", () => {
  it("has a toolbar of labelled, pressed-aware buttons that Tab reaches, and shortcuts", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${ITEMS}`]: { body: list() } });
    open(`/config/content/${BLOG}/p1`);
    await heading("Spring firing");
    const box = await editorBox("Text");
    const toolbar = screen.getByRole("toolbar", { name: "Formatting: Text" });
    const buttons = within(toolbar).getAllByRole("button");
    expect(buttons.map((b) => b.getAttribute("aria-label"))).toEqual([
      "Heading",
      "Subheading",
      "Bold",
      "Italic",
      "Bulleted list",
      "Numbered list",
      "Quote",
      "Link",
      "Image",
      "Form",
    ]);
    for (const b of buttons) {
      expect(b.tagName).toBe("BUTTON");
      expect(b.getAttribute("tabindex")).not.toBe("-1");
    }
    const bold = within(toolbar).getByRole("button", { name: "Bold" });
    expect(bold.getAttribute("aria-pressed")).toBe("false");
    expect(bold.getAttribute("aria-keyshortcuts")).toBe("Control+B");
    // The editor's box is labelled and multi-line.
    expect(box.getAttribute("aria-multiline")).toBe("true");
    // A heading from the toolbar: pressed while the cursor is in it.
    act(() => {
      box.focus();
    });
    fireEvent.click(within(toolbar).getByRole("button", { name: "Heading" }));
    await waitFor(() => expect(within(toolbar).getByRole("button", { name: "Heading" }).getAttribute("aria-pressed")).toBe("true"));
    expect(box.innerHTML).toContain("<h2>Text</h2>");
    // Its keyboard shortcut: Ctrl+B turns bold on where the cursor is.
    fireEvent.keyDown(box, { key: "b", code: "KeyB", ctrlKey: true });
    await waitFor(() => expect(within(toolbar).getByRole("button", { name: "Bold" }).getAttribute("aria-pressed")).toBe("true"));
    // Ctrl+K opens the link dialog.
    fireEvent.keyDown(box, { key: "k", code: "KeyK", ctrlKey: true });
    expect(await screen.findByRole("dialog", { name: "Add a link" })).toBeTruthy();
    fireEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    // The link dialog checks the link with SPEC.md §5's message.
    fireEvent.click(within(toolbar).getByRole("button", { name: "Link" }));
    const dialog = await screen.findByRole("dialog", { name: "Add a link" });
    fireEvent.input(within(dialog).getByLabelText("Link"), { target: { value: "not a link" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Add link" }));
    const field = within(dialog).getByLabelText("Link");
    await waitFor(() => expect(field.getAttribute("aria-invalid")).toBe("true"));
    expect(within(dialog).getByText("Links must be formatted as www.example.com or https://www.example.com")).toBeTruthy();
  }, 20000);

  it("refuses a duplicate tag, edits one tag at a time, and schedules in the site's zone", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${ITEMS}`]: { body: list() },
      [`POST ${ITEMS}`]: (c: Sent) => ({ status: 201, body: { ...post("p9", c.body.title), ...c.body, id: "p9" } }),
    });
    open(`/config/content/${BLOG}/new`);
    await heading("New post");
    fireEvent.input(screen.getByLabelText("Title"), { target: { value: "Kiln day" } });
    expect((screen.getByLabelText("URL id") as HTMLInputElement).value).toBe("kiln-day");

    const tag = screen.getByLabelText("Tags");
    fireEvent.input(tag, { target: { value: "glaze" } });
    fireEvent.keyDown(tag, { key: "Enter" });
    fireEvent.input(screen.getByLabelText("Tags"), { target: { value: "Glaze" } });
    fireEvent.keyDown(screen.getByLabelText("Tags"), { key: "Enter" });
    expect(await screen.findByText("This tag already exists")).toBeTruthy();
    expect(screen.getByLabelText("Tags").getAttribute("aria-invalid")).toBe("true");
    fireEvent.input(screen.getByLabelText("Tags"), { target: { value: "kiln" } });
    fireEvent.keyDown(screen.getByLabelText("Tags"), { key: "Enter" });
    // One edited at a time: while "glaze" is edited, the other chips' buttons wait.
    fireEvent.click(screen.getByRole("button", { name: "Edit tag glaze" }));
    expect(screen.getByLabelText("Edit tag “glaze”")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Edit tag kiln" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.input(screen.getByLabelText("Edit tag “glaze”"), { target: { value: "glazes" } });
    fireEvent.keyDown(screen.getByLabelText("Edit tag “glaze”"), { key: "Enter" });
    const cat = screen.getByLabelText("Categories");
    fireEvent.input(cat, { target: { value: "Studio" } });
    fireEvent.keyDown(cat, { key: "Enter" });
    fireEvent.input(screen.getByLabelText("Categories"), { target: { value: "studio" } });
    fireEvent.keyDown(screen.getByLabelText("Categories"), { key: "Enter" });
    expect(await screen.findByText("This category already exists")).toBeTruthy();

    fireEvent.click(screen.getByLabelText(/^Scheduled/));
    const when = screen.getByLabelText(`Publish on (${ZONE})`);
    fireEvent.input(when, { target: { value: "2031-03-03T09:00" } });
    fireEvent.click(screen.getByRole("button", { name: "Schedule" }));
    await waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true));
    const sent = calls.find((c) => c.method === "POST")!.body;
    expect(sent).toMatchObject({
      title: "Kiln day",
      urlId: "kiln-day",
      tags: ["glazes", "kiln"],
      categories: ["Studio"],
      visibility: "scheduled",
      publishOn: FUTURE,
      data: { commentState: 1 },
    });
  });

  it("shows the server's errors beside their fields", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${ITEMS}`]: { body: list() },
      "PATCH /api/owner/items/p1": { status: 400, body: { errors: { urlId: "Another item of this collection has this URL id.", "tags[1]": "This tag already exists" } } },
    });
    open(`/config/content/${BLOG}/p1`);
    await heading("Spring firing");
    fireEvent.click(screen.getByRole("button", { name: "Publish" }));
    const url = screen.getByLabelText("URL id");
    await waitFor(() => expect(url.getAttribute("aria-invalid")).toBe("true"));
    const described = url.getAttribute("aria-describedby")!.split(" ");
    expect(described.map((id) => document.getElementById(id)?.textContent).join(" ")).toContain("Another item of this collection has this URL id.");
    expect(screen.getByText("This tag already exists")).toBeTruthy();
  });

  it("needs alt text for an image, or the image marked decorative", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${ITEMS}`]: { body: list() } });
    open(`/config/content/${BLOG}/p1`);
    await heading("Spring firing");
    await editorBox("Text");
    const toolbar = screen.getByRole("toolbar", { name: "Formatting: Text" });
    fireEvent.click(within(toolbar).getByRole("button", { name: "Image" }));
    const dialog = await screen.findByRole("dialog", { name: "Add an image" });
    const file = new File([new Uint8Array([137, 80, 78, 71])], "kiln.png", { type: "image/png" });
    fireEvent.change(within(dialog).getByLabelText("Image file"), { target: { files: [file] } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Add image" }));
    expect(await within(dialog).findByText("Please describe the image, or mark it as decorative.")).toBeTruthy();
    expect(within(dialog).getByLabelText("Alt text").getAttribute("aria-invalid")).toBe("true");
  });
});

describe("writing an event", () => {
  it("takes its start, end and place in the site's zone, the end not before the start", async () => {
    const EVENTS = "ev1";
    const events = list([]);
    events.collection = { id: EVENTS, urlId: "star-parties", title: "Star parties", type: 1, typeName: "events", enabled: true, items: 0 };
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET /api/owner/collections/${EVENTS}/items`]: { body: events },
      [`POST /api/owner/collections/${EVENTS}/items`]: (c: Sent) => ({ status: 201, body: { ...post("e1", c.body.title), ...c.body, id: "e1" } }),
    });
    open(`/config/content/${EVENTS}`);
    await heading("Star parties");
    expect(screen.getByText(/No events yet/)).toBeTruthy();
    fireEvent.click(screen.getByRole("link", { name: "New event" }));
    await heading("New event");
    fireEvent.input(screen.getByLabelText("Title"), { target: { value: "Perseids night" } });
    fireEvent.input(screen.getByLabelText(`Starts (${ZONE})`), { target: { value: "2031-08-12T21:00" } });
    fireEvent.input(screen.getByLabelText(`Ends (${ZONE})`), { target: { value: "2031-08-12T20:00" } });
    fireEvent.input(screen.getByLabelText("Place name"), { target: { value: "Ridge field" } });
    fireEvent.click(screen.getByRole("button", { name: "Publish" }));
    const ends = screen.getByLabelText(`Ends (${ZONE})`);
    await waitFor(() => expect(ends.getAttribute("aria-invalid")).toBe("true"));
    expect(screen.getByText("An event ends after it starts.")).toBeTruthy();
    expect(calls.some((c) => c.method === "POST")).toBe(false);

    fireEvent.input(ends, { target: { value: "2031-08-13T01:30" } });
    fireEvent.click(screen.getByRole("button", { name: "Publish" }));
    await waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true));
    expect(calls.find((c) => c.method === "POST")!.body).toMatchObject({
      title: "Perseids night",
      recordType: 12,
      visibility: "visible",
      startDate: Date.UTC(2031, 7, 13, 1, 0), // 21:00 in New York (UTC-4 in August)
      endDate: Date.UTC(2031, 7, 13, 5, 30),
      data: { commentState: 1, location: { addressTitle: "Ridge field" } },
    });
  });
});

describe("a page's own text", () => {
  it("says what the stored text has that the editor would not keep", async () => {
    expect(unkept("<h2>A</h2><p><strong>b</strong> <a href=\"/x\">c</a></p><img src=\"/i.png\" alt=\"\">")).toEqual([]);
    expect(unkept("<div class=\"sqs-block form-block\" data-block-type=\"9\"><form><input name=a></form></div><table><tr><td>1</td></tr></table>")).toEqual([
      "a layout of blocks",
      "a form",
      "a table",
    ]);
    const PAGE = "contact";
    const page = list([]);
    page.collection = { id: PAGE, urlId: "contact", title: "Contact", type: 10, typeName: "page", enabled: true, items: 0 };
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET /api/owner/collections/${PAGE}/items`]: { body: page },
      [`GET /api/owner/collections/${PAGE}/content`]: { body: { id: PAGE, title: "Contact", typeName: "page", mainContent: "<p>Write to us</p><form action=\"/api/form/SaveFormSubmission\"><input name=\"email\"></form>" } },
    });
    open(`/config/content/${PAGE}`);
    await heading("Contact");
    const box = await editorBox("Page text");
    const note = screen.getByText(/This text has a form, which this editor does not keep/);
    expect(box.getAttribute("aria-describedby")).toContain(note.id);
  });

  it("opens a regular page's text in the editor and saves it with PUT", async () => {
    const PAGE = "home1";
    const page = list([]);
    page.collection = { id: PAGE, urlId: "studio", title: "Studio", type: 10, typeName: "page", enabled: true, items: 0 };
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET /api/owner/collections/${PAGE}/items`]: { body: page },
      [`GET /api/owner/collections/${PAGE}/content`]: { body: { id: PAGE, title: "Studio", typeName: "page", mainContent: "<h2>Made by the water</h2>" } },
      [`PUT /api/owner/collections/${PAGE}/content`]: (c: Sent) => ({ body: { id: PAGE, title: "Studio", typeName: "page", mainContent: c.body.mainContent } }),
    });
    open(`/config/content/${PAGE}`);
    await heading("Studio");
    const box = await editorBox("Page text");
    expect(box.innerHTML).toContain("<h2>Made by the water</h2>");
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(calls.some((c) => c.method === "PUT")).toBe(true));
    expect(calls.find((c) => c.method === "PUT")!.body).toEqual({ mainContent: "<h2>Made by the water</h2>" });
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Studio saved."));
  });

  it("places one of the site's forms with the Form button, as a card, saved as a placeholder", { timeout: 20000 }, async () => {
    resetSiteForms();
    const PAGE = "home1";
    const page = list([]);
    page.collection = { id: PAGE, urlId: "studio", title: "Studio", type: 10, typeName: "page", enabled: true, items: 0 };
    const forms = { forms: [{ id: "f1", name: "Booking", submissions: 0, newsletter: false, fieldCount: 3 }, { id: "f2", name: "News", submissions: 2, newsletter: true, fieldCount: 1 }] };
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET /api/owner/collections/${PAGE}/items`]: { body: page },
      [`GET /api/owner/collections/${PAGE}/content`]: { body: { id: PAGE, title: "Studio", typeName: "page", mainContent: "<p>Hello</p>" } },
      "GET /api/owner/forms": { body: forms },
      [`PUT /api/owner/collections/${PAGE}/content`]: (c: Sent) => ({ body: { id: PAGE, title: "Studio", typeName: "page", mainContent: c.body.mainContent } }),
    });
    open(`/config/content/${PAGE}`);
    await heading("Studio");
    const box = await editorBox("Page text");
    const toolbar = screen.getByRole("toolbar", { name: "Formatting: Page text" });
    const button = within(toolbar).getByRole("button", { name: "Form" });
    expect(button.getAttribute("aria-haspopup")).toBe("dialog");
    fireEvent.click(button);
    const dialog = await screen.findByRole("dialog", { name: "Add a form" });
    const pick = (await within(dialog).findByLabelText("Form")) as HTMLSelectElement;
    expect(Array.from(pick.options).map((o) => o.textContent)).toEqual(["Booking", "News"]);
    act(() => {
      pick.value = "f2";
      pick.dispatchEvent(new Event("input", { bubbles: true }));
      pick.dispatchEvent(new Event("change", { bubbles: true }));
    });
    fireEvent.click(within(dialog).getByRole("button", { name: "Add form" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    // A card that says which form, not text to type into.
    const card = await within(box).findByRole("group", { name: "Form: News" });
    expect(card.getAttribute("contenteditable")).toBe("false");
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(calls.some((c) => c.method === "PUT")).toBe(true));
    expect(calls.find((c) => c.method === "PUT")!.body.mainContent).toContain(
      '<div class="sqs-block form-block sqs-block-form" data-block-type="9" data-form-id="f2"></div>',
    );
    // The placeholder is the editor's own: nothing is said to be lost.
    expect(unkept('<p>a</p><div class="sqs-block form-block sqs-block-form" data-block-type="9" data-form-id="f2"></div>')).toEqual([]);
  });

  it("says when the site has no forms yet, with the way to the Forms screen", async () => {
    resetSiteForms();
    const PAGE = "home1";
    const page = list([]);
    page.collection = { id: PAGE, urlId: "studio", title: "Studio", type: 10, typeName: "page", enabled: true, items: 0 };
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET /api/owner/collections/${PAGE}/items`]: { body: page },
      [`GET /api/owner/collections/${PAGE}/content`]: { body: { id: PAGE, title: "Studio", typeName: "page", mainContent: "" } },
      "GET /api/owner/forms": { body: { forms: [] } },
    });
    open(`/config/content/${PAGE}`);
    await heading("Studio");
    await editorBox("Page text");
    fireEvent.click(within(screen.getByRole("toolbar", { name: "Formatting: Page text" })).getByRole("button", { name: "Form" }));
    const dialog = await screen.findByRole("dialog", { name: "Add a form" });
    expect(await within(dialog).findByText(/No forms yet/)).toBeTruthy();
    expect(within(dialog).getByRole("link", { name: /Build one in Forms/ }).getAttribute("href")).toBe("/config/forms");
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("shows a viewer the text without a way to save it", async () => {
    const PAGE = "home1";
    const page = list([]);
    page.collection = { id: PAGE, urlId: "studio", title: "Studio", type: 10, typeName: "page", enabled: true, items: 0 };
    server({
      [`GET ${SESSION}`]: { body: me({ content: "read" }) },
      [`GET /api/owner/collections/${PAGE}/items`]: { body: page },
      [`GET /api/owner/collections/${PAGE}/content`]: { body: { id: PAGE, title: "Studio", typeName: "page", mainContent: "<p>Hi</p>" } },
    });
    open(`/config/content/${PAGE}`);
    await heading("Studio");
    const box = await editorBox("Page text");
    expect(box.getAttribute("contenteditable")).toBe("false");
    expect(screen.queryByRole("button", { name: "Save" })).toBeNull();
  });
});
