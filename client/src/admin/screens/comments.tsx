// Comments: moderation. The comments in one state (pending first, then approved, spam,
// rejected: links with their counts), the newest first, each with its author, the item it
// is on (a link to its page on the site) and the moves its state allows — Approve, Reject,
// Mark as spam, Delete (asked again) — for a role that changes comments; and the items
// visitors liked or commented on, with their counts. `GET /api/owner/comments?state&after`.
import { useId, useState } from "preact/hooks";
import { Link } from "wouter";
import { api, ApiError, withQuery } from "../api/client";
import type { CommentState, OwnerComment, OwnerComments } from "../api/types";
import { canWrite, useSession } from "../session";
import { Dialog } from "../ui/dialog";
import { count, dateTime } from "../ui/format";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { Pager, usePages } from "../ui/pager";
import { useGet, useQuery } from "../ui/query";
import { MembersNav } from "./members-nav";

const STATES: { state: CommentState; name: string; empty: string }[] = [
  { state: "pending", name: "Pending", empty: "No comments are waiting for you." },
  { state: "approved", name: "Approved", empty: "No approved comments." },
  { state: "spam", name: "Spam", empty: "No comments are marked as spam." },
  { state: "rejected", name: "Rejected", empty: "No rejected comments." },
];

/** What each move does, as the live region says it. */
const DONE: Record<string, string> = {
  approved: "Comment approved: it shows on its page.",
  rejected: "Comment rejected: it no longer shows.",
  spam: "Comment marked as spam.",
};

export default function Comments() {
  const { me } = useSession();
  const writable = canWrite(me, "comments");
  const [params, setParams] = useQuery();
  const asked = params.get("state") ?? "pending";
  const state = (STATES.some((s) => s.state === asked) ? asked : "pending") as CommentState;
  const after = params.get("after") ?? "";
  const { data, error, loading, reload } = useGet<OwnerComments>(withQuery("/api/owner/comments", { state, after }));
  const pages = usePages(after, (cursor) => setParams({ after: cursor }));
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<OwnerComment | null>(null);

  const move = async (c: OwnerComment, to: CommentState) => {
    setBusy(c.id);
    setActionError(null);
    try {
      await api("PATCH", `/api/owner/comments/${encodeURIComponent(c.id)}`, { state: to });
      announce(DONE[to]);
      reload();
    } catch (e) {
      setActionError((e as ApiError).message);
    } finally {
      setBusy(null);
    }
  };
  const current = STATES.find((s) => s.state === state)!;
  return (
    <>
      <Heading title="Comments">Comments</Heading>
      <MembersNav />
      <nav class="subnav" aria-label="Comment states">
        <ul>
          {STATES.map((s) => (
            <li key={s.state}>
              <Link
                href={withQuery("/members/comments", { state: s.state === "pending" ? "" : s.state })}
                aria-current={s.state === state ? "page" : undefined}
              >
                {s.name}
                {data ? ` (${count(data.counts[s.state])})` : ""}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <ErrorText message={error} />
      <ErrorText message={actionError} />
      {loading && <Loading what="comments" />}
      {data && data.comments.length === 0 && <Empty>{current.empty}</Empty>}
      {data && data.comments.length > 0 && (
        <>
          <ul class="comments" aria-label={`${current.name} comments`}>
            {data.comments.map((c) => (
              <CommentRow
                key={c.id}
                c={c}
                writable={writable}
                busy={busy === c.id}
                onMove={(to) => void move(c, to)}
                onDelete={() => setDeleting(c)}
              />
            ))}
          </ul>
          <Pager label="Pages of comments" next={data.next ?? null} onNext={pages.next} onPrevious={pages.previous} />
        </>
      )}
      {data && <Likes data={data} />}
      {deleting && (
        <DeleteComment
          c={deleting}
          onClose={() => setDeleting(null)}
          onDone={() => {
            setDeleting(null);
            reload();
          }}
        />
      )}
    </>
  );
}

/** Names a comment in its buttons: "comment by Marin Okafor on Spring Firing: “The Oat
 *  glaze…”" (its first words tell two comments by one person on one page apart). */
export function about(c: OwnerComment): string {
  const words = c.body.length > 40 ? `${c.body.slice(0, 40).trimEnd()}…` : c.body;
  return `comment by ${c.authorName}${c.itemTitle ? ` on ${c.itemTitle}` : ""}: “${words}”`;
}

function CommentRow({
  c,
  writable,
  busy,
  onMove,
  onDelete,
}: {
  c: OwnerComment;
  writable: boolean;
  busy: boolean;
  onMove: (to: CommentState) => void;
  onDelete: () => void;
}) {
  return (
    <li class="comment">
      <p class="meta">
        <strong>{c.authorName}</strong> · {dateTime(c.createdOn)} · on{" "}
        {c.itemUrl ? (
          <a href={c.itemUrl} target="_blank" rel="noopener">
            {c.itemTitle || c.itemUrl}
          </a>
        ) : (
          <span>an item the site no longer shows</span>
        )}
      </p>
      <p class="body">{c.body}</p>
      {writable && (
        <div class="actions">
          {c.state !== "approved" && (
            <button type="button" disabled={busy} aria-label={`Approve ${about(c)}`} onClick={() => onMove("approved")}>
              Approve
            </button>
          )}
          {c.state !== "rejected" && c.state !== "spam" && (
            <button type="button" disabled={busy} aria-label={`Reject ${about(c)}`} onClick={() => onMove("rejected")}>
              Reject
            </button>
          )}
          {c.state !== "spam" && (
            <button type="button" disabled={busy} aria-label={`Mark as spam the ${about(c)}`} onClick={() => onMove("spam")}>
              Mark as spam
            </button>
          )}
          <button type="button" disabled={busy} aria-label={`Delete ${about(c)}`} onClick={onDelete}>
            Delete
          </button>
        </div>
      )}
    </li>
  );
}

function DeleteComment({ c, onClose, onDone }: { c: OwnerComment; onClose: () => void; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async () => {
    setBusy(true);
    try {
      await api("DELETE", `/api/owner/comments/${encodeURIComponent(c.id)}`);
      announce("Comment deleted.");
      onDone();
    } catch (e) {
      setError((e as ApiError).message);
      setBusy(false);
    }
  };
  return (
    <Dialog title="Delete comment" onClose={onClose}>
      <p>
        Delete the {about(c)} for good? It cannot be brought back.
      </p>
      <blockquote>{c.body}</blockquote>
      <ErrorText message={error} />
      <div class="actions">
        <button type="button" onClick={go} disabled={busy}>
          Delete comment
        </button>
        <button type="button" onClick={onClose}>
          Keep it
        </button>
      </div>
    </Dialog>
  );
}

function Likes({ data }: { data: OwnerComments }) {
  const id = useId();
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Likes and comments by page</h2>
      {data.likes.length === 0 ? (
        <Empty>No likes or public comments yet.</Empty>
      ) : (
        <table class="numbers">
          <caption class="visually-hidden">Pages visitors liked or commented on, the most liked first</caption>
          <thead>
            <tr>
              <th scope="col">Page</th>
              <th scope="col">Likes</th>
              <th scope="col">Comments</th>
            </tr>
          </thead>
          <tbody>
            {data.likes.map((l) => (
              <tr key={l.itemId}>
                <th scope="row">
                  <a href={l.url} target="_blank" rel="noopener">
                    {l.title || l.url}
                  </a>
                </th>
                <td>{count(l.likeCount)}</td>
                <td>{count(l.commentCount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
