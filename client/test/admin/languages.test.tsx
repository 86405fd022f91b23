import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { nativeName, normalise } from "../../src/admin/screens/languages";
import { choose, heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const SETTINGS = "/api/multilingual/settings";
const LANGUAGES = "/api/multilingual/languages";
const CONNECTION = "/api/multilingual/connection";

const settings = (extra: Record<string, unknown> = {}) => ({
  defaultLanguage: "en-US",
  // As an import may store them: a plain tag, and settings.
  languages: ["fr-FR", { tag: "de", enabled: false }],
  connection: { provider: "Weglot" },
  ...extra,
});

/** The PUT answers with what it was sent (the server's canonical form is the same here). */
const echo = (c: Sent) => ({ body: { languages: c.body.languages } });

const rowOf = (name: string) => screen.getByRole("rowheader", { name: new RegExp(name) }).closest("tr") as HTMLElement;

describe("Settings → Languages", () => {
  it("shows the default language and each language named as it writes itself, in one call", async () => {
    const calls = server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${SETTINGS}`]: { body: settings() } });
    open("/config/settings/languages");
    await heading("Languages");
    await screen.findByText("Français (France)");
    expect(screen.getByText("English (United States)")).toBeTruthy();
    expect(within(rowOf("Deutsch")).getByRole("checkbox", { name: /Enabled/ })).toHaveProperty("checked", false);
    expect(within(rowOf("Français")).getByRole("checkbox", { name: /Enabled/ })).toHaveProperty("checked", true);
    expect(screen.getByText("Weglot")).toBeTruthy();
    expect(calls.filter((c) => c.path.startsWith("/api/multilingual")).map((c) => `${c.method} ${c.path}`)).toEqual([`GET ${SETTINGS}`]);
    // The picker leaves out what the site has.
    const picker = screen.getByLabelText("Add a language") as HTMLSelectElement;
    const offered = [...picker.options].map((o) => o.value);
    expect(offered).toContain("nl-NL");
    expect(offered).not.toContain("fr-FR");
    expect(offered).not.toContain("en-US");
  });

  it("adds a language from the picker, sending the whole list with the CSRF token", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${SETTINGS}`]: { body: settings() },
      [`PUT ${LANGUAGES}`]: echo,
    });
    open("/config/settings/languages");
    await screen.findByText("Français (France)");
    choose("Add a language", "nl-NL");
    fireEvent.click(screen.getByRole("button", { name: "Add language" }));
    await screen.findByText("Nederlands (Nederland)");
    const put = calls.find((c) => c.method === "PUT")!;
    expect(put.body).toEqual({
      languages: [
        { tag: "fr-FR", enabled: true },
        { tag: "de", enabled: false },
        { tag: "nl-NL", enabled: true },
      ],
    });
    expect(put.headers["X-CSRF-Token"]).toBe("csrf-123");
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Nederlands (Nederland) added."));
  });

  it("asks for a choice before adding, and shows the server's refusal beside the picker", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${SETTINGS}`]: { body: settings() },
      [`PUT ${LANGUAGES}`]: { status: 400, body: { errors: { "languages[2]": "This language already exists" } } },
    });
    open("/config/settings/languages");
    await screen.findByText("Français (France)");
    fireEvent.click(screen.getByRole("button", { name: "Add language" }));
    const picker = screen.getByLabelText("Add a language");
    await waitFor(() => expect(picker.getAttribute("aria-invalid")).toBe("true"));
    expect(calls.some((c) => c.method === "PUT")).toBe(false);
    expect(document.getElementById(picker.getAttribute("aria-describedby")!)?.textContent).toContain("Please choose a language.");

    choose("Add a language", "it");
    fireEvent.click(screen.getByRole("button", { name: "Add language" }));
    await waitFor(() =>
      expect(document.getElementById(picker.getAttribute("aria-describedby")!)?.textContent).toContain("This language already exists"),
    );
    // Nothing was added.
    expect(screen.queryByRole("rowheader", { name: /Italiano/ })).toBeNull();
  });

  it("turns a language on and off, and removes one", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${SETTINGS}`]: { body: settings() },
      [`PUT ${LANGUAGES}`]: echo,
    });
    open("/config/settings/languages");
    await screen.findByText("Français (France)");
    fireEvent.click(within(rowOf("Deutsch")).getByRole("checkbox"));
    await waitFor(() => expect(within(rowOf("Deutsch")).getByRole("checkbox")).toHaveProperty("checked", true));
    expect(calls.filter((c) => c.method === "PUT")[0].body.languages[1]).toEqual({ tag: "de", enabled: true });

    fireEvent.click(screen.getByRole("button", { name: "Remove Français (France)" }));
    await waitFor(() => expect(screen.queryByRole("rowheader", { name: /Français/ })).toBeNull());
    expect(calls.filter((c) => c.method === "PUT")[1].body).toEqual({ languages: [{ tag: "de", enabled: true }] });
  });

  it("disconnects the translation provider only once asked again", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${SETTINGS}`]: { body: settings() },
      [`DELETE ${CONNECTION}`]: { body: { connected: false } },
    });
    open("/config/settings/languages");
    await screen.findByText("Weglot");
    fireEvent.click(screen.getByRole("button", { name: "Disconnect" }));
    const dialog = await screen.findByRole("dialog", { name: "Disconnect the translation provider?" });
    // Keep closes it without a call.
    fireEvent.click(within(dialog).getByRole("button", { name: "Keep" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);

    fireEvent.click(screen.getByRole("button", { name: "Disconnect" }));
    fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Disconnect" }));
    await screen.findByText("No translation provider is connected.");
    expect(calls.filter((c) => c.method === "DELETE").map((c) => c.path)).toEqual([CONNECTION]);
  });

  it("has empty states", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, [`GET ${SETTINGS}`]: { body: settings({ languages: [], connection: null }) } });
    open("/config/settings/languages");
    await screen.findByText("No other languages yet: the site is in its default language only.");
    expect(screen.getByText("No translation provider is connected.")).toBeTruthy();
  });

  it("is read-only for a role that may only read languages", async () => {
    server({ [`GET ${SESSION}`]: { body: me({ languages: "read" }) }, [`GET ${SETTINGS}`]: { body: settings() } });
    open("/config/settings/languages");
    await screen.findByText("Français (France)");
    expect(screen.getByText("Your role can read the languages but not change them.")).toBeTruthy();
    expect(screen.queryByRole("checkbox")).toBeNull();
    expect(screen.queryByRole("button", { name: /Remove|Disconnect|Add language/ })).toBeNull();
    expect(screen.queryByLabelText("Add a language")).toBeNull();
  });

  it("is listed under Settings for the languages area, and refused without it", async () => {
    server({ [`GET ${SESSION}`]: { body: me({ languages: "read" }) } });
    open("/config/settings");
    await heading("Settings");
    expect(screen.getByRole("link", { name: "Languages" })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Store settings" })).toBeNull();

    const calls = server({ [`GET ${SESSION}`]: { body: me({ store: "write" }) } });
    open("/config/settings/languages");
    await heading("No access");
    expect(calls.some((c) => c.path === SETTINGS)).toBe(false);
  });

  it("names languages as they write themselves, and reads plain tags", () => {
    expect(nativeName("ja")).toBe("日本語");
    expect(nativeName("not a tag")).toBe("not a tag");
    expect(normalise(["fr-FR", { language: "de", enabled: false }, 3, {}])).toEqual([
      { tag: "fr-FR", enabled: true },
      { tag: "de", enabled: false },
    ]);
  });
});

describe("Settings → Languages: the default language", () => {
  it("changes the default with a merge patch and shows what the server answers", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${SETTINGS}`]: { body: settings() },
      [`PATCH ${SETTINGS}`]: (c) => ({ body: settings({ defaultLanguage: c.body.defaultLanguage, languages: [{ tag: "de", enabled: false }] }) }),
    });
    open("/config/settings/languages");
    await screen.findByText("Français (France)");
    const save = screen.getByRole("button", { name: "Save default language" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    choose("Language of the site", "fr-FR");
    fireEvent.click(save);
    await waitFor(() => expect(screen.queryByRole("rowheader", { name: /Français/ })).toBeNull());
    const patch = calls.find((c) => c.method === "PATCH")!;
    expect(patch.body).toEqual({ defaultLanguage: "fr-FR" });
    expect(patch.headers["X-CSRF-Token"]).toBe("csrf-123");
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("The default language is now Français (France)."));
  });

  it("shows a refused default beside its field", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${SETTINGS}`]: { body: settings() },
      [`PATCH ${SETTINGS}`]: { status: 400, body: { errors: { defaultLanguage: "That is not a language tag (like fr-FR)." } } },
    });
    open("/config/settings/languages");
    await screen.findByText("Français (France)");
    choose("Language of the site", "de");
    fireEvent.click(screen.getByRole("button", { name: "Save default language" }));
    const select = screen.getByLabelText("Language of the site");
    await waitFor(() => expect(select.getAttribute("aria-invalid")).toBe("true"));
    expect(document.getElementById(select.getAttribute("aria-describedby")!)?.textContent).toContain(
      "That is not a language tag (like fr-FR).",
    );
  });
});
