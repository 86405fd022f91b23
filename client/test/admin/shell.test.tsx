import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { heading, me, open, server } from "./helpers";

const SESSION = "/api/owner/session";
const NAV = ["Dashboard", "Pages", "Design", "Forms", "Orders", "Products", "Inventory", "Customers", "Analytics", "Templates", "Members", "Settings"];
const type = (label: string, value: string) => fireEvent.input(screen.getByLabelText(label), { target: { value } });
const navNames = () =>
  within(screen.getByRole("navigation", { name: "Main" }))
    .getAllByRole("link")
    .map((a) => a.textContent);

const dashboard = {
  periods: Object.fromEntries(
    ["today", "days7", "days30"].map((k) => [k, { visits: 0, pageViews: 0, orders: 0, revenue: { minor: 0, currency: "EUR", formatted: "€0.00" }, conversion: 0 }]),
  ),
  daily: [],
  todo: { toFulfil: 0, unpaid: 0, lowStock: 0, restockWaiting: 0 },
};

afterEach(() => vi.unstubAllGlobals());

describe("signing in", () => {
  it("asks who is signed in, and shows the sign-in form to nobody", async () => {
    const calls = server({ [`GET ${SESSION}`]: { status: 401, body: { message: "Sign in first." } } });
    open("/config");
    await heading("Sign in to Loam & Lantern");
    expect(calls[0]).toMatchObject({ method: "GET", path: SESSION });
    expect(screen.getByLabelText("Email")).toHaveProperty("type", "email");
    expect(screen.getByLabelText("Password")).toHaveProperty("type", "password");
    expect(screen.getByRole("button", { name: "Sign in" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "Forgot your password?" }).getAttribute("href")).toBe("/config/reset");
    expect(screen.queryByRole("navigation")).toBeNull();
    await waitFor(() => expect(document.title).toBe("Sign in · Loam & Lantern"));
  });

  it("shows the server's message when sign-in fails, and sends what was typed", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { status: 401 },
      [`POST ${SESSION}`]: { status: 401, body: { message: "Your email or password is incorrect." } },
    });
    open("/config");
    await heading(/Sign in/);
    type("Email", " owner@loam.example ");
    type("Password", "wrong horse");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Your email or password is incorrect.");
    expect(calls[1].body).toEqual({ email: "owner@loam.example", password: "wrong horse" });
    // No session yet, so no CSRF token to send.
    expect(calls[1].headers["X-CSRF-Token"]).toBeUndefined();
  });

  it("shows field errors beside their fields", async () => {
    server({
      [`GET ${SESSION}`]: { status: 401 },
      [`POST ${SESSION}`]: { status: 400, body: { errors: { email: "Enter an email address." } } },
    });
    open("/config");
    await heading(/Sign in/);
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await screen.findByText("Enter an email address.");
    const email = screen.getByLabelText("Email");
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(email.getAttribute("aria-describedby")!)!.textContent).toContain("Enter an email address.");
    expect(screen.getByRole("alert").textContent).toContain("Please correct the fields marked below.");
  });

  it("signs in and stays on the page asked for, with every section for an administrator", async () => {
    server({
      [`GET ${SESSION}`]: { status: 401 },
      [`POST ${SESSION}`]: { body: me() },
      "GET /api/owner/dashboard": { body: dashboard },
    });
    open("/config/customers");
    await heading(/Sign in/);
    type("Email", "owner@loam.example");
    type("Password", "demo-password");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    const h1 = await heading("Customers");
    // The form went away: the screen's heading has the focus.
    await waitFor(() => expect(document.activeElement).toBe(h1));
    expect(window.location.pathname).toBe("/config/customers");
    expect(navNames()).toEqual(NAV);
    expect(screen.getByRole("link", { name: "Customers" }).getAttribute("aria-current")).toBe("page");
    expect(screen.getByRole("banner").textContent).toContain("owner@loam.example");
  });
});

describe("the layout", () => {
  it("offers only the sections the role's areas open", async () => {
    const cases: [Parameters<typeof me>[0], string[]][] = [
      [{ orders: "write" }, ["Dashboard", "Orders", "Customers", "Members"]],
      [{ store: "read" }, ["Dashboard", "Products", "Inventory", "Settings"]],
      [{ analytics: "read" }, ["Dashboard", "Analytics"]],
      [{ access: "write" }, ["Dashboard", "Settings"]],
      [{ languages: "read" }, ["Dashboard", "Settings"]],
      [{ content: "write" }, ["Dashboard", "Pages", "Members"]],
      [{ design: "read" }, ["Dashboard", "Design", "Templates"]],
      [{ comments: "write" }, ["Dashboard", "Members"]],
      [{ forms: "read" }, ["Dashboard", "Forms"]],
    ];
    for (const [areas, names] of cases) {
      server({ [`GET ${SESSION}`]: { body: me(areas) }, "GET /api/owner/dashboard": { body: dashboard } });
      open("/config");
      await heading("Dashboard");
      expect(navNames(), JSON.stringify(areas)).toEqual(names);
    }
  });

  it("refuses a section the role does not open, even by its address", async () => {
    server({ [`GET ${SESSION}`]: { body: me({ analytics: "read" }) } });
    open("/config/orders");
    await heading("No access");
  });

  it("has a skip link, landmarks, and moves the focus to the new page's heading", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/dashboard": { body: dashboard } });
    open("/config");
    const h1 = await heading("Dashboard");
    // A first load leaves the focus where the browser put it.
    expect(document.activeElement).not.toBe(h1);
    const skip = screen.getByRole("link", { name: "Skip to content" });
    fireEvent.click(skip);
    expect(document.activeElement).toBe(screen.getByRole("main"));
    expect(screen.getByRole("banner")).toBeTruthy();
    fireEvent.click(screen.getByRole("link", { name: "Analytics" }));
    const next = await heading("Analytics");
    await waitFor(() => expect(document.activeElement).toBe(next));
    expect(window.location.pathname).toBe("/config/analytics");
    await waitFor(() => expect(document.title).toBe("Analytics · Loam & Lantern"));
  });

  it("signs out with the session's CSRF token, back to the sign-in form", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`DELETE ${SESSION}`]: { status: 204 },
      "GET /api/owner/dashboard": { body: dashboard },
    });
    open("/config");
    await heading("Dashboard");
    fireEvent.click(screen.getByRole("button", { name: "Sign out" }));
    await heading(/Sign in/);
    const del = calls.find((c) => c.method === "DELETE")!;
    expect(del.headers["X-CSRF-Token"]).toBe("csrf-123");
    // Reads carry no token.
    expect(calls.filter((c) => c.method === "GET").every((c) => !("X-CSRF-Token" in c.headers))).toBe(true);
    expect(screen.getByTestId("live").textContent).toBe("You have signed out.");
  });

  it("goes back to sign in when the session ends under a screen", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/dashboard": { status: 401, body: {} } });
    open("/config");
    await heading(/Sign in/);
    expect(screen.getByTestId("live").textContent).toBe("Your session has ended. Please sign in again.");
  });

  it("says so when the app cannot start, and tries again", async () => {
    let n = 0;
    server({ [`GET ${SESSION}`]: () => (n++ === 0 ? { status: 503, body: { message: "The store cannot be reached right now." } } : { status: 401 }) });
    open("/config");
    await heading("The owner's app could not start");
    expect(screen.getByRole("alert").textContent).toContain("The store cannot be reached right now.");
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await heading(/Sign in/);
  });
});

