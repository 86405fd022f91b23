import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SiteIdentity } from "../../src/admin/api/types";
import { minutes } from "../../src/admin/screens/site-identity";
import { heading, me, open, server, type Sent } from "./helpers";

const IDENTITY = "/api/owner/site-identity";
const closed = { text: "", ranges: [] };

const identity = (hours: Record<string, unknown> = {}): SiteIdentity => ({
  siteTitle: "Harbor Lane Pottery",
  siteTagLine: "",
  logo: null,
  favicon: null,
  contactEmail: "",
  contactPhoneNumber: "",
  location: { addressTitle: "", addressLine1: "", addressLine2: "", addressCountry: "" },
  socialAccounts: [],
  services: ["x"],
  businessHours: {
    monday: closed, tuesday: { text: "09:00–17:00", ranges: [{ from: 540, to: 1020 }] }, wednesday: closed, thursday: closed,
    friday: closed, saturday: closed, sunday: closed, ...hours,
  },
});

const routes = (extra: Record<string, any> = {}, areas?: Parameters<typeof me>[0]) => ({
  "GET /api/owner/session": { body: me(areas) },
  "GET /api/owner/design": { body: { compiled: true, templateVersion: 1, groups: [], previews: [], tweaks: [] } },
  [`GET ${IDENTITY}`]: { body: identity() },
  "GET /api/owner/site-notices": { status: 503, body: { message: "later" } },
  ...extra,
});

const field = (label: string) => screen.getByLabelText(label, { selector: "input" }) as HTMLInputElement;

afterEach(() => vi.unstubAllGlobals());

describe("Design → site identity → opening hours", () => {
  it("reads time fields as minutes, a closing 00:00 as midnight", () => {
    expect(minutes("09:30")).toBe(570);
    expect(minutes("00:00")).toBe(0);
    expect(minutes("00:00", true)).toBe(1440);
    expect(minutes("")).toBe(-1);
  });

  it("shows each day, adds hours, sends the whole week in minutes, and shows a problem beside its time", async () => {
    let tries = 0;
    const calls = server(
      routes({
        [`PATCH ${IDENTITY}`]: (c: Sent) =>
          ++tries === 1
            ? { status: 400, body: { errors: { "businessHours.saturday[0].to": "The closing time must be after the opening time." } } }
            : { body: identity({ saturday: { text: "10:00–00:00", ranges: c.body.businessHours.saturday.ranges } }) },
      }),
    );
    open("/config/design");
    await heading("Design");
    const hours = await screen.findByRole("group", { name: "Opening hours" });
    expect(within(screen.getByRole("group", { name: "Monday" })).getByText("Closed")).toBeTruthy();
    expect(field("Tuesday 1: opens").value).toBe("09:00");
    expect(field("Tuesday 1: closes").value).toBe("17:00");
    fireEvent.click(within(hours).getByRole("button", { name: "Add hours on Saturday" }));
    fireEvent.input(field("Saturday 1: opens"), { target: { value: "10:00" } });
    fireEvent.input(field("Saturday 1: closes"), { target: { value: "09:00" } });
    fireEvent.click(screen.getByRole("button", { name: "Save site identity" }));
    const closes = field("Saturday 1: closes");
    await waitFor(() => expect(closes.getAttribute("aria-invalid")).toBe("true"));
    expect(document.getElementById(closes.getAttribute("aria-describedby")!.split(" ").pop()!)?.textContent).toContain(
      "The closing time must be after the opening time.",
    );
    const first = calls.find((c) => c.method === "PATCH")!;
    expect(first.body).toEqual({
      businessHours: {
        monday: { ranges: [] }, tuesday: { ranges: [{ from: 540, to: 1020 }] }, wednesday: { ranges: [] }, thursday: { ranges: [] },
        friday: { ranges: [] }, saturday: { ranges: [{ from: 600, to: 540 }] }, sunday: { ranges: [] },
      },
    });
    fireEvent.input(closes, { target: { value: "00:00" } });
    fireEvent.click(screen.getByRole("button", { name: "Save site identity" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Site identity saved."));
    expect(calls.filter((c) => c.method === "PATCH").pop()!.body.businessHours.saturday).toEqual({ ranges: [{ from: 600, to: 1440 }] });
    expect(field("Saturday 1: closes").value).toBe("00:00");
  });
});
