import { fireEvent, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SiteNotices } from "../../src/admin/api/types";
import { noticesPatch } from "../../src/admin/screens/site-notices";
import { heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const NOTICES = "/api/owner/site-notices";

const notices = (): SiteNotices => ({
  announcementBar: { enabled: false, text: "", url: "" },
  cookieBanner: { enabled: false, text: "", buttonLabel: "" },
  defaultCookieText: "This site uses cookies to keep your cart and sign-in and to count visits.",
  defaultCookieButtonLabel: "Accept",
});

const routes = (areas: Parameters<typeof me>[0], extra: Record<string, any> = {}) => ({
  [`GET ${SESSION}`]: { body: me(areas) },
  [`GET /api/owner/design`]: { body: { compiled: true, templateVersion: 1, groups: [], previews: [], tweaks: [] } },
  [`GET /api/owner/site-identity`]: { status: 503, body: { message: "not here" } },
  [`GET ${NOTICES}`]: { body: notices() },
  ...extra,
});

const input = (label: string) => screen.getByLabelText(label, { selector: "input, textarea" }) as HTMLInputElement;

afterEach(() => vi.unstubAllGlobals());

describe("Design → announcement bar and cookie banner", () => {
  it("sends only what changed, by notice", () => {
    const saved = notices();
    const form = { barOn: true, barText: "Sale", barUrl: "", bannerOn: false, bannerText: "", bannerLabel: "OK" };
    expect(noticesPatch(saved, form)).toEqual({
      announcementBar: { enabled: true, text: "Sale" },
      cookieBanner: { buttonLabel: "OK" },
    });
    expect(noticesPatch(saved, { barOn: false, barText: "", barUrl: "", bannerOn: false, bannerText: "", bannerLabel: "" })).toEqual({});
  });

  it("turns the bar on with its text and link, errors by field, then saved and announced", async () => {
    let tries = 0;
    const calls = server(
      routes(undefined, {
        [`PATCH ${NOTICES}`]: (c: Sent) =>
          ++tries === 1
            ? { status: 400, body: { errors: { "announcementBar.url": "Links must be formatted as www.example.com or https://www.example.com" } } }
            : { body: { ...notices(), announcementBar: { enabled: true, text: c.body.announcementBar.text, url: "https://harbor.example" } } },
      }),
    );
    open("/config/design");
    await heading("Design");
    await screen.findByRole("group", { name: "Announcement bar" });
    expect(calls.filter((c) => c.path === NOTICES).map((c) => c.method)).toEqual(["GET"]);
    const save = screen.getByRole("button", { name: "Save announcement bar and cookie banner" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.click(screen.getByRole("checkbox", { name: "Show the announcement bar" }));
    fireEvent.input(input("Announcement"), { target: { value: "Kiln sale this weekend" } });
    fireEvent.input(input("Link (optional)"), { target: { value: "not a link" } });
    fireEvent.click(save);
    const link = input("Link (optional)");
    await waitFor(() => expect(link.getAttribute("aria-invalid")).toBe("true"));
    const described = link.getAttribute("aria-describedby")!.split(" ").map((id) => document.getElementById(id)?.textContent).join(" ");
    expect(described).toContain("Links must be formatted as www.example.com or https://www.example.com");
    const first = calls.find((c) => c.method === "PATCH")!;
    expect(first.body).toEqual({ announcementBar: { enabled: true, text: "Kiln sale this weekend", url: "not a link" } });
    expect(first.headers["X-CSRF-Token"]).toBe("csrf-123");
    fireEvent.input(link, { target: { value: "harbor.example" } });
    fireEvent.click(save);
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Announcement bar and cookie banner saved."));
    expect(input("Link (optional)").value).toBe("https://harbor.example");
    expect(input("Link (optional)").getAttribute("aria-invalid")).toBeNull();
  });

  it("a role that may only read the design sees the settings without a save", async () => {
    server(routes({ design: "read" }, { [`GET ${NOTICES}`]: { body: { ...notices(), cookieBanner: { enabled: true, text: "", buttonLabel: "" } } } }));
    open("/config/design");
    await screen.findByRole("group", { name: "Cookie banner" });
    expect((screen.getByRole("checkbox", { name: "Show the cookie banner" }) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByRole("checkbox", { name: "Show the cookie banner" }).matches(":disabled")).toBe(true);
    expect(screen.queryByRole("button", { name: /Save announcement/ })).toBeNull();
  });
});
