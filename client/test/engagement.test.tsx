import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mount as mountComments } from "../src/islands/comments/index";
import { mount as mountLike } from "../src/islands/like/index";
import * as mm from "../src/shared/messages-members";
import { $, click, cookie, page, routeFetch, signedIn, signedOut, submit, until } from "./helpers";

const COMMENTS = "/api/comments";
const LIKES = "/api/likes";
const SESSION = "/api/site-users/account/session";
const ACCOUNT = "/api/site-users/account";

function type(text: string) {
  const area = $<HTMLTextAreaElement>("textarea[name=body]");
  area.value = text;
  area.dispatchEvent(new Event("input", { bubbles: true }));
}

const section = (state = 1, count = 1) =>
  `<div class="squarespace-comments" id="comments-i1" data-item-id="i1" data-public-comment-count="${count}" data-comment-state="${state}"></div>`;
const first = { id: "c1", itemId: "i1", authorName: "Ana", body: "Lovely glaze.", state: "approved", createdOn: Date.UTC(2026, 3, 2) };

let reload: ReturnType<typeof vi.fn>;
beforeEach(() => {
  cookie("crumb=c1; path=/");
  sessionStorage.clear();
  localStorage.clear();
  reload = vi.fn();
});
afterEach(() => {
  signedOut();
  vi.unstubAllGlobals();
});

describe("the comments island", () => {
  it("lists the approved comments with the formatter's count words", async () => {
    page(section(1, 1));
    const api = routeFetch({ [`GET ${COMMENTS}`]: { body: { itemId: "i1", commentState: 1, publicCommentCount: 1, comments: [first] } } });
    mountComments(document, reload);
    expect($(".tessera-comments-count").textContent).toBe("1 Comment");
    await until(() => !!document.querySelector(".tessera-comments-item"), "the list");
    expect($(".tessera-comments-author").textContent).toBe("Ana");
    expect($(".tessera-comments-body").textContent).toBe("Lovely glaze.");
    expect($("time").getAttribute("datetime")).toBe("2026-04-02T00:00:00.000Z");
    expect(api.calls[0].path).toBe(COMMENTS);
    expect((fetch as any).mock.calls[0][0]).toBe(`${COMMENTS}?itemId=i1`);
    expect([0, 1, 2, 17].map(mm.COMMENT_COUNT)).toEqual(["No Comments", "1 Comment", "2 Comments", "17 Comments"]);
  });

  it("a member posts: checked first, then sent with the XSRF token; waiting comments are not listed", async () => {
    signedIn();
    sessionStorage.setItem("tessera-xsrf", "x1");
    page(section(1, 0));
    const awaiting = "Thank you. Your comment will show once the site owner approves it.";
    const api = routeFetch({
      [`GET ${COMMENTS}`]: { body: { itemId: "i1", commentState: 1, publicCommentCount: 0, comments: [] } },
      [`POST ${COMMENTS}`]: [
        { status: 201, body: { comment: { ...first, id: "c2", state: "pending" }, message: awaiting } },
        { status: 201, body: { comment: { ...first, id: "c3", body: "Second." }, message: "Your comment is posted." } },
      ],
    });
    mountComments(document, reload);
    await until(() => !!document.querySelector("textarea[name=body]") && $(".tessera-comments-count").textContent === "No Comments", "the form");
    type("   ");
    submit();
    await until(() => $(".tessera-comments-error")?.textContent === mm.EMPTY_COMMENT, "the blank message");
    type("x".repeat(2001));
    await until(() => $(".tessera-comments-length").textContent === "2001/2000", "the length");
    submit();
    await until(() => $(".tessera-comments-error")?.textContent === mm.LONG_COMMENT, "the long message");
    expect(api.to(`POST ${COMMENTS}`)).toHaveLength(0);

    type("  First!  ");
    submit();
    await until(() => $(".tessera-comments-said")?.textContent === awaiting, "the waiting message");
    expect(document.querySelector(".tessera-comments-item")).toBeNull();
    expect($(".tessera-comments-count").textContent).toBe("No Comments");
    const post = api.to(`POST ${COMMENTS}`)[0];
    expect(post.body).toEqual({ itemId: "i1", body: "First!" });
    expect(post.headers["X-XSRF-Token"]).toBe("x1");
    expect(post.headers["X-CSRF-Token"]).toBe("c1");
    expect($<HTMLTextAreaElement>("textarea[name=body]").value).toBe("");

    type("Second.");
    submit();
    await until(() => $(".tessera-comments-said")?.textContent === "Your comment is posted.", "the posted message");
    expect($(".tessera-comments-body").textContent).toBe("Second.");
    expect($(".tessera-comments-count").textContent).toBe("1 Comment");
  });

  it("a comment posted before the list arrives shows once, with the right count", async () => {
    signedIn();
    sessionStorage.setItem("tessera-xsrf", "x1");
    page(section(1, 0));
    let release!: () => void;
    const later = new Promise<void>((r) => (release = r));
    const c3 = { ...first, id: "c3", body: "Early." };
    routeFetch({
      [`GET ${COMMENTS}`]: { wait: later, body: { itemId: "i1", commentState: 1, publicCommentCount: 1, comments: [c3] } },
      [`POST ${COMMENTS}`]: { status: 201, body: { comment: c3, message: "Your comment is posted." } },
    });
    mountComments(document, reload);
    await until(() => !!document.querySelector("textarea[name=body]"), "the form");
    type("Early.");
    submit();
    await until(() => $(".tessera-comments-body")?.textContent === "Early.", "the posted comment");
    expect($(".tessera-comments-count").textContent).toBe("1 Comment");
    release();
    await until(() => !document.querySelector(".tessera-comments-loading"), "the list");
    expect(document.querySelectorAll(".tessera-comments-item")).toHaveLength(1);
    expect($(".tessera-comments-count").textContent).toBe("1 Comment");
  });

  it("the server's refusal is said", async () => {
    signedIn();
    sessionStorage.setItem("tessera-xsrf", "x1");
    page(section(1, 0));
    routeFetch({
      [`GET ${COMMENTS}`]: { body: { itemId: "i1", commentState: 1, publicCommentCount: 0, comments: [] } },
      [`POST ${COMMENTS}`]: { status: 403, body: { message: mm.CLOSED } },
    });
    mountComments(document, reload);
    await until(() => !!document.querySelector("textarea[name=body]"), "the form");
    type("Hello");
    submit();
    await until(() => $(".tessera-comments-error")?.textContent === mm.CLOSED, "the refusal");
  });

  it("a closed item shows no form; a visitor signs in to comment and the page reloads", async () => {
    page(section(2, 0));
    routeFetch({ [`GET ${COMMENTS}`]: { body: { itemId: "i1", commentState: 2, publicCommentCount: 0, comments: [] } } });
    mountComments(document, reload);
    await until(() => !!document.querySelector(".tessera-comments-closed"), "the closed note");
    expect(document.querySelector("form")).toBeNull();

    page(section(1, 0));
    const api = routeFetch({
      [`GET ${COMMENTS}`]: { body: { itemId: "i1", commentState: 1, publicCommentCount: 0, comments: [] } },
      [`POST ${SESSION}`]: { body: { xsrfToken: "x-new" } },
      [`GET ${ACCOUNT}`]: { body: { xsrfToken: "x-new" } },
    });
    mountComments(document, reload);
    await until(() => !!document.querySelector(".tessera-comments-sign-in-start"), "the sign-in button");
    expect(document.querySelector("textarea")).toBeNull();
    click(".tessera-comments-sign-in-start");
    await until(() => !!document.querySelector("form.tessera-comments-sign-in"), "the sign-in form");
    submit();
    await until(() => $(".tessera-comments-error")?.textContent === mm.BLANK, "the blank message");
    $<HTMLInputElement>("#tessera-comments-email").value = "marin@harbor-lane.localhost";
    $<HTMLInputElement>("#tessera-comments-password").value = "glaze-and-fire-1";
    submit();
    await until(() => reload.mock.calls.length > 0, "the reload");
    expect(api.to(`POST ${SESSION}`)[0].body).toEqual({ email: "marin@harbor-lane.localhost", password: "glaze-and-fire-1", rememberMe: false });
  });
});

