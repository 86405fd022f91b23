import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEBOUNCE_MS, ERRORS_PATH, MAX_QUEUED, MAX_REPORTS, MAX_STACK, type Report, Reporter } from "../src/shared/analytics/errors";
import { overrides, PARAM, STORAGE_KEY, variants } from "../src/shared/analytics/experiments";
import { FLUSH_AFTER_MS, type PerfRecord, Recorder } from "../src/shared/analytics/performance";
import { eligible, MOCK_ID, recordingId, US_TERRITORIES } from "../src/shared/analytics/recording";
import { ANALYTICS_TTL, KEYS, SESSION_TTL, analyticsId, landing, resolvedLocale, sessionId } from "../src/shared/analytics/session";
import { PLAN_UPGRADE, STATUS, TRIAL_UPGRADE, showStatus, statusEffect } from "../src/shared/analytics/status";
import { read, write } from "../src/shared/analytics/storage";
import { EVENTS_PATH, NO_PAYLOAD, httpError, overwritten, track } from "../src/shared/analytics/tracker";
import { mount as mountAnalytics, MEMBER_AREA_VIEW } from "../src/islands/analytics/index";
import { JOIN_CLICK, mount as mountAccess, PAYWALL_VIEW } from "../src/islands/member-access/index";
import { cookie, page, routeFetch, until } from "./helpers";

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const T0 = 1_800_000_000_000;

/** Gives the browser a beacon (or takes it away) for one test. */
function beaconIs(fn: ((url: string, body: unknown) => boolean) | undefined) {
  Object.defineProperty(navigator, "sendBeacon", { value: fn, configurable: true, writable: true });
}
afterEach(() => beaconIs(undefined));

describe("stored values", () => {
  it("expire and are removed once expired", () => {
    write("k", "v", 1000, T0);
    expect(read("k", T0 + 999)).toBe("v");
    expect(read("k", T0 + 1000)).toBeNull();
    expect(localStorage.getItem("k")).toBeNull();
    write("forever", "v", null, T0);
    expect(read("forever", T0 + 10 * ANALYTICS_TTL)).toBe("v");
  });

  it("fall back to a cookie when local storage refuses", () => {
    vi.spyOn(Storage.prototype, "setItem").mockImplementation(() => {
      throw new Error("quota");
    });
    expect(write("c", "kept", 60_000, Date.now())).toBe(true);
    expect(document.cookie).toContain("c=");
  });
});

describe("the analytics session", () => {
  it("keeps the analytics id 390 days, with its expiration", () => {
    const id = analyticsId(T0);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(analyticsId(T0 + ANALYTICS_TTL - 1)).toBe(id);
    expect(read(KEYS.analyticsExpiration, T0)).toBe(String(T0 + ANALYTICS_TTL));
    expect(analyticsId(T0 + ANALYTICS_TTL + 1)).not.toBe(id);
  });

  it("knows the first landing and the first session, which lasts while the visitor comes back within 30 minutes", () => {
    expect(landing(T0)).toEqual({ firstLanding: true, firstSession: true });
    expect(landing(T0 + SESSION_TTL - 1)).toEqual({ firstLanding: false, firstSession: true });
    // Each page keeps the session going.
    expect(landing(T0 + 2 * SESSION_TTL - 2)).toEqual({ firstLanding: false, firstSession: true });
    // Half an hour away ends it.
    expect(landing(T0 + 4 * SESSION_TTL)).toEqual({ firstLanding: false, firstSession: false });
  });

  it("makes the session id on demand and keeps it while in use", () => {
    expect(read(KEYS.sessionId, T0)).toBeNull();
    const id = sessionId(T0);
    expect(sessionId(T0 + SESSION_TTL - 1)).toBe(id);
    expect(sessionId(T0 + 2 * SESSION_TTL - 2)).toBe(id);
    expect(sessionId(T0 + 4 * SESSION_TTL)).not.toBe(id);
  });

  it("resolves the locale: the one given, else the document's language, else en-US", () => {
    document.documentElement.lang = "nl-NL";
    expect(resolvedLocale("pt-BR")).toBe("pt-BR");
    expect(resolvedLocale(null)).toBe("nl-NL");
    document.documentElement.lang = "";
    expect(resolvedLocale(undefined)).toBe("en-US");
  });
});

