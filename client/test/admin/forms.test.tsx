import { act, fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OwnerFormView } from "../../src/admin/api/types";
import { answerText, moved, newField } from "../../src/admin/screens/forms";
import { choose, heading, me, open, server, type Sent } from "./helpers";

const SESSION = "/api/owner/session";
const LIST = "/api/owner/forms";
const ONE = "/api/owner/forms/f1";

const form = (): OwnerFormView => ({
  id: "f1",
  name: "Book a repair",
  fields: [
    { id: "name", type: "name", title: "Name", required: true },
    { id: "email", type: "email", title: "Email", required: true },
    { id: "bike", type: "select", title: "Bike", options: ["Road", "Gravel"], required: false },
  ],
  settings: { captcha: false, newsletter: false, recipients: ["bench@loam.example"], submissionMessage: "Thanks!", successRedirect: "", disclaimer: "" },
  submissions: 2,
});

const list = {
  forms: [
    { id: "f1", name: "Book a repair", submissions: 2, newsletter: false, fieldCount: 3 },
    { id: "f2", name: "Newsletter", submissions: 0, newsletter: true, fieldCount: 1 },
  ],
};

const submissions = {
  form: { id: "f1", name: "Book a repair", fields: [...form().fields, { id: "s", type: "section", title: "More" }] },
  submissions: [
    { id: "s1", formId: "f1", createdMs: 1_700_000_000_000, answers: { name: ["Ada", "Lovelace"], email: "ada@example.com", bike: "Road" }, page: { pagePath: "/contact" } },
    { id: "s2", formId: "f1", createdMs: 1_700_000_100_000, answers: { name: ["Bo", ""], email: "bo@example.com" }, page: { pagePath: "/contact" } },
  ],
};

const routes = (areas: Parameters<typeof me>[0], extra: Record<string, any> = {}) => ({
  [`GET ${SESSION}`]: { body: me(areas) },
  [`GET ${LIST}`]: { body: list },
  [`GET ${ONE}`]: { body: form() },
  [`GET ${ONE}/submissions`]: { body: submissions },
  ...extra,
});

