import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import { choose, heading, me, open, server } from "./helpers";

const SESSION = "/api/owner/session";
const COMMENTS = "/api/owner/comments";

afterEach(() => vi.unstubAllGlobals());

const comment = (id: string, state: string, over: Record<string, unknown> = {}) => ({
  id,
  itemId: "i1",
  itemTitle: "Spring Firing",
  itemUrl: "/journal/spring-firing",
  authorName: "Marin Okafor",
  body: `Comment ${id}`,
  state,
  createdOn: Date.UTC(2026, 10, 20),
  ...over,
});
const counts = { pending: 2, approved: 1, rejected: 0, spam: 3 };
const likes = [{ itemId: "i1", title: "Spring Firing", url: "/journal/spring-firing", likeCount: 7, commentCount: 1 }];

describe("comment moderation", () => {
  it("lists the pending comments with the counts of each state and the likes, and approves one", async () => {
    let approved = false;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${COMMENTS}`]: (c) => ({
        body: {
          counts: approved ? { ...counts, pending: 1, approved: 2 } : counts,
          comments: c.query.get("state") === "spam" ? [comment("s1", "spam")] : approved ? [comment("c2", "pending")] : [comment("c1", "pending"), comment("c2", "pending")],
          likes,
        },
      }),
      [`PATCH ${COMMENTS}/c1`]: () => {
        approved = true;
        return { body: { comment: comment("c1", "approved") } };
      },
    });
    open("/config/members/comments");
    await heading("Comments");
    const states = screen.getByRole("navigation", { name: "Comment states" });
    await waitFor(() =>
      expect(within(states).getAllByRole("link").map((l) => l.textContent)).toEqual(["Pending (2)", "Approved (1)", "Spam (3)", "Rejected (0)"]),
    );
    expect(within(states).getByRole("link", { name: "Pending (2)" }).getAttribute("aria-current")).toBe("page");
    const list = screen.getByRole("list", { name: "Pending comments" });
    expect(within(list).getAllByRole("listitem")).toHaveLength(2);
    expect(within(list).getAllByRole("link", { name: "Spring Firing" })[0].getAttribute("href")).toBe("/journal/spring-firing");
    const table = screen.getByRole("table");
    expect(within(table).getByRole("rowheader", { name: "Spring Firing" })).toBeTruthy();
    expect(within(table).getByText("7")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Approve comment by Marin Okafor on Spring Firing: “Comment c1”" }) as HTMLElement);
    await waitFor(() => expect(within(states).getByRole("link", { name: "Approved (2)" })).toBeTruthy());
    const patch = calls.find((c) => c.method === "PATCH")!;
    expect(patch.body).toEqual({ state: "approved" });
    expect(patch.headers["X-CSRF-Token"]).toBe("csrf-123");
    expect(screen.getByTestId("live").textContent).toBe("Comment approved: it shows on its page.");
    // Another state's list, by its link.
    fireEvent.click(within(states).getByRole("link", { name: "Spam (3)" }));
    await screen.findByRole("list", { name: "Spam comments" });
    expect(window.location.search).toBe("?state=spam");
    expect(screen.queryByRole("button", { name: /Mark as spam/ })).toBeNull();
    expect(screen.getByRole("button", { name: /^Approve/ })).toBeTruthy();
  });

  it("marks as spam, and deletes only after asking", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      [`GET ${COMMENTS}`]: { body: { counts, comments: [comment("c1", "pending")], likes: [] } },
      [`PATCH ${COMMENTS}/c1`]: { body: { comment: comment("c1", "spam") } },
      [`DELETE ${COMMENTS}/c1`]: { body: { deleted: "c1" } },
    });
    open("/config/members/comments");
    await heading("Comments");
    fireEvent.click(await screen.findByRole("button", { name: "Mark as spam the comment by Marin Okafor on Spring Firing: “Comment c1”" }));
    await waitFor(() => expect(calls.some((c) => c.method === "PATCH" && c.body.state === "spam")).toBe(true));
    fireEvent.click(screen.getByRole("button", { name: "Delete comment by Marin Okafor on Spring Firing: “Comment c1”" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete comment" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Keep it" }));
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Delete comment by Marin Okafor on Spring Firing: “Comment c1”" }));
    fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Delete comment" }));
    await waitFor(() => expect(calls.some((c) => c.method === "DELETE" && c.path === `${COMMENTS}/c1`)).toBe(true));
    expect(screen.getByText("No likes or public comments yet.")).toBeTruthy();
  });

  it("offers no moves to a role that only reads comments, and says when none wait", async () => {
    server({
      [`GET ${SESSION}`]: { body: me({ comments: "read" }) },
      [`GET ${COMMENTS}`]: (c) => ({ body: { counts, comments: c.query.get("state") === "approved" ? [comment("a1", "approved")] : [], likes } }),
    });
    open("/config/members/comments");
    await heading("Comments");
    await screen.findByText("No comments are waiting for you.");
    fireEvent.click(screen.getByRole("link", { name: "Approved (1)" }));
    await screen.findByRole("list", { name: "Approved comments" });
    expect(screen.queryByRole("button", { name: /Approve|Reject|spam|Delete/ })).toBeNull();
    // A role with comments alone has no sub-navigation to parts it cannot open.
    expect(screen.queryByRole("navigation", { name: "Members section" })).toBeNull();
  });
});

describe("members and member areas", () => {
  it("lists the members with their areas, searches, and links the section's parts", async () => {
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/members": (c) => ({
        body: {
          total: 2,
          members: c.query.get("q")
            ? []
            : [
                { id: "u2", email: "noor@example.test", displayName: "Noor", createdOn: Date.UTC(2026, 10, 21), confirmed: false, areas: [] },
                {
                  id: "u1",
                  email: "marin@harbor.example",
                  displayName: "Marin Okafor",
                  createdOn: Date.UTC(2026, 10, 1),
                  confirmed: true,
                  areas: [
                    { id: "studio-club", title: "Studio Club" },
                    { id: "kiln-crew", title: "Kiln Crew", order: { id: "o9", orderNumber: 1042 } },
                  ],
                },
              ],
        },
      }),
    });
    open("/config/members");
    await heading("Members");
    const nav = screen.getByRole("navigation", { name: "Members section" });
    expect(within(nav).getAllByRole("link").map((l) => l.textContent)).toEqual(["Members", "Comments", "Member areas"]);
    const table = await screen.findByRole("table");
    const marin = within(table).getByRole("rowheader", { name: "Marin Okafor" }).closest("tr")!;
    expect(within(marin).getByText(/Studio Club/)).toBeTruthy();
    expect(within(marin).getByRole("link", { name: "order #1042" }).getAttribute("href")).toBe("/config/orders/o9");
    expect(within(marin).getByText("Yes")).toBeTruthy();
    expect(within(table).getByText("Not yet (cannot sign in)")).toBeTruthy();
    expect(screen.getByText(/2 members in all/)).toBeTruthy();
    fireEvent.input(screen.getByLabelText("Search members"), { target: { value: "zed" } });
    fireEvent.click(screen.getByRole("button", { name: "Search" }));
    await screen.findByText("No members match.");
    expect(calls.at(-1)!.query.get("q")).toBe("zed");
  });

  it("sends a role without members to the comments, the part it opens", async () => {
    server({
      [`GET ${SESSION}`]: { body: me({ comments: "write" }) },
      [`GET ${COMMENTS}`]: { body: { counts, comments: [], likes: [] } },
    });
    open("/config/members");
    await heading("Comments");
    expect(window.location.pathname).toBe("/config/members/comments");
  });

  it("shows each member area with its pages, join button, price and members", async () => {
    server({
      [`GET ${SESSION}`]: { body: me({ content: "read", comments: "read" }) },
      "GET /api/owner/member-areas": {
        body: {
          areas: [
            {
              id: "studio-club",
              title: "Studio Club",
              description: "The wheel-throwing course.",
              joinButtonText: "Join the Studio Club",
              members: 1,
              pages: [{ collectionId: "c1", title: "Wheel Course", url: "/course" }],
            },
            { id: "kiln-crew", title: "Kiln Crew", description: "", joinButtonText: "Join", members: 0, pages: [] },
          ],
          planProducts: [],
        },
      },
    });
    open("/config/members/areas");
    await heading("Member areas");
    const club = await screen.findByRole("region", { name: "Studio Club" });
    expect(within(club).getByText("“Join the Studio Club”")).toBeTruthy();
    expect(within(club).getByText("Free to join")).toBeTruthy();
    expect(within(club).getByRole("link", { name: "Wheel Course" }).getAttribute("href")).toBe("/course");
    const crew = screen.getByRole("region", { name: "Kiln Crew" });
    expect(within(crew).getByText("No pages are in this area yet.")).toBeTruthy();
    const nav = screen.getByRole("navigation", { name: "Members section" });
    expect(within(nav).getAllByRole("link").map((l) => l.textContent)).toEqual(["Comments", "Member areas"]);
  });

  it("edits an area's words, showing a refused one beside its field", async () => {
    const area = { id: "kiln-crew", title: "Kiln Crew", description: "", joinButtonText: "Join", members: 0, pages: [] };
    let saved = false;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/member-areas": () => ({ body: { areas: [saved ? { ...area, joinButtonText: "Join the crew" } : area], planProducts: [] } }),
      "PATCH /api/owner/member-areas/kiln-crew": (c) => {
        if (c.body.joinButtonText.length > 50) return { status: 400, body: { message: "Please correct the fields.", errors: { joinButtonText: "A button label can have at most 50 characters." } } };
        saved = true;
        return { body: { area: { ...area, joinButtonText: c.body.joinButtonText } } };
      },
    });
    open("/config/members/areas");
    await heading("Member areas");
    fireEvent.click(await screen.findByRole("button", { name: "Edit Kiln Crew" }));
    const form = screen.getByRole("form", { name: "Edit Kiln Crew" });
    const label = within(form).getByLabelText(/Join button label/);
    fireEvent.input(label, { target: { value: "j".repeat(51) } });
    fireEvent.click(within(form).getByRole("button", { name: "Save area" }));
    await waitFor(() => expect(label.getAttribute("aria-invalid")).toBe("true"));
    const describedBy = label.getAttribute("aria-describedby")!.split(" ");
    expect(describedBy.map((id) => document.getElementById(id)?.textContent).join(" ")).toContain("A button label can have at most 50 characters.");
    fireEvent.input(label, { target: { value: "Join the crew" } });
    fireEvent.click(within(form).getByRole("button", { name: "Save area" }));
    await screen.findByText("“Join the crew”");
    expect(calls.filter((c) => c.method === "PATCH").at(-1)!.body).toEqual({ title: "Kiln Crew", description: "", joinButtonText: "Join the crew", planProductId: "" });
    expect(calls.filter((c) => c.method === "PATCH").at(-1)!.headers["X-CSRF-Token"]).toBe("csrf-123");
    expect(screen.queryByRole("form")).toBeNull();
  });

  it("offers no editing to a role that only reads content", async () => {
    server({
      [`GET ${SESSION}`]: { body: me({ content: "read" }) },
      "GET /api/owner/member-areas": { body: { areas: [{ id: "kiln-crew", title: "Kiln Crew", description: "", joinButtonText: "Join", members: 0, pages: [] }], planProducts: [] } },
    });
    open("/config/members/areas");
    await screen.findByRole("region", { name: "Kiln Crew" });
    expect(screen.queryByRole("button", { name: /Edit/ })).toBeNull();
  });

  it("says when a site has no member areas", async () => {
    server({ [`GET ${SESSION}`]: { body: me() }, "GET /api/owner/member-areas": { body: { areas: [], planProducts: [] } } });
    open("/config/members/areas");
    await heading("Member areas");
    await screen.findByText(/This site has no member areas/);
  });

  const money = (minor: number) => ({ minor, currency: "USD", formatted: `$${(minor / 100).toFixed(2)}` });
  const plans = [
    { productId: "p-pass", title: "Crew pass", kind: "digital", price: money(1200), priceText: "$12.00" },
    { productId: "p-month", title: "Crew monthly", kind: "subscription", price: money(500), period: "month", priceText: "$5.00 / month" },
    { productId: "p-club", title: "Club plan", kind: "service", price: money(900), priceText: "$9.00", usedBy: "studio-club" },
  ];

  it("makes an area paid with a product from the picker, showing its price; a refused product is said beside the picker", async () => {
    const area = { id: "kiln-crew", title: "Kiln Crew", description: "", joinButtonText: "Join", members: 0, pages: [] };
    let saved: string | null = null;
    const calls = server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/member-areas": () => ({
        body: { areas: [saved ? { ...area, planProductId: saved, priceText: "$5.00 / month" } : area], planProducts: plans },
      }),
      "PATCH /api/owner/member-areas/kiln-crew": (c) => {
        if (c.body.planProductId === "p-pass") return { status: 400, body: { message: "Please correct the fields.", errors: { planProductId: "Choose a product with one variant: the join button sells one price." } } };
        saved = c.body.planProductId;
        return { body: { area: { ...area, planProductId: saved } } };
      },
    });
    open("/config/members/areas");
    const crew = await screen.findByRole("region", { name: "Kiln Crew" });
    expect(within(crew).getByText("Free to join")).toBeTruthy();
    fireEvent.click(within(crew).getByRole("button", { name: "Edit Kiln Crew" }));
    const form = screen.getByRole("form", { name: "Edit Kiln Crew" });
    expect((within(form).getByRole("radio", { name: "Free" }) as HTMLInputElement).checked).toBe(true);
    expect(within(form).queryByLabelText("Product sold to join")).toBeNull();
    fireEvent.click(within(form).getByRole("radio", { name: "Paid" }));
    const picker = within(form).getByLabelText("Product sold to join") as HTMLSelectElement;
    // Another area's product is not offered; each shows its kind and price.
    expect(Array.from(picker.options).map((o) => o.textContent)).toEqual([
      "Choose a product",
      "Crew pass (digital, one-time): $12.00",
      "Crew monthly (subscription): $5.00 / month",
    ]);
    // Paid without a product: said beside the picker, nothing sent.
    fireEvent.click(within(form).getByRole("button", { name: "Save area" }));
    await waitFor(() => expect(picker.getAttribute("aria-invalid")).toBe("true"));
    expect(document.getElementById(picker.getAttribute("aria-describedby")!.split(" ")[1])!.textContent).toContain("Choose the product that is its price.");
    expect(calls.filter((c) => c.method === "PATCH")).toHaveLength(0);
    choose("Product sold to join", "p-pass");
    fireEvent.click(within(form).getByRole("button", { name: "Save area" }));
    await waitFor(() => expect(document.getElementById(picker.getAttribute("aria-describedby")!.split(" ")[1])?.textContent).toContain("Choose a product with one variant"));
    choose("Product sold to join", "p-month");
    fireEvent.click(within(form).getByRole("button", { name: "Save area" }));
    await screen.findByText("$5.00 / month (Crew monthly)");
    expect(calls.filter((c) => c.method === "PATCH").at(-1)!.body.planProductId).toBe("p-month");
  }, 20000);

  it("says to create a product when the store has none to sell access with", async () => {
    server({
      [`GET ${SESSION}`]: { body: me() },
      "GET /api/owner/member-areas": {
        body: { areas: [{ id: "kiln-crew", title: "Kiln Crew", description: "", joinButtonText: "Join", members: 0, pages: [] }], planProducts: [] },
      },
    });
    open("/config/members/areas");
    fireEvent.click(await screen.findByRole("button", { name: "Edit Kiln Crew" }));
    fireEvent.click(screen.getByRole("radio", { name: "Paid" }));
    expect(screen.getByText(/Create a digital, service or subscription product to sell access/)).toBeTruthy();
    const form = screen.getByRole("form", { name: "Edit Kiln Crew" });
    expect(within(form).getByRole("link", { name: "Products" }).getAttribute("href")).toBe("/config/products");
  });
});