describe("the newer tracker", () => {
  it("sends by beacon, form-encoded, with the fields every event carries", async () => {
    const beacon = vi.fn((_url: string, _body: unknown) => true);
    beaconIs(beacon);
    await track("lesson_view", { lesson_id: "l1" }, { websiteLocale: "en-GB" });
    expect(beacon).toHaveBeenCalledTimes(1);
    const [path, body] = beacon.mock.calls[0] as unknown as [string, URLSearchParams];
    expect(path).toBe(EVENTS_PATH);
    expect(body.get("eventSchemaName")).toBe("lesson_view");
    const content = JSON.parse(body.get("eventContent")!);
    expect(content.lesson_id).toBe("l1");
    expect(content.custom_schema_name).toBe("lesson_view");
    expect(content.resolved_locale).toBe("en-GB");
    expect(content.page_path).toBe(window.location.pathname);
    for (const field of ["analytics_id", "session_id", "event_occurrence_timestamp", "user_agent"]) expect(content[field], field).toBeTruthy();
  });

  it("sends by a call without a beacon; 200 and 202 succeed, other statuses reject and warn", async () => {
    beaconIs(undefined);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const api = routeFetch({ [`POST ${EVENTS_PATH}`]: [{ status: 202 }, { status: 200 }, { status: 500 }, { network: true }] });
    await track("page_view", { a: 1 });
    await track("page_view", { a: 1 });
    await expect(track("page_view", { a: 1 })).rejects.toThrow(httpError(500));
    await expect(track("page_view", { a: 1 })).rejects.toThrow("Error tracking event: HTTP Status 0");
    expect(warn).toHaveBeenCalledWith("Error tracking event: HTTP Status 500");
    const sent = api.to(`POST ${EVENTS_PATH}`)[0].body;
    expect(sent.eventSchemaName).toBe("page_view");
    expect(JSON.parse(sent.eventContent).a).toBe(1);
  });

  it("falls back to a call when the browser will not queue the beacon", async () => {
    beaconIs(() => false);
    const api = routeFetch({ [`POST ${EVENTS_PATH}`]: { status: 202 } });
    await track("page_view", { a: 1 });
    expect(api.to(`POST ${EVENTS_PATH}`)).toHaveLength(1);
  });

  it("rejects with nothing to send, and warns when a field it fills is overwritten", async () => {
    await expect(track("x", null)).rejects.toThrow(NO_PAYLOAD);
    await expect(track("", { a: 1 })).rejects.toThrow(NO_PAYLOAD);
    beaconIs(() => true);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await track("x", { page_path: "/elsewhere" });
    expect(warn).toHaveBeenCalledWith(overwritten("page_path"));
  });
});

describe("the error reporter", () => {
  it("waits a second without new errors, then sends them together with the crumb", async () => {
    vi.useFakeTimers();
    const sent: Report[][] = [];
    const r = new Reporter(async (batch) => sent.push(batch), () => T0);
    r.report({ message: "one" });
    vi.advanceTimersByTime(DEBOUNCE_MS - 1);
    r.report({ message: "two" });
    vi.advanceTimersByTime(DEBOUNCE_MS - 1);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent.map((b) => b.map((x) => x.data.message))).toEqual([["one", "two"]]);
    expect(sent[0][0]).toMatchObject({ event: "javascript-error", timestamp: T0 });

    // The default sender: the crumb header, the route, silently.
    cookie("crumb=c9");
    const api = routeFetch({ [`POST ${ERRORS_PATH}`]: { status: 500 } });
    const real = new Reporter();
    real.report({ message: "boom", stack: "x".repeat(MAX_STACK + 50) });
    vi.advanceTimersByTime(DEBOUNCE_MS);
    vi.useRealTimers();
    await new Promise((ok) => setTimeout(ok, 0));
    const call = api.to(`POST ${ERRORS_PATH}`)[0];
    expect(call.headers["X-CSRF-Token"]).toBe("c9");
    expect(call.body[0].data.stack).toHaveLength(MAX_STACK);
  });

  it("queues at most 10 and reports at most 20 a page", () => {
    vi.useFakeTimers();
    const sent: Report[][] = [];
    const r = new Reporter(async (batch) => sent.push(batch));
    const taken = Array.from({ length: 15 }, (_, i) => r.report({ message: `e${i}` }));
    expect(taken.filter(Boolean)).toHaveLength(MAX_QUEUED);
    vi.advanceTimersByTime(DEBOUNCE_MS);
    for (let i = 0; i < 15; i++) r.report({ message: `f${i}` });
    vi.advanceTimersByTime(DEBOUNCE_MS);
    for (let i = 0; i < 5; i++) r.report({ message: `g${i}` });
    vi.advanceTimersByTime(DEBOUNCE_MS);
    expect(sent.map((b) => b.length)).toEqual([10, 10]);
    expect(sent.flat()).toHaveLength(MAX_REPORTS);
  });

  it("hears the window's errors and rejections", () => {
    vi.useFakeTimers();
    const sent: Report[][] = [];
    const r = new Reporter(async (batch) => sent.push(batch));
    r.install(window);
    window.dispatchEvent(new ErrorEvent("error", { message: "bad thing", filename: "/x.js", lineno: 3, colno: 7 }));
    const rejection = new Event("unhandledrejection") as Event & { reason: unknown };
    rejection.reason = new Error("nope");
    window.dispatchEvent(rejection);
    window.dispatchEvent(new Event("pagehide"));
    expect(sent[0].map((x) => [x.data.message, x.data.line])).toEqual([
      ["bad thing", 3],
      ["nope", 0],
    ]);
  });
});

