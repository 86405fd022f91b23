import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mount as mountAccess, navigate } from "../src/islands/member-access/index";
import { mount as mountBar } from "../src/islands/member-bar/index";
import { signOut, siteUserInfo, xsrfToken } from "../src/shared/member";
import * as mm from "../src/shared/messages-members";
import { $, click, cookie, page, routeFetch, signedIn, signedOut, submit, until } from "./helpers";

const ACCOUNT = "/api/site-users/account";
const SESSION = "/api/site-users/account/session";
const AREAS = "/api/site-users/account/member-areas";
const info = (v: unknown) => `SiteUserInfo=${encodeURIComponent(JSON.stringify(v))}`;

function fill(values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) $<HTMLInputElement>(`input[name=${name}]`).value = value;
}

const joinPage = `
  <div data-island="member-access" data-member-area="studio-club" data-redirect="/course/centering" data-join-label="Join the Studio Club">
    <a class="member-area-join" href="#member-area-join">Join the Studio Club</a>
  </div>`;

let reload: ReturnType<typeof vi.fn>;
beforeEach(() => {
  cookie("crumb=c1; path=/");
  sessionStorage.clear();
  reload = vi.fn();
});
afterEach(() => {
  signedOut();
  vi.unstubAllGlobals();
});

describe("SiteUserInfo", () => {
  it("says signed in only when it parses to an authenticated user", () => {
    expect(siteUserInfo(info({ authenticated: true, siteUserId: "u1" }))).toEqual({ authenticated: true, siteUserId: "u1" });
    for (const raw of ["", "SiteUserInfo=%7Bnot-json", info({ authenticated: false }), info({ authenticated: true }), "other=1"]) {
      expect(siteUserInfo(raw).authenticated, raw).toBe(false);
    }
  });
});

describe("the XSRF token", () => {
  it("comes from the sign-in, else from the account, and goes with a member's writes", async () => {
    const api = routeFetch({ [`GET ${ACCOUNT}`]: { body: { xsrfToken: "x-from-account" } } });
    expect(await xsrfToken()).toBe("x-from-account");
    expect(await xsrfToken()).toBe("x-from-account");
    expect(api.to(`GET ${ACCOUNT}`)).toHaveLength(1);
  });

  it("sign-out retries once after a crumb failure, with a fresh page view between", async () => {
    sessionStorage.setItem("tessera-xsrf", "x1");
    const api = routeFetch({
      [`DELETE ${SESSION}`]: [{ status: 403, body: { crumbFail: true, message: "expired" } }, { body: { signedOut: true } }],
      "GET /": { body: {} },
    });
    await signOut(true);
    const deletes = api.to(`DELETE ${SESSION}`);
    expect(deletes).toHaveLength(2);
    expect(deletes[0].headers["X-XSRF-Token"]).toBe("x1");
    expect(api.to("GET /")).toHaveLength(1);
    expect(api.calls.map((c) => c.method)).toEqual(["DELETE", "GET", "DELETE"]);
    expect(sessionStorage.getItem("tessera-xsrf")).toBeNull();
  });

  it("sign-out does not retry twice", async () => {
    sessionStorage.setItem("tessera-xsrf", "x1");
    const api = routeFetch({
      [`DELETE ${SESSION}`]: { status: 403, body: { crumbFail: true, message: "expired" } },
      "GET /": { body: {} },
    });
    await expect(signOut(false)).rejects.toMatchObject({ status: 403 });
    expect(api.to(`DELETE ${SESSION}`)).toHaveLength(2);
  });
});

