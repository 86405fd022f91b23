import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, call, failureText } from "../src/shared/api";
import * as m from "../src/shared/messages";
import { cookie, fakeFetch } from "./helpers";

afterEach(() => vi.unstubAllGlobals());

describe("failures as visitors read them", () => {
  it("crumb failures depend on whether cookies are on", () => {
    const e = new ApiError(403, "x", { crumbFail: true });
    expect(failureText(e, true)).toBe(m.SESSION_EXPIRED);
    expect(failureText(e, false)).toBe(m.ENABLE_COOKIES);
    expect(m.SESSION_EXPIRED).toBe("Your session has expired. Please reload the page and try again.");
    expect(m.ENABLE_COOKIES).toBe("Please enable cookies in your browser, reload the page, and try again.");
  });

  it("429 asks to wait; other failures show the server's message", () => {
    expect(failureText(new ApiError(429, "slow down"))).toBe("Please try again in a few seconds.");
    expect(failureText(new ApiError(409, m.NOT_ENOUGH_STOCK))).toBe(m.NOT_ENOUGH_STOCK);
    expect(failureText(new Error("boom"))).toBe(m.PLEASE_TRY_AGAIN);
  });
});

describe("calls", () => {
  it("send the crumb cookie in X-CSRF-Token, and JSON", async () => {
    cookie("crumb=abc123");
    const calls = fakeFetch({ body: { ok: true } });
    expect(await call("POST", "/api/x", { a: 1 })).toEqual({ ok: true });
    const h = calls[0].init.headers as Record<string, string>;
    expect(h["X-CSRF-Token"]).toBe("abc123");
    expect(h["Content-Type"]).toBe("application/json");
    expect(calls[0].init.body).toBe('{"a":1}');
  });

  it("turn error answers and network failures into ApiErrors", async () => {
    fakeFetch({ status: 429, body: { message: "Please try again in a few seconds." }, headers: { "Retry-After": "3" } });
    const e = await call("GET", "/api/x").catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.retryAfter]).toEqual([429, 3]);
    fakeFetch({ network: true });
    const n = await call("GET", "/api/x").catch((x) => x);
    expect([n.status, n.message]).toEqual([0, "Please check your internet connection."]);
  });
});
