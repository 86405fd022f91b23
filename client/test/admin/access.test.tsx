import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Account, ApiToken } from "../../src/admin/api/types";
import { choose, heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const account = (id: string, email: string, role: number, extra: Partial<Account> = {}): Account => ({
  id,
  email,
  role,
  roleName: "",
  createdMs: Date.UTC(2026, 10, 1),
  hasPassword: true,
  ...extra,
});
const token = (id: string, name: string): ApiToken => ({ id, name, role: 10, roleName: "viewer", createdMs: Date.UTC(2026, 10, 1), revokedMs: null });

afterEach(() => vi.unstubAllGlobals());

describe("settings", () => {
  it("offers Store and Access by area", async () => {
    server({ [`GET ${SESSION}`]: { body: me({ store: "write" }) } });
    open("/config/settings");
    await heading("Settings");
    expect(screen.getByRole("link", { name: "Store settings" }).getAttribute("href")).toBe("/config/settings/store");
    expect(screen.queryByRole("link", { name: "Access" })).toBeNull();
    server({ [`GET ${SESSION}`]: { body: me({ store: "write" }) } });
    open("/config/settings/access");
    await heading("No access");
  });
});

describe("access", () => {
  const routes = (accounts: Account[], tokens: ApiToken[], extra: Record<string, any> = {}) => ({
    [`GET ${SESSION}`]: { body: me() },
    "GET /api/owner/accounts": { body: { accounts, invites: [{ id: "i1", email: "new@example.com", role: 8, roleName: "store-manager", expiresMs: Date.UTC(2026, 11, 5) }] } },
    "GET /api/owner/tokens": { body: { tokens } },
    ...extra,
  });

  it("lists owners, changes a role, and removes one after confirming", async () => {
    const calls = server(
      routes([account("a1", "owner@loam.example", 1), account("a2", "sam@example.com", 4, { hasPassword: false })], [], {
        "PATCH /api/owner/accounts/a2": { body: {} },
        "DELETE /api/owner/accounts/a2": { status: 409, body: { message: "A site needs at least one administrator." } },
      }),
    );
    open("/config/settings/access");
    await heading("Access");
    const mine = within((await screen.findByRole("rowheader", { name: /owner@loam.example/ })).closest("tr")!);
    // One's own role is not a control (no locking oneself out).
    expect(mine.queryByRole("combobox")).toBeNull();
    expect(mine.getByText("Administrator")).toBeTruthy();
    expect(screen.getByText("Has not set a password yet")).toBeTruthy();
    expect(screen.getByText(/new@example.com as Store manager/)).toBeTruthy();

    choose("Role of sam@example.com", "8");
    await waitFor(() => expect(calls.some((c) => c.method === "PATCH")).toBe(true));
    const patch = calls.find((c) => c.method === "PATCH")!;
    expect(patch.body).toEqual({ role: 8 });
    expect(patch.headers["X-CSRF-Token"]).toBe("csrf-123");
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("sam@example.com is now Store manager."));

    fireEvent.click(screen.getByRole("button", { name: "Remove sam@example.com" }));
    const dialog = await screen.findByRole("dialog", { name: "Remove sam@example.com?" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Remove" }));
    expect((await within(dialog).findByRole("alert")).textContent).toContain("A site needs at least one administrator.");
  });

  it("sends an invite, with errors by field", async () => {
    let n = 0;
    const calls = server(
      routes([account("a1", "owner@loam.example", 1)], [], {
        "POST /api/owner/invites": () => (n++ === 0 ? { status: 400, body: { errors: { email: "Enter an email address." } } } : { status: 201, body: {} }),
      }),
    );
    open("/config/settings/access");
    await screen.findByRole("heading", { name: "Invite someone" });
    fireEvent.click(screen.getByRole("button", { name: "Send invite" }));
    await screen.findByText("Enter an email address.");
    fireEvent.input(screen.getByLabelText("Email"), { target: { value: "kim@example.com" } });
    choose("Role", "4");
    fireEvent.click(screen.getByRole("button", { name: "Send invite" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Invite sent to kim@example.com."));
    expect(calls.filter((c: Sent) => c.path === "/api/owner/invites").at(-1)!.body).toEqual({ email: "kim@example.com", role: 4 });
  });

  it("creates a token and shows its secret once, and revokes one", async () => {
    const calls = server(
      routes([account("a1", "owner@loam.example", 1)], [token("t1", "stock sync")], {
        "POST /api/owner/tokens": { status: 201, body: { token: token("t2", "reports"), secret: "tsk_secret_123" } },
        "DELETE /api/owner/tokens/t1": { status: 204 },
      }),
    );
    open("/config/settings/access");
    await screen.findByRole("rowheader", { name: "stock sync" });
    fireEvent.input(screen.getByLabelText("Token name"), { target: { value: "reports" } });
    fireEvent.click(screen.getByRole("button", { name: "Create token" }));
    const shown = await screen.findByRole("dialog", { name: "Token reports created" });
    expect(within(shown).getByText("tsk_secret_123")).toBeTruthy();
    expect(calls.find((c) => c.path === "/api/owner/tokens" && c.method === "POST")!.body).toEqual({ name: "reports", role: 10 });
    fireEvent.click(within(shown).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByText("tsk_secret_123")).toBeNull());

    fireEvent.click(screen.getByRole("button", { name: "Revoke stock sync" }));
    const dialog = await screen.findByRole("dialog", { name: "Revoke stock sync?" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Revoke" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Token revoked."));
    expect(calls.some((c) => c.method === "DELETE" && c.path === "/api/owner/tokens/t1")).toBe(true);
  });

  it("only shows, to a role that reads access", async () => {
    server({ ...routes([account("a1", "owner@loam.example", 1), account("a2", "sam@example.com", 4)], [token("t1", "stock sync")]), [`GET ${SESSION}`]: { body: me({ access: "read" }) } });
    open("/config/settings/access");
    await screen.findByRole("rowheader", { name: "stock sync" });
    expect(screen.queryByRole("combobox")).toBeNull();
    expect(screen.queryByRole("button", { name: /Remove|Revoke|Create token|Send invite/ })).toBeNull();
  });
});