describe("the join page", () => {
  it("a visitor signs up for the area and is told to check their email", async () => {
    page(joinPage);
    const api = routeFetch({
      [`POST ${ACCOUNT}`]: [
        { status: 400, body: { message: "x", errors: { email: "Please enter a valid email address." } } },
        { status: 202, body: { verificationSent: true, message: "Check your email (server)." } },
      ],
    });
    mountAccess(document, reload);
    await until(() => !!document.querySelector("button.member-area-join"), "the join button");
    expect($("button.member-area-join").textContent).toBe("Join the Studio Club");
    click("button.member-area-join");
    await until(() => !!document.querySelector("form.member-access-sign-up"), "the sign-up form");
    // Local checks first: blank, then a short password.
    submit();
    await until(() => $(".member-access-error")?.textContent === mm.BLANK, "the blank message");
    fill({ email: "ana@example.test", password: "short" });
    submit();
    await until(() => $("#member-access-password-error")?.textContent === mm.SHORT_PASSWORD, "the password message");
    expect(api.calls).toHaveLength(0);
    // The server's field message goes under its field.
    fill({ email: "ana@example", password: "wheel-and-kiln", displayName: "Ana" });
    submit();
    await until(() => !!document.querySelector("#member-access-email-error"), "the email message");
    expect($("#member-access-email-error").textContent).toBe("Please enter a valid email address.");
    expect($("input[name=email]").getAttribute("aria-invalid")).toBe("true");
    fill({ email: "ana@example.test" });
    submit();
    await until(() => !!document.querySelector(".member-access-sent"), "the sent message");
    expect($(".member-access-sent").textContent).toBe("Check your email (server).");
    expect(api.to(`POST ${ACCOUNT}`)[1].body).toEqual({
      email: "ana@example.test",
      password: "wheel-and-kiln",
      displayName: "Ana",
      memberAreaId: "studio-club",
      redirect: "/course/centering",
    });
    expect(api.to(`POST ${ACCOUNT}`)[1].headers["X-CSRF-Token"]).toBe("c1");
    expect(reload).not.toHaveBeenCalled();
  });

  it("a member of the site signs in and the page reloads; a wrong password is said", async () => {
    page(joinPage);
    const api = routeFetch({
      [`POST ${SESSION}`]: [
        { status: 401, body: { message: "Your email address or password is incorrect." } },
        { body: { xsrfToken: "x-signed-in" } },
      ],
    });
    mountAccess(document, reload);
    await until(() => !!document.querySelector("button.member-access-switch"), "the sign-in link");
    click("button.member-access-switch");
    await until(() => !!document.querySelector("form.member-access-sign-in"), "the sign-in form");
    fill({ email: "marin@harbor-lane.localhost", password: "nope-nope" });
    submit();
    await until(() => !!document.querySelector(".member-access-error"), "the refusal");
    expect($(".member-access-error").textContent).toBe("Your email address or password is incorrect.");
    fill({ password: "glaze-and-fire-1" });
    ($<HTMLInputElement>("input[name=rememberMe]")).checked = true;
    submit();
    await until(() => reload.mock.calls.length > 0, "the reload");
    expect(api.to(`POST ${SESSION}`)[1].body).toEqual({ email: "marin@harbor-lane.localhost", password: "glaze-and-fire-1", rememberMe: true });
    expect(sessionStorage.getItem("tessera-xsrf")).toBe("x-signed-in");
  });

  it("a signed-in member of another area joins with one click", async () => {
    signedIn();
    page(joinPage);
    const api = routeFetch({
      [`GET ${ACCOUNT}`]: { body: { xsrfToken: "x-acc" } },
      [`POST ${AREAS}`]: { body: { memberAreas: ["kiln-crew", "studio-club"] } },
    });
    mountAccess(document, reload);
    await until(() => !!document.querySelector("button.member-area-join"), "the join button");
    expect(document.querySelector("button.member-access-switch")).toBeNull();
    click("button.member-area-join");
    await until(() => reload.mock.calls.length > 0, "the reload");
    const join = api.to(`POST ${AREAS}`)[0];
    expect(join.body).toEqual({ memberAreaId: "studio-club" });
    expect(join.headers["X-XSRF-Token"]).toBe("x-acc");
  });
});

