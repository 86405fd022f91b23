import { afterEach, describe, expect, it, vi } from "vitest";
import { api, ApiError, NETWORK_ERROR, setCsrf, whenSignedOut, withQuery } from "../../src/admin/api/client";

function respond(status: number, body: string | null, type = "application/json") {
  const calls: RequestInit[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (_url: string, init: RequestInit) => {
      calls.push(init);
      return new Response(body, { status, headers: { "Content-Type": type } });
    }),
  );
  return calls;
}

/** The error a call rejects with (a call that succeeds fails the test). */
const failure = (p: Promise<unknown>): Promise<ApiError> =>
  p.then(
    () => {
      throw new Error("the call succeeded");
    },
    (e) => e as ApiError,
  );

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrf(null);
  whenSignedOut(null);
});

describe("the app's fetch wrapper", () => {
  it("sends JSON, and the CSRF token on writes only", async () => {
    setCsrf("tok");
    let calls = respond(200, '{"ok":true}');
    expect(await api("PATCH", "/api/owner/inventory", { updates: [] })).toEqual({ ok: true });
    const h = calls[0].headers as Record<string, string>;
    expect([h["X-CSRF-Token"], h["Content-Type"], calls[0].body, calls[0].credentials]).toEqual(["tok", "application/json", '{"updates":[]}', "same-origin"]);
    calls = respond(200, "{}");
    await api("GET", "/api/owner/orders");
    expect((calls[0].headers as Record<string, string>)["X-CSRF-Token"]).toBeUndefined();
  });

  it("turns {errors} into field errors and {message} into the message", async () => {
    respond(400, '{"errors":{"email":"Enter an email address."}}');
    const e1 = await failure(api("POST", "/x", {}));
    expect([e1.status, e1.message, e1.fields]).toEqual([400, "Please correct the fields marked below.", { email: "Enter an email address." }]);
    respond(409, '{"message":"This order is already fulfilled."}');
    const e2 = await failure(api("POST", "/x", {}));
    expect([e2.status, e2.message, e2.fields]).toEqual([409, "This order is already fulfilled.", {}]);
  });

  it("says what happened when the answer is not JSON, or nothing came back", async () => {
    respond(502, "<html>Bad gateway</html>", "text/html");
    expect((await failure(api("GET", "/x"))).message).toBe("Something went wrong (HTTP 502). Please try again.");
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))));
    const e = await failure(api("GET", "/x"));
    expect([e.status, e.message]).toEqual([0, NETWORK_ERROR]);
    respond(204, null);
    expect(await api("DELETE", "/x")).toBeNull();
  });

  it("tells the app when a call finds the session gone, but not for the session's own calls", async () => {
    const gone = vi.fn();
    whenSignedOut(gone);
    respond(401, "{}");
    await api("GET", "/api/owner/session").catch(() => {});
    expect(gone).not.toHaveBeenCalled();
    await api("GET", "/api/owner/orders").catch(() => {});
    expect(gone).toHaveBeenCalledTimes(1);
  });

  it("writes a query of the values that are set", () => {
    expect(withQuery("/a", { q: "x y", empty: "", no: null, off: false, on: true, n: 0 })).toBe("/a?q=x+y&on=true&n=0");
    expect(withQuery("/a", {})).toBe("/a");
  });
});