describe("passwords", () => {
  it("sends a reset link and says so whatever the address", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { status: 401 },
      "POST /api/owner/password-reset": { status: 202, body: { message: "If that address has an account, a link to reset its password is on its way." } },
    });
    open("/config");
    await heading(/Sign in/);
    fireEvent.click(screen.getByRole("link", { name: "Forgot your password?" }));
    await heading("Reset your password");
    type("Email", "someone@example.com");
    fireEvent.click(screen.getByRole("button", { name: "Send reset link" }));
    await screen.findByText("If that address has an account, a link to reset its password is on its way.");
    expect(calls.at(-1)).toMatchObject({ method: "POST", path: "/api/owner/password-reset", body: { email: "someone@example.com" } });
  });

  it("sets a password from the emailed link and signs in", async () => {
    let attempt = 0;
    const calls = server({
      [`GET ${SESSION}`]: { status: 401 },
      "POST /api/owner/password": () =>
        attempt++ === 0 ? { status: 400, body: { errors: { password: "Use at least 8 characters." } } } : { body: me() },
      "GET /api/owner/dashboard": { body: dashboard },
    });
    open("/config/set-password?token=tok-9");
    await heading("Choose a password");
    type("New password", "short");
    type("Repeat the password", "short");
    fireEvent.click(screen.getByRole("button", { name: "Save password and sign in" }));
    await screen.findByText("Use at least 8 characters.");
    expect(calls.at(-1)!.body).toEqual({ token: "tok-9", password: "short" });
    type("New password", "a long enough one");
    type("Repeat the password", "not the same");
    fireEvent.click(screen.getByRole("button", { name: "Save password and sign in" }));
    await screen.findByText("The passwords are not the same.");
    expect(calls.filter((c) => c.path === "/api/owner/password")).toHaveLength(1);
    type("Repeat the password", "a long enough one");
    fireEvent.click(screen.getByRole("button", { name: "Save password and sign in" }));
    await heading("Dashboard");
    expect(window.location.pathname).toBe("/config");
  });

  it("opens an emailed link while signed in as someone else", async () => {
    const other = { ...me(), account: { id: "a9", email: "kim@example.com", role: 4, roleName: "editor" } };
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      "POST /api/owner/password": { body: other },
      "GET /api/owner/dashboard": { body: dashboard },
    });
    open("/config/set-password?token=invite-1");
    await heading("Choose a password");
    type("New password", "a long enough one");
    type("Repeat the password", "a long enough one");
    fireEvent.click(screen.getByRole("button", { name: "Save password and sign in" }));
    await heading("Dashboard");
    expect(screen.getByRole("banner").textContent).toContain("kim@example.com");
    expect(calls.find((c) => c.path === "/api/owner/password")!.body).toEqual({ token: "invite-1", password: "a long enough one" });
  });

  it("takes the server's reset and invitation links (/reset?token=, /invite?token=) to the same screen", async () => {
    for (const [path, token] of [
      ["/config/reset?token=reset-1", "reset-1"],
      ["/config/invite?token=invite-2", "invite-2"],
    ]) {
      const calls = server({
        [`GET ${SESSION}`]: { status: 401 },
        "POST /api/owner/password": { body: me() },
        "GET /api/owner/dashboard": { body: dashboard },
      });
      open(path);
      await heading("Choose a password");
      type("New password", "a long enough one");
      type("Repeat the password", "a long enough one");
      fireEvent.click(screen.getByRole("button", { name: "Save password and sign in" }));
      await heading("Dashboard");
      expect(calls.find((c) => c.path === "/api/owner/password")!.body).toEqual({ token, password: "a long enough one" });
    }
  });

  it("says a link without its token is incomplete", async () => {
    server({ [`GET ${SESSION}`]: { status: 401 } });
    open("/config/set-password");
    await heading("Choose a password");
    expect(screen.getByRole("alert").textContent).toContain("This link is incomplete");
  });
});