describe("a paid area's join page", () => {
  const paidPage = (kind: string) => `
  <div data-island="member-access" data-member-area="studio-club" data-redirect="/course" data-join-label="Join for $5.00 / month" data-plan-item="plan1" data-plan-kind="${kind}">
    <a class="member-area-join" href="#member-area-join">Join for $5.00 / month</a>
  </div>`;

  it("a signed-in member's click buys the plan: a one-time price goes in the cart, then checkout", async () => {
    signedIn();
    page(paidPage("one-time"));
    const to = vi.spyOn(navigate, "to").mockImplementation(() => undefined);
    const api = routeFetch({ "POST /api/commerce/shopping-cart/entries": { body: { shoppingCart: {}, newlyAdded: {} } } });
    mountAccess(document, reload);
    await until(() => !!document.querySelector("button.member-area-join"), "the join button");
    expect($("button.member-area-join").textContent).toBe("Join for $5.00 / month");
    click("button.member-area-join");
    await until(() => to.mock.calls.length > 0, "the way to checkout");
    expect(to).toHaveBeenCalledWith("/checkout");
    expect(api.to("POST /api/commerce/shopping-cart/entries")[0].body).toEqual({ itemId: "plan1", quantity: 1 });
    expect(api.to(`POST ${AREAS}`)).toHaveLength(0);
    expect(reload).not.toHaveBeenCalled();
    to.mockRestore();
  });

  it("a subscription gets its own cart and its checkout", async () => {
    signedIn();
    page(paidPage("subscription"));
    const to = vi.spyOn(navigate, "to").mockImplementation(() => undefined);
    const api = routeFetch({
      "POST /api/3/commerce/cart/subscription": { body: { cartToken: "t1", checkoutUrl: "/checkout/subscription?cartToken=t1" } },
    });
    mountAccess(document, reload);
    await until(() => !!document.querySelector("button.member-area-join"), "the join button");
    click("button.member-area-join");
    await until(() => to.mock.calls.length > 0, "the way to checkout");
    expect(to).toHaveBeenCalledWith("/checkout/subscription?cartToken=t1");
    expect(api.to("POST /api/3/commerce/cart/subscription")[0].body).toEqual({ itemId: "plan1", qty: 1 });
    to.mockRestore();
  });

  it("a visitor signs up first, buying nothing yet", async () => {
    page(paidPage("one-time"));
    const api = routeFetch({});
    mountAccess(document, reload);
    await until(() => !!document.querySelector("button.member-area-join"), "the join button");
    click("button.member-area-join");
    await until(() => !!document.querySelector("form.member-access-sign-up"), "the sign-up form");
    expect(api.calls.filter((c) => c.method === "POST")).toHaveLength(0);
  });
});

describe("the member bar", () => {
  it("shows only to a signed-in member, who signs out keeping the cart or not", async () => {
    page("");
    routeFetch({});
    mountBar(reload);
    expect(document.querySelector(".tessera-member-bar")).toBeNull();

    signedIn();
    sessionStorage.setItem("tessera-xsrf", "x1");
    const api = routeFetch({
      [`GET ${ACCOUNT}`]: { body: { displayName: "Marin Okafor", xsrfToken: "x1" } },
      [`DELETE ${SESSION}`]: { body: { signedOut: true } },
    });
    mountBar(reload);
    await until(() => $(".tessera-member-name")?.textContent === mm.SIGNED_IN_AS("Marin Okafor"), "the name");
    expect($<HTMLInputElement>(".tessera-member-keep input").checked).toBe(true);
    click(".tessera-member-sign-out");
    await until(() => reload.mock.calls.length > 0, "the reload");
    expect(api.to(`DELETE ${SESSION}`)[0].headers["X-XSRF-Token"]).toBe("x1");
    expect(api.calls.find((c) => c.method === "DELETE")).toBeTruthy();
    const url = (fetch as unknown as ReturnType<typeof vi.fn>).mock.calls.find((c) => c[1]?.method === "DELETE")![0];
    expect(url).toBe(`${SESSION}?cloneCart=true`);
  });
});