describe("the like button", () => {
  const like = (count: string) => `<span class="sqs-simple-like" data-item-id="i1" data-like-count="${count}"><span class="like-icon"></span><span class="like-count"></span></span>`;

  it("likes once, shows the server's count, and this device remembers", async () => {
    page(like("2"));
    const api = routeFetch({ [`POST ${LIKES}`]: { body: { liked: true, likeCount: 3 } } });
    mountLike();
    expect($(".like-count").textContent).toBe("2 likes");
    expect($("button.tessera-like").getAttribute("aria-pressed")).toBe("false");
    click("button.tessera-like");
    await until(() => $(".like-count").textContent === "3 likes", "the new count");
    expect($("button.tessera-like").getAttribute("aria-pressed")).toBe("true");
    click("button.tessera-like");
    await until(() => true);
    expect(api.to(`POST ${LIKES}`)).toHaveLength(1);
    expect(api.to(`POST ${LIKES}`)[0].body).toEqual({ itemId: "i1" });
    expect(api.to(`POST ${LIKES}`)[0].headers["X-CSRF-Token"]).toBe("c1");

    page(like("3"));
    mountLike();
    expect($("button.tessera-like").getAttribute("aria-pressed")).toBe("true");
    expect($(".like-count").textContent).toBe("3 likes");
  });

  it("a missing count reads 0 and a refusal is said", async () => {
    page(like(""));
    routeFetch({ [`POST ${LIKES}`]: { status: 403, body: { message: "Likes are turned off on this site." } } });
    mountLike();
    expect($(".like-count").textContent).toBe("0 likes");
    click("button.tessera-like");
    await until(() => $(".tessera-error")?.textContent === "Likes are turned off on this site.", "the refusal");
    expect($("button.tessera-like").getAttribute("aria-pressed")).toBe("false");
    expect(mm.LIKES(1)).toBe("1 like");
  });
});