const sent = (calls: Sent[], method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

afterEach(() => vi.unstubAllGlobals());

describe("the forms model", () => {
  it("moves within bounds, starts choice fields with options, reads answers as one line", () => {
    expect(moved([1, 2, 3], 0, 1)).toEqual([2, 1, 3]);
    expect(moved([1, 2, 3], 0, -1)).toEqual([1, 2, 3]);
    expect(moved([1, 2, 3], 2, 1)).toEqual([1, 2, 3]);
    expect(newField("radio")).toEqual({ id: expect.stringMatching(/^radio-[a-z0-9]+$/), type: "radio", title: "Radio buttons", options: ["Option 1", "Option 2"], required: false });
    expect(newField("section")).toEqual({ id: expect.stringMatching(/^section-/), type: "section", title: "Section heading" });
    expect(newField("text").id).not.toBe(newField("text").id);
    expect(answerText("name", ["Ada", " Lovelace"])).toBe("Ada Lovelace");
    expect(answerText("checkbox", ["Road", "Gravel"])).toBe("Road, Gravel");
    expect(answerText("text", "")).toBe("N/A");
    expect(answerText("likert", { Speed: "Agree" })).toBe("Speed: Agree");
  });
});

describe("the Forms screen", () => {
  it("lists the forms with their counts, and offers no builder to a role that only reads forms", async () => {
    server(routes({ forms: "read" }));
    open("/config/forms");
    await heading("Forms");
    expect(screen.getByRole("link", { name: "Forms" }).getAttribute("aria-current")).toBe("page");
    const rows = (await screen.findAllByRole("row")).slice(1);
    expect(within(rows[0]).getByRole("rowheader").textContent).toBe("Book a repair");
    expect(within(rows[0]).getByRole("link", { name: "2 submissions to Book a repair" }).getAttribute("href")).toBe("/config/forms/f1/submissions");
    expect(within(rows[1]).getByText("Yes")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Add form" })).toBeNull();
    expect(within(rows[0]).queryByRole("link", { name: "Book a repair" })).toBeNull();
  });

  it("has no Forms link for a role without the forms area", async () => {
    server(routes({ content: "write" }));
    open("/config/");
    await heading(/./);
    expect(screen.queryByRole("link", { name: "Forms" })).toBeNull();
  });

  it("says so when there are no forms, and adds one by name", async () => {
    const calls = server(
      routes({ forms: "write" }, {
        [`GET ${LIST}`]: { body: { forms: [] } },
        [`POST ${LIST}`]: (c: Sent) => (c.body.name ? { status: 201, body: { ...form(), name: c.body.name } } : { status: 400, body: { message: "x", errors: { name: "Please enter a name." } } }),
      }),
    );
    open("/config/forms");
    await heading("Forms");
    expect(await screen.findByText(/No forms yet/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Add form" }));
    const dialog = within(screen.getByRole("dialog", { name: "Add form" }));
    fireEvent.click(dialog.getByRole("button", { name: "Add form" }));
    await waitFor(() => expect(dialog.getByText("Please enter a name.")).toBeTruthy());
    const name = dialog.getByLabelText("Name");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(name.getAttribute("aria-describedby")!)!.textContent).toContain("Please enter a name.");
    fireEvent.input(name, { target: { value: "Contact" } });
    fireEvent.click(dialog.getByRole("button", { name: "Add form" }));
    // On to the new form's builder.
    await heading("Book a repair");
    expect(sent(calls, "POST", LIST)[1].body).toEqual({ name: "Contact", fields: [{ id: expect.stringMatching(/^email-/), type: "email", title: "Email", required: false }] });
  });

  it("builds a form: adds, moves by keyboard, edits and removes fields, and sends the settings", async () => {
    const calls = server(routes({ forms: "write" }, { [`PATCH ${ONE}`]: (c: Sent) => ({ body: { ...form(), ...c.body } }) }));
    open("/config/forms/f1");
    await heading("Book a repair");
    // Add a checkbox field.
    choose("Kind of field", "checkbox");
    fireEvent.click(screen.getByRole("button", { name: "Add field" }));
    expect(screen.getByTestId("live").textContent).toBe("Checkboxes field added at position 4.");
    const fields = () => screen.getAllByRole("group").filter((g) => /^\d+\. /.test(g.querySelector("legend")?.textContent ?? ""));
    expect(fields()).toHaveLength(4);
    const added = within(fields()[3]);
    fireEvent.input(added.getByLabelText("Label"), { target: { value: "Extras" } });
    fireEvent.input(added.getByLabelText("Options"), { target: { value: "Lights\nBell" } });
    fireEvent.click(added.getByLabelText("Required"));
    // Move it up with the keyboard (Enter on the focused button); the focus stays on it.
    const up = screen.getByRole("button", { name: "Move Extras up" });
    up.focus();
    await act(async () => {
      fireEvent.keyDown(up, { key: "Enter" });
      fireEvent.click(up);
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(screen.getByTestId("live").textContent).toBe("Extras moved to position 3.");
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Move Extras up");
    // Remove the name field; a second recipient; a redirect instead of the message.
    fireEvent.click(screen.getByRole("button", { name: "Remove Name" }));
    fireEvent.click(screen.getByRole("button", { name: "Add email address" }));
    fireEvent.input(screen.getByLabelText("Email address 2"), { target: { value: "shop@loam.example" } });
    fireEvent.click(screen.getByLabelText("Ask visitors to pass a captcha"));
    fireEvent.click(screen.getByLabelText("goes to another page"));
    fireEvent.input(screen.getByLabelText("Go to"), { target: { value: "/thanks" } });
    fireEvent.click(screen.getByRole("button", { name: "Save form" }));
    await waitFor(() => expect(sent(calls, "PATCH", ONE)).toHaveLength(1));
    const body = sent(calls, "PATCH", ONE)[0].body;
    expect(body.fields.map((f: any) => f.title)).toEqual(["Email", "Extras", "Bike"]);
    expect(body.fields[1]).toEqual({ id: expect.stringMatching(/^checkbox-/), type: "checkbox", title: "Extras", options: ["Lights", "Bell"], required: true });
    expect(body.settings).toEqual({ captcha: true, newsletter: false, recipients: ["bench@loam.example", "shop@loam.example"], submissionMessage: "Thanks!", successRedirect: "/thanks", disclaimer: "" });
    await waitFor(() => expect(screen.getByTestId("live").textContent).toBe("Form saved. The site shows it now."));
  });

  it("shows the server's errors beside their fields", async () => {
    server(
      routes({ forms: "write" }, {
        [`PATCH ${ONE}`]: {
          status: 400,
          body: {
            message: "One or more fields is invalid, please check your entries.",
            errors: {
              "fields[2].options[1]": "This option is already there.",
              "fields[0].title": "Please enter a label.",
              "settings.recipients[0]": "Emails must be formatted as name@example.com",
            },
          },
        },
      }),
    );
    open("/config/forms/f1");
    await heading("Book a repair");
    fireEvent.click(screen.getByRole("button", { name: "Save form" }));
    await waitFor(() => expect(screen.getByText("Emails must be formatted as name@example.com")).toBeTruthy());
    const described = (label: HTMLElement) => document.getElementById(label.getAttribute("aria-describedby")!.split(" ").pop()!)!.textContent;
    const recipient = screen.getByLabelText("Email address 1");
    expect(recipient.getAttribute("aria-invalid")).toBe("true");
    expect(described(recipient)).toContain("Emails must be formatted as name@example.com");
    const groups = screen.getAllByRole("group").filter((g) => /^\d+\. /.test(g.querySelector("legend")?.textContent ?? ""));
    expect(described(within(groups[0]).getByLabelText("Label"))).toContain("Please enter a label.");
    expect(described(within(groups[2]).getByLabelText("Options"))).toContain("Option 2: This option is already there.");
    expect(screen.getAllByRole("alert").some((a) => a.textContent!.includes("Please correct the fields marked below."))).toBe(true);
  });

  it("deletes a form after saying what goes with it", async () => {
    const calls = server(routes({ forms: "write" }, { [`DELETE ${ONE}`]: { body: { deleted: "f1" } } }));
    open("/config/forms/f1");
    await heading("Book a repair");
    fireEvent.click(screen.getByRole("button", { name: "Delete form" }));
    const dialog = within(screen.getByRole("dialog", { name: "Delete Book a repair?" }));
    expect(dialog.getByText(/Its 2 submissions are deleted with it/)).toBeTruthy();
    fireEvent.click(dialog.getByRole("button", { name: "Delete" }));
    await heading("Forms");
    expect(sent(calls, "DELETE", ONE)).toHaveLength(1);
  });

  it("shows the submissions newest first, one column per field, with the CSV export", async () => {
    const calls = server(routes({ forms: "read" }));
    open("/config/forms/f1/submissions");
    await heading("Submissions to Book a repair");
    const headers = screen.getAllByRole("columnheader").map((h) => h.textContent);
    expect(headers).toEqual(["Submitted", "Name", "Email", "Bike", "Page"]);
    const rows = screen.getAllByRole("row").slice(1);
    expect(within(rows[0]).getAllByRole("cell").map((c) => c.textContent)).toEqual(["Bo", "bo@example.com", "N/A", "/contact"]);
    expect(within(rows[1]).getAllByRole("cell").map((c) => c.textContent)).toEqual(["Ada Lovelace", "ada@example.com", "Road", "/contact"]);
    expect(screen.getByRole("link", { name: "Export submissions as CSV" }).getAttribute("href")).toBe("/api/owner/forms/f1/submissions.csv");
    expect(screen.queryByRole("link", { name: "Edit the form" })).toBeNull();
    expect(calls.filter((c) => c.path.startsWith("/api/owner/forms"))).toHaveLength(1);
  });

  it("lists the subscribers with their CSV export, and says when there are none", async () => {
    server(
      routes({ forms: "read" }, {
        "GET /api/owner/subscribers": { body: { subscribers: [{ email: "ada@example.com", source: "form:f2", createdMs: 1_700_000_000_000 }] } },
      }),
    );
    open("/config/forms/subscribers");
    await heading("Newsletter subscribers");
    expect((await screen.findByRole("rowheader")).textContent).toBe("ada@example.com");
    expect(screen.getByRole("link", { name: "Export subscribers as CSV" }).getAttribute("href")).toBe("/api/owner/subscribers.csv");
    server(routes({ forms: "read" }, { "GET /api/owner/subscribers": { body: { subscribers: [] } } }));
    open("/config/forms/subscribers");
    await heading("Newsletter subscribers");
    expect(await screen.findByText(/No subscribers yet/)).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Export subscribers as CSV" })).toBeNull();
  });
});
