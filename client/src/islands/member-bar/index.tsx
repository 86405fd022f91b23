// The signed-in member's bar (any page, while `SiteUserInfo` says signed in): who they are
// and a sign-out button. Signing out keeps a copy of the cart on this device when the
// box is ticked (`cloneCart`), and retries once on a crumb failure; then the page reloads
// as a visitor sees it.

import { useState } from "react";
import { render } from "react-dom";
import { call, failureText } from "../../shared/api";
import { ACCOUNT, signOut, siteUserInfo } from "../../shared/member";
import * as mm from "../../shared/messages-members";
import type { Schemas } from "../../shared/types";

export function MemberBar({ name, reload }: { name: string | null; reload: () => void }) {
  const [busy, setBusy] = useState(false);
  const [keep, setKeep] = useState(true);
  const [problem, setProblem] = useState<string | null>(null);
  const out = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await signOut(keep);
      reload();
    } catch (e) {
      setProblem(failureText(e));
      setBusy(false);
    }
  };
  return (
    <div class="tessera-member-bar" role="region" aria-label={mm.SIGN_OUT}>
      {name ? <span class="tessera-member-name">{mm.SIGNED_IN_AS(name)}</span> : null}
      <label class="tessera-member-keep">
        <input type="checkbox" checked={keep} onClick={(e) => setKeep((e.currentTarget as HTMLInputElement).checked)} /> {mm.KEEP_CART}
      </label>
      <button type="button" class="tessera-member-sign-out" disabled={busy} onClick={out}>
        {busy ? mm.SIGNING_OUT : mm.SIGN_OUT}
      </button>
      {problem ? (
        <p class="tessera-error" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  );
}

export function mount(reload: () => void = () => window.location.reload()) {
  if (!siteUserInfo().authenticated || document.querySelector(".tessera-member-bar-host")) return;
  const host = document.createElement("div");
  host.className = "tessera-member-bar-host";
  document.body.appendChild(host);
  const show = (name: string | null) => render(<MemberBar name={name} reload={reload} />, host);
  show(null);
  // The name is a nicety: the bar works without it.
  call<Schemas["MemberAccount"]>("GET", ACCOUNT)
    .then((a) => show(a.displayName || a.email || null))
    .catch(() => undefined);
}
