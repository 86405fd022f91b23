// An item's comments (the `comments` formatter's `.squarespace-comments[data-item-id]`):
// the approved comments, and for an open item (`data-comment-state` 1) a form for a
// signed-in member, or a sign-in form for anyone else, after which the page reloads.
// A posted comment shows at once when the site needs no approval; otherwise the server's
// "will show once the site owner approves it" is said and the list stays as it was.

import { useEffect, useState } from "react";
import { render } from "react-dom";
import { call } from "../../shared/api";
import { memberCall, siteUserInfo } from "../../shared/member";
import { ErrorLine, SignInForm, formValue, problemsOf } from "../../shared/member-forms";
import * as mm from "../../shared/messages-members";
import { pageData } from "../../shared/page";
import type { Schemas } from "../../shared/types";

export const PATH = "/api/comments";

export type Comment = Schemas["Comment"];
type Listing = Schemas["ItemComments"];

const prefix = "tessera-comments";

function when(ms: number): string {
  try {
    return new Intl.DateTimeFormat(pageData().locale || "en-US", { dateStyle: "medium" }).format(new Date(ms));
  } catch {
    return new Date(ms).toDateString();
  }
}

function Form({ itemId, onPosted }: { itemId: string; onPosted: (c: Comment | null, message: string) => void }) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const length = Array.from(text).length;
  const submit = async (e: Event) => {
    e.preventDefault();
    // The form's own value: what the visitor sees, even before a render caught up.
    const body = formValue(e.currentTarget as HTMLFormElement, "body").trim();
    if (!body) return setProblem(mm.EMPTY_COMMENT);
    if (Array.from(body).length > mm.MAX_COMMENT) return setProblem(mm.LONG_COMMENT);
    setBusy(true);
    setProblem(null);
    try {
      const r = await memberCall<Schemas["CommentPosted"]>("POST", PATH, { itemId, body });
      setText("");
      onPosted(r.comment.state === "approved" ? r.comment : null, r.message);
    } catch (err) {
      const p = problemsOf(err);
      setProblem(p.line ?? Object.values(p.fields)[0] ?? null);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class={`${prefix}-form`} noValidate onSubmit={submit}>
      <label for={`${prefix}-body`}>{mm.COMMENT}</label>
      <textarea
        id={`${prefix}-body`}
        name="body"
        rows={4}
        value={text}
        aria-invalid={problem ? "true" : undefined}
        onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
      />
      <p class={`${prefix}-length`} aria-live="polite">
        {length}/{mm.MAX_COMMENT}
      </p>
      <ErrorLine prefix={prefix} text={problem} />
      <button type="submit" disabled={busy}>
        {busy ? mm.POSTING : mm.POST_COMMENT}
      </button>
    </form>
  );
}

export function Comments({ itemId, state, count, reload }: { itemId: string; state: number; count: number; reload: () => void }) {
  const [listing, setListing] = useState<Listing | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [signingIn, setSigningIn] = useState(false);
  // Comments posted here and shown at once: kept apart from the listing, which may still
  // be on its way when the member posts.
  const [mine, setMine] = useState<Comment[]>([]);
  useEffect(() => {
    call<Listing>("GET", `${PATH}?itemId=${encodeURIComponent(itemId)}`)
      .then(setListing)
      .catch((e) => setProblem(problemsOf(e).line));
  }, [itemId]);

  const open = (listing?.commentState ?? state) === 1;
  const listed = listing?.comments ?? [];
  const added = mine.filter((c) => !listed.some((l) => l.id === c.id));
  const comments = [...listed, ...added];
  const shownCount = (listing ? listing.publicCommentCount : count) + added.length;
  const posted = (c: Comment | null, message: string) => {
    setSaid(message);
    if (c) setMine((m) => [...m, c]);
  };
  let writing;
  if (!open) writing = <p class={`${prefix}-closed`}>{mm.CLOSED}</p>;
  else if (siteUserInfo().authenticated) writing = <Form itemId={itemId} onPosted={posted} />;
  else if (signingIn) writing = <SignInForm prefix={prefix} onSignedIn={reload} />;
  else
    writing = (
      <button type="button" class={`${prefix}-sign-in-start`} onClick={() => setSigningIn(true)}>
        {mm.SIGN_IN_TO_COMMENT}
      </button>
    );
  return (
    <section class={prefix} aria-label={mm.COMMENTS}>
      <h2 class={`${prefix}-count`}>{mm.COMMENT_COUNT(shownCount)}</h2>
      {listing ? null : problem ? null : <p class={`${prefix}-loading`}>{mm.LOADING_COMMENTS}</p>}
      <ErrorLine prefix={prefix} text={problem} />
      {comments.length > 0 ? (
        <ol class={`${prefix}-list`}>
          {comments.map((c) => (
            <li key={c.id} class={`${prefix}-item`}>
              <p class={`${prefix}-meta`}>
                <span class={`${prefix}-author`}>{c.authorName}</span> · <time dateTime={new Date(c.createdOn).toISOString()}>{when(c.createdOn)}</time>
              </p>
              <p class={`${prefix}-body`}>{c.body}</p>
            </li>
          ))}
        </ol>
      ) : null}
      {said ? (
        <p class={`${prefix}-said`} role="status">
          {said}
        </p>
      ) : null}
      {writing}
    </section>
  );
}

export function mount(root: ParentNode = document, reload: () => void = () => window.location.reload()) {
  for (const host of root.querySelectorAll<HTMLElement>(".squarespace-comments[data-item-id]")) {
    if (host.dataset.tesseraMounted) continue;
    host.dataset.tesseraMounted = "1";
    const count = Number(host.dataset.publicCommentCount);
    render(
      <Comments
        itemId={host.dataset.itemId ?? ""}
        state={Number(host.dataset.commentState ?? 0)}
        count={Number.isFinite(count) ? count : 0}
        reload={reload}
      />,
      host,
    );
  }
}
