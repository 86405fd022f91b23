import { act, fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { zipSync, strToU8 } from "fflate";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fromFolder, fromZip, MAX_FILES, NOT_A_ZIP, TOO_MANY_FILES } from "../../src/admin/screens/template-files";
import { heading, me, open, server } from "./helpers";

const SESSION = "/api/owner/session";
const VERSIONS = "/api/owner/template/versions";

afterEach(() => vi.unstubAllGlobals());

const version = (n: number, active: boolean) => ({
  version: n,
  createdOn: Date.UTC(2026, 10, n),
  files: 40 + n,
  bytes: 250_000,
  active,
});
const list = (active: number, newest: number) => ({
  active,
  versions: Array.from({ length: newest }, (_, i) => version(newest - i, newest - i === active)),
});

/** A folder as the picker gives it: each file's path starts with the folder's name. */
function folder(files: Record<string, string | Uint8Array<ArrayBuffer>>): File[] {
  return Object.entries(files).map(([path, content]) => {
    const f = new File([content], path.split("/").pop()!);
    Object.defineProperty(f, "webkitRelativePath", { value: `my-theme/${path}` });
    return f;
  });
}

/** Files chosen in the input labelled `label`, as the browser tells it (dispatched by hand,
 *  as in product.test.tsx: `fireEvent.change` does not reach preact's change listeners). */