describe("performance records", () => {
  const transport = (id: string | null) => {
    const sent: PerfRecord[][] = [];
    return { sent, transport: { settings: async () => id, send: (r: PerfRecord[]) => sent.push(r) } };
  };

  it("go 30 s after load with the page load id, once", async () => {
    vi.useFakeTimers();
    const t = transport("pl-1");
    const r = new Recorder("site", t.transport, () => T0);
    r.install(window);
    r.add("lcp", { ms: 812 });
    await vi.advanceTimersByTimeAsync(FLUSH_AFTER_MS - 1);
    expect(t.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.sent).toEqual([[{ app: "site", event: "lcp", data: { ms: 812 }, ts: T0, pageLoadId: "pl-1" }]]);
    r.add("late", {});
    window.dispatchEvent(new Event("pagehide"));
    await vi.advanceTimersByTimeAsync(FLUSH_AFTER_MS);
    expect(t.sent).toHaveLength(1);
  });

  it("go at page hide when that comes first, and not without a page load id", async () => {
    vi.useFakeTimers();
    const t = transport("pl-2");
    const r = new Recorder("site", t.transport);
    r.install(window);
    r.add("cls", { value: 0.02 });
    window.dispatchEvent(new Event("pagehide"));
    await vi.advanceTimersByTimeAsync(0);
    expect(t.sent[0][0].pageLoadId).toBe("pl-2");
    await vi.advanceTimersByTimeAsync(FLUSH_AFTER_MS);
    expect(t.sent).toHaveLength(1);

    const none = transport(null);
    const r2 = new Recorder("site", none.transport);
    r2.add("lcp", {});
    await r2.flush();
    expect(none.sent).toEqual([]);
  });
});

describe("experiment overrides", () => {
  it("count only ACTIVE assignments, take overrides where allowed, keep them for the session, and reset", () => {
    const all = [
      { name: "hero", variant: "a", status: "ACTIVE" },
      { name: "old", variant: "b", status: "ARCHIVED" },
    ];
    expect(variants(all, {})).toEqual({ hero: "a" });
    expect(overrides(`?${PARAM}=hero:b`, false)).toEqual({});
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(overrides(`?${PARAM}=hero:b&${PARAM}=cart:two`, true)).toEqual({ hero: "b", cart: "two" });
    // Kept for the session's next pages.
    expect(variants(all, overrides("", true))).toEqual({ hero: "b", cart: "two" });
    expect(overrides(`?${PARAM}=reset`, true)).toEqual({});
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(overrides(`?${PARAM}=reset&${PARAM}=hero:c`, true)).toEqual({ hero: "c" });
    expect(overrides(`?${PARAM}=broken`, true)).toEqual({ hero: "c" });
  });
});

describe("session recording", () => {
  const ok = { country: "US", timeZone: "America/Chicago", cores: 4, toggle: true, sampled: true };

  it("is for US sites in American time zones on 3+ cores with the toggle and sample on", () => {
    expect(eligible(ok)).toBe(true);
    for (const c of US_TERRITORIES) expect(eligible({ ...ok, country: c.toLowerCase() })).toBe(true);
    for (const bad of [
      { country: "CA" },
      { country: null },
      { timeZone: "Europe/London" },
      { cores: 2 },
      { cores: undefined },
      { toggle: false },
      { sampled: false },
    ]) {
      expect(eligible({ ...ok, ...bad }), JSON.stringify(bad)).toBe(false);
    }
  });

  it("skips on the mock id and asks nothing when not eligible", async () => {
    const api = routeFetch({ "GET /api/commerce/fullstory/getId": [{ body: { id: MOCK_ID } }, { body: { id: "real-1" } }] });
    expect(await recordingId(ok)).toBeNull();
    expect(await recordingId(ok)).toBe("real-1");
    expect(await recordingId({ ...ok, cores: 1 })).toBeNull();
    expect(api.calls).toHaveLength(2);
  });
});

