// An item's like button (the `like-button` formatter's `.sqs-simple-like[data-item-id]`):
// the count, and a press that likes the item once per visitor. The server keeps the
// count honest (a second like changes nothing); this device remembers it liked, so the
// button shows pressed on the next visit.

import { useState } from "react";
import { render } from "react-dom";
import { call, failureText } from "../../shared/api";
import * as mm from "../../shared/messages-members";
import type { Schemas } from "../../shared/types";

export const PATH = "/api/likes";
const KEY = (itemId: string) => `tessera-liked:${itemId}`;

function remembered(itemId: string): boolean {
  try {
    return localStorage.getItem(KEY(itemId)) === "1";
  } catch {
    return false;
  }
}

function remember(itemId: string) {
  try {
    localStorage.setItem(KEY(itemId), "1");
  } catch {
    // Storage refused: the button forgets on the next page, the server does not.
  }
}

export function Like({ itemId, count: initial }: { itemId: string; count: number }) {
  const [count, setCount] = useState(initial);
  const [liked, setLiked] = useState(() => remembered(itemId));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const press = async () => {
    if (liked || busy) return;
    setBusy(true);
    setProblem(null);
    try {
      const r = await call<Schemas["Liked"]>("POST", PATH, { itemId });
      setCount(r.likeCount);
      setLiked(true);
      remember(itemId);
    } catch (e) {
      setProblem(failureText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class="tessera-like" aria-pressed={liked ? "true" : "false"} disabled={busy} onClick={press}>
        <span class="like-icon" aria-hidden="true" />
        <span class="tessera-like-label">{mm.LIKE}</span>
        <span class="like-count">{mm.LIKES(count)}</span>
      </button>
      {problem ? (
        <span class="tessera-error" role="alert">
          {problem}
        </span>
      ) : null}
    </>
  );
}

export function mount(root: ParentNode = document) {
  for (const host of root.querySelectorAll<HTMLElement>(".sqs-simple-like[data-item-id]")) {
    if (host.dataset.tesseraMounted) continue;
    host.dataset.tesseraMounted = "1";
    const count = Number(host.dataset.likeCount);
    host.textContent = "";
    render(<Like itemId={host.dataset.itemId ?? ""} count={Number.isFinite(count) ? count : 0} />, host);
  }
}