function pick(label: string, files: File[]) {
  const input = screen.getByLabelText(label) as HTMLInputElement;
  Object.defineProperty(input, "files", { value: files, configurable: true });
  act(() => {
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

describe("reading a template folder", () => {
  it("takes a picked folder's files from inside it, text as text and the rest as base64, without hidden files", async () => {
    const files = await fromFolder(
      folder({ "template.conf": "{}", "assets/dot.gif": new Uint8Array([0x47, 0x49, 0xff, 0x00]), ".DS_Store": "x", ".git/HEAD": "ref" }),
    );
    expect(files).toEqual([
      { path: "template.conf", text: "{}" },
      { path: "assets/dot.gif", base64: btoa(String.fromCharCode(0x47, 0x49, 0xff, 0x00)) },
    ]);
  });

  it("reads a zip, from inside the folder it was zipped with, and bounds it", () => {
    const zip = zipSync({ "my-theme/template.conf": strToU8("{}"), "my-theme/regions/site.region": strToU8("<p>"), "__MACOSX/x": strToU8("x") });
    expect(fromZip(zip)).toEqual([
      { path: "regions/site.region", text: "<p>" },
      { path: "template.conf", text: "{}" },
    ]);
    const many: Record<string, Uint8Array> = {};
    for (let i = 0; i <= MAX_FILES; i++) many[`f${i}.txt`] = strToU8("");
    expect(() => fromZip(zipSync(many))).toThrow(TOO_MANY_FILES);
    expect(() => fromZip(strToU8("not a zip"))).toThrow(NOT_A_ZIP);
  });
});

describe("the Templates screen", () => {
  it("lists the versions, and shows an upload's problems with their source lines before anything is switched", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${VERSIONS}`]: { body: list(1, 1) },
      [`POST ${VERSIONS}`]: {
        status: 400,
        body: {
          message: "The template has problems, so the site keeps its current version.",
          problems: ["regions/footer.region:2:3: error: unclosed section"],
          findings: [{ file: "regions/footer.region", line: 2, column: 3, message: "unclosed section", source: "  {.section website}" }],
        },
      },
    });
    open("/config/templates");
    await heading("Templates");
    const table = await screen.findByRole("table");
    expect(within(table).getByRole("rowheader", { name: "Version 1" })).toBeTruthy();
    expect(within(table).getByText("Live")).toBeTruthy();
    pick("Template folder", folder({ "template.conf": "{}", "regions/footer.region": "<footer>\n  {.section website}" }));
    await screen.findByText(/Chosen: my-theme: 2 files/);
    fireEvent.click(screen.getByRole("button", { name: "Upload and check" }));
    await screen.findByRole("heading", { name: "1 problem in this upload" });
    expect(screen.getByText("regions/footer.region:2:3")).toBeTruthy();
    const line = screen.getByLabelText("Line 2 of regions/footer.region");
    expect(line.textContent).toBe("  {.section website}\n  ^");
    expect(screen.getByRole("alert").textContent).toContain("the site keeps its current version");
    const post = calls.find((c) => c.method === "POST")!;
    expect(post.path).toBe(VERSIONS);
    expect(post.headers["X-CSRF-Token"]).toBe("csrf-123");
    expect(post.body.files).toEqual([
      { path: "template.conf", text: "{}" },
      { path: "regions/footer.region", text: "<footer>\n  {.section website}" },
    ]);
    expect(calls.some((c) => c.path.endsWith("/switch"))).toBe(false);
  });

  it("stores a good upload, switches to it after asking, and rolls back", async () => {
    let active = 1;
    let newest = 1;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${VERSIONS}`]: () => ({ body: list(active, newest) }),
      [`POST ${VERSIONS}`]: () => {
        newest = 2;
        return { status: 201, body: { templateVersion: 2, files: 2, warnings: [], findings: [] } };
      },
      [`POST ${VERSIONS}/2/switch`]: () => {
        active = 2;
        return { body: { active: 2 } };
      },
      [`POST ${VERSIONS}/1/switch`]: () => {
        active = 1;
        return { body: { active: 1 } };
      },
    });
    open("/config/templates");
    await heading("Templates");
    pick("Template folder", folder({ "template.conf": "{}", "regions/site.region": "<p>" }));
    await screen.findByText(/Chosen/);
    fireEvent.click(screen.getByRole("button", { name: "Upload and check" }));
    await screen.findByRole("heading", { name: "Version 2 is ready" });
    const ready = screen.getByRole("region", { name: "Version 2 is ready" });
    expect(ready.textContent).toContain("The site still serves the version it had.");
    fireEvent.click(screen.getAllByRole("button", { name: "Switch to version 2" })[0]);
    const dialog = await screen.findByRole("dialog", { name: "Switch to version 2?" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(calls.some((c) => c.path.endsWith("/switch"))).toBe(false);
    fireEvent.click(screen.getAllByRole("button", { name: "Switch to version 2" })[0]);
    fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Switch" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(ready.textContent).toContain("The site serves it now."));
    expect(screen.getByTestId("live").textContent).toBe("The site now serves template version 2.");
    fireEvent.click(await screen.findByRole("button", { name: "Roll back to version 1" }));
    fireEvent.click(within(await screen.findByRole("dialog", { name: "Roll back to version 1?" })).getByRole("button", { name: "Roll back" }));
    // Both the upload's note and the table offer version 2 again.
    await waitFor(() => expect(screen.getAllByRole("button", { name: "Switch to version 2" })).toHaveLength(2));
    expect(calls.filter((c) => c.method === "POST").map((c) => c.path)).toEqual([VERSIONS, `${VERSIONS}/2/switch`, `${VERSIONS}/1/switch`]);
  });

  it("shows a refused file beside the picker, by its path", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${VERSIONS}`]: { body: list(1, 1) },
      [`POST ${VERSIONS}`]: { status: 400, body: { message: "Please correct the fields.", errors: { "files[1].path": "A path is relative, at most 255 characters, without '..'." } } },
    });
    open("/config/templates");
    await heading("Templates");
    pick("Template folder", folder({ "template.conf": "{}", "a b.css": "x" }));
    await screen.findByText(/Chosen/);
    fireEvent.click(screen.getByRole("button", { name: "Upload and check" }));
    const input = screen.getByLabelText("Template folder");
    await waitFor(() => expect(input.getAttribute("aria-invalid")).toBe("true"));
    const error = document.getElementById(input.getAttribute("aria-describedby")!.split(" ").find((id) => id.endsWith("-error"))!)!;
    expect(error.textContent).toContain("a b.css: A path is relative");
  });

  it("offers no upload or switch to a role that only reads the design", async () => {
    server({ [`GET ${SESSION}`]: { body: me({ design: "read" }) }, [`GET ${VERSIONS}`]: { body: list(2, 2) } });
    open("/config/templates");
    await heading("Templates");
    await screen.findByRole("table");
    expect(screen.queryByLabelText("Template folder")).toBeNull();
    expect(screen.queryByRole("button", { name: /Roll back|Switch/ })).toBeNull();
    expect(screen.getByText("Stored")).toBeTruthy();
  });
});