describe("website status", () => {
  it("trial and expired sites show their upgrade link, a parking page replaces the content", () => {
    expect(statusEffect(STATUS.PAID)).toBeNull();
    expect(statusEffect(undefined)).toBeNull();
    document.body.innerHTML = "<main><p>Content</p></main>";
    const trial = showStatus(STATUS.TRIAL)!;
    expect(trial.querySelector("a")!.getAttribute("href")).toBe(TRIAL_UPGRADE);
    expect(document.body.firstElementChild).toBe(trial);
    const expired = showStatus(STATUS.EXPIRED)!;
    expect(expired.querySelector("a")!.getAttribute("href")).toBe(PLAN_UPGRADE);
    showStatus(STATUS.PARKING_PAGE);
    expect(document.body.textContent).toBe("Coming soon.");
    expect(document.querySelector("main")).toBeNull();
  });
});

describe("the analytics island", () => {
  it("on a counted member-area page: reports errors, records performance and the member-area view", async () => {
    const beacon = vi.fn((_url: string, _body: unknown) => true);
    beaconIs(beacon);
    page("<main>Lesson</main>", { analytics: { track: true, pageType: 105 } });
    const api = routeFetch({ "GET /api/1/performance/settings": { body: { pageLoadId: "pl-9" } }, [`POST ${ERRORS_PATH}`]: { body: {} } });
    mountAnalytics();
    mountAnalytics();
    const events = () => beacon.mock.calls.map((c) => (c[1] as unknown as URLSearchParams).get?.("eventSchemaName")).filter(Boolean);
    await until(() => events().length > 0, "the member-area event");
    expect(events()).toEqual([MEMBER_AREA_VIEW]);
    window.dispatchEvent(new ErrorEvent("error", { message: "lesson script broke" }));
    // The reporter waits a second of quiet before it sends.
    for (let i = 0; i < 60 && api.to(`POST ${ERRORS_PATH}`).length === 0; i++) await new Promise((ok) => setTimeout(ok, 50));
    expect(api.to(`POST ${ERRORS_PATH}`)[0].body[0].data.message).toBe("lesson script broke");
    expect(api.to("GET /api/1/performance/settings")).toHaveLength(1);
  });

  it("on an uncounted page reports nothing, and shows the plan status on any page", async () => {
    const beacon = vi.fn((_url: string, _body: unknown) => true);
    beaconIs(beacon);
    page("<main>Join</main>", { analytics: { track: false, pageType: 106 }, websiteStatus: STATUS.TRIAL });
    const api = routeFetch({});
    mountAnalytics();
    await new Promise((ok) => setTimeout(ok, 20));
    expect(api.calls).toEqual([]);
    expect(beacon).not.toHaveBeenCalled();
    expect(document.querySelector(".tessera-site-status-trial a")!.getAttribute("href")).toBe(TRIAL_UPGRADE);
  });
});

describe("a join page's visitor tracking", () => {
  const joinPage = `<div data-island="member-access" data-member-area="club" data-redirect="/c" data-join-label="Join"></div>`;
  const sent = (beacon: ReturnType<typeof vi.fn>) =>
    beacon.mock.calls.map((c: unknown[]) => {
      const form = c[1] as URLSearchParams;
      return [form.get("eventSchemaName"), JSON.parse(form.get("eventContent")!).member_area_id];
    });

  it("records the paywall shown and the join button pressed when analytics is on", async () => {
    const beacon = vi.fn((_url: string, _body: unknown) => true);
    beaconIs(beacon);
    page(joinPage, { analytics: { track: false, pageType: 106 } });
    mountAccess(document, () => {});
    await until(() => !!document.querySelector("button.member-area-join"), "the join button");
    (document.querySelector("button.member-area-join") as HTMLElement).click();
    await until(() => beacon.mock.calls.length >= 2, "two events");
    expect(sent(beacon), JSON.stringify(sent(beacon))).toEqual([
      [PAYWALL_VIEW, "club"],
      [JOIN_CLICK, "club"],
    ]);
  });

  it("records nothing when analytics is off", async () => {
    const beacon = vi.fn((_url: string, _body: unknown) => true);
    beaconIs(beacon);
    page(joinPage, {});
    mountAccess(document, () => {});
    await until(() => !!document.querySelector("button.member-area-join"), "the join button");
    (document.querySelector("button.member-area-join") as HTMLElement).click();
    await new Promise((ok) => setTimeout(ok, 20));
    expect(beacon).not.toHaveBeenCalled();
  });
});
