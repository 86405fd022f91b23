import { fireEvent, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const PATH = "/api/owner/site-access";
const DEFAULT = "This site is password protected. Enter the password to view it.";

const doc = (extra: Record<string, unknown> = {}) => ({
  passwordSet: false,
  title: "",
  message: "",
  defaultMessage: DEFAULT,
  ...extra,
});

/** The field labelled `label` (not the section its heading names). */
const fieldOf = (label: string | RegExp) => screen.getByLabelText(label, { selector: "input, textarea" }) as HTMLInputElement;
const type = (label: string | RegExp, value: string) => fireEvent.input(fieldOf(label), { target: { value } });

describe("Settings → Site access", () => {
  it("turns the site password on: the password is sent once with the CSRF token and never shown back", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${PATH}`]: { body: doc() },
      [`PATCH ${PATH}`]: (c: Sent) => ({ body: doc({ passwordSet: !!c.body.password }) }),
    });
    open("/config/settings/site-access");
    await heading("Site access");
    await screen.findByText("No password.");
    expect(calls.filter((c) => c.path === PATH).map((c) => c.method)).toEqual(["GET"]);
    const field = fieldOf("Site password");
    expect(field.type).toBe("password");
    type("Site password", "open sesame");
    fireEvent.click(screen.getByRole("button", { name: "Turn on site password" }));
    await screen.findByText("Password set.");
    const patch = calls.find((c) => c.method === "PATCH")!;
    expect(patch.body).toEqual({ password: "open sesame" });
    expect(patch.headers["X-CSRF-Token"]).toBe("csrf-123");
    expect(fieldOf("New site password").value).toBe("");
    expect(document.body.textContent).not.toContain("open sesame");
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("The site password is on."));
  });

  it("asks for a password before sending, and shows the server's refusal beside the field", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${PATH}`]: { body: doc() },
      [`PATCH ${PATH}`]: { status: 400, body: { errors: { password: "A password is at most 200 characters." } } },
    });
    open("/config/settings/site-access");
    await screen.findByText("No password.");
    fireEvent.click(screen.getByRole("button", { name: "Turn on site password" }));
    const field = fieldOf("Site password");
    await waitFor(() => expect(field.getAttribute("aria-invalid")).toBe("true"));
    expect(calls.some((c) => c.method === "PATCH")).toBe(false);
    const described = () => field.getAttribute("aria-describedby")!.split(" ").map((id) => document.getElementById(id)?.textContent).join(" ");
    expect(described()).toContain("Please enter a password, or turn the site password off.");
    type("Site password", "x".repeat(201));
    fireEvent.click(screen.getByRole("button", { name: "Turn on site password" }));
    await waitFor(() => expect(described()).toContain("A password is at most 200 characters."));
  });

  it("turns it off, and saves the lock screen's words with errors by field", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${PATH}`]: { body: doc({ passwordSet: true, title: "Soon" }) },
      [`PATCH ${PATH}`]: (c: Sent) =>
        c.body.password === null
          ? { body: doc({ title: "Soon" }) }
          : c.body.title.length > 100
            ? { status: 400, body: { errors: { title: "A title is at most 100 characters." } } }
            : { body: doc({ passwordSet: false, title: c.body.title, message: c.body.message }) },
    });
    open("/config/settings/site-access");
    await screen.findByText("Password set.");
    expect(fieldOf(/^Heading/).value).toBe("Soon");
    fireEvent.click(screen.getByRole("button", { name: "Turn off site password" }));
    await screen.findByText("No password.");
    expect(calls.find((c) => c.method === "PATCH")!.body).toEqual({ password: null });

    type(/^Heading/, "t".repeat(101));
    fireEvent.click(screen.getByRole("button", { name: "Save lock screen" }));
    const heading = fieldOf(/^Heading/);
    await waitFor(() => expect(heading.getAttribute("aria-invalid")).toBe("true"));
    expect(document.getElementById(heading.getAttribute("aria-describedby")!.split(" ").pop()!)?.textContent).toContain(
      "A title is at most 100 characters.",
    );
    type(/^Heading/, "Opening in May");
    type(/^Message/, "Come back soon.");
    fireEvent.click(screen.getByRole("button", { name: "Save lock screen" }));
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("The lock screen is saved."));
    expect(calls.filter((c) => c.method === "PATCH").pop()!.body).toEqual({ title: "Opening in May", message: "Come back soon." });
  });

  it("is offered to roles with the access area only", async () => {
    server({ [`GET ${SESSION}`]: { body: me({ content: "write", design: "write", languages: "write" }) } });
    open("/config/settings");
    await heading("Settings");
    expect(screen.queryByRole("link", { name: "Site access" })).toBeNull();
    open("/config/settings/site-access");
    await heading("No access");
  });
});
