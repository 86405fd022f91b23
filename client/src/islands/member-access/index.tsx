// A member area's join page (page type 106, `[data-island="member-access"]`): the join
// button, and what it leads to. A signed-in member joins the area at once and the page
// reloads as the content (105). A visitor gets a sign-up form (the server mails a link that
// confirms the address, joins the area and signs in), or a sign-in form for members, after
// which the page reloads: as the content, or as the join page again for a member of
// another area, who can then join.

import { useState } from "react";
import { render } from "react-dom";
import { failureText } from "../../shared/api";
import { joinArea, signIn, signUp, siteUserInfo } from "../../shared/member";
import { track } from "../../shared/analytics/tracker";
import * as mm from "../../shared/messages-members";
import { pageData } from "../../shared/page";

/** Visitor tracking on a join page (SPEC.md §2: paywall pages record visitor events):
 *  the page shown and the join button pressed, when analytics is on. The page view itself
 *  is not counted on this page type. */
export const PAYWALL_VIEW = "member_area_paywall_view";
export const JOIN_CLICK = "member_area_join_click";

function paywallEvent(name: string, area: string) {
  if (pageData().analytics) track(name, { member_area_id: area }).catch(() => undefined);
}

type View = "button" | "sign-up" | "sign-in" | "sent";

interface Props {
  area: string;
  redirect: string;
  joinLabel: string;
  /** Called when the page should show what the visitor may now see. */
  reload: () => void;
}

function field(form: HTMLFormElement, name: string): string {
  return String(new FormData(form).get(name) ?? "");
}

export function MemberAccess({ area, redirect, joinLabel, reload }: Props) {
  const [view, setView] = useState<View>("button");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, setSent] = useState<string>(mm.CHECK_EMAIL);
  const [problems, setProblems] = useState<Record<string, string>>({});

  const attempt = async (work: () => Promise<void>) => {
    setBusy(true);
    setProblem(null);
    setProblems({});
    try {
      await work();
    } catch (e) {
      const errors = (e as { errors?: Record<string, string> }).errors ?? {};
      if (Object.keys(errors).length > 0) setProblems(errors);
      else setProblem(failureText(e));
    } finally {
      setBusy(false);
    }
  };

  const join = () => {
    paywallEvent(JOIN_CLICK, area);
    if (siteUserInfo().authenticated) {
      void attempt(async () => {
        await joinArea(area);
        reload();
      });
    } else {
      setView("sign-up");
    }
  };

  const onSignUp = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const email = field(form, "email").trim();
    const password = field(form, "password");
    if (!email || !password) return setProblem(mm.BLANK);
    if (Array.from(password).length < 8) return setProblems({ password: mm.SHORT_PASSWORD });
    void attempt(async () => {
      const message = await signUp({ email, password, displayName: field(form, "displayName").trim(), memberAreaId: area, redirect });
      setSent(message ?? mm.CHECK_EMAIL);
      setView("sent");
    });
  };

  const onSignIn = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const email = field(form, "email").trim();
    const password = field(form, "password");
    if (!email || !password) return setProblem(mm.BLANK);
    void attempt(async () => {
      await signIn(email, password, new FormData(form).get("rememberMe") === "on");
      reload();
    });
  };

  const error = (name: string) =>
    problems[name] ? (
      <p class="member-access-field-error" id={`member-access-${name}-error`} role="alert">
        {problems[name]}
      </p>
    ) : null;
  const input = (name: string, label: string, type: "email" | "password" | "text", autocomplete: string, required = true) => (
    <p class="member-access-field">
      <label for={`member-access-${name}`}>{label}</label>
      <input
        id={`member-access-${name}`}
        name={name}
        type={type as "text"}
        autoComplete={autocomplete}
        required={required}
        aria-invalid={problems[name] ? "true" : undefined}
        aria-describedby={problems[name] ? `member-access-${name}-error` : undefined}
      />
      {error(name)}
    </p>
  );
  const message = problem ? (
    <p class="member-access-error tessera-error" role="alert">
      {problem}
    </p>
  ) : null;

  if (view === "sent") {
    return (
      <p class="member-access-sent" role="status">
        {sent}
      </p>
    );
  }
  if (view === "sign-up") {
    return (
      <form class="member-access-form member-access-sign-up" noValidate onSubmit={onSignUp}>
        {input("email", mm.EMAIL, "email", "email")}
        {input("password", mm.PASSWORD, "password", "new-password")}
        {input("displayName", mm.NAME, "text", "name", false)}
        {message}
        <button type="submit" disabled={busy}>
          {busy ? mm.SIGNING_UP : mm.SIGN_UP}
        </button>
        <button type="button" class="member-access-switch" onClick={() => setView("sign-in")}>
          {mm.HAVE_ACCOUNT}
        </button>
      </form>
    );
  }
  if (view === "sign-in") {
    return (
      <form class="member-access-form member-access-sign-in" noValidate onSubmit={onSignIn}>
        {input("email", mm.EMAIL, "email", "email")}
        {input("password", mm.PASSWORD, "password", "current-password")}
        <p class="member-access-field">
          <label>
            <input name="rememberMe" type="checkbox" /> {mm.REMEMBER_ME}
          </label>
        </p>
        {message}
        <button type="submit" disabled={busy}>
          {busy ? mm.SIGNING_IN : mm.SIGN_IN}
        </button>
        <button type="button" class="member-access-switch" onClick={() => setView("sign-up")}>
          {mm.NEED_ACCOUNT}
        </button>
      </form>
    );
  }
  return (
    <div class="member-access-start">
      {message}
      <button type="button" class="member-area-join" disabled={busy} onClick={join}>
        {busy ? mm.JOINING : joinLabel}
      </button>
      {siteUserInfo().authenticated ? null : (
        <button type="button" class="member-access-switch" onClick={() => setView("sign-in")}>
          {mm.HAVE_ACCOUNT}
        </button>
      )}
    </div>
  );
}

export function mount(root: ParentNode = document, reload: () => void = () => window.location.reload()) {
  for (const host of root.querySelectorAll<HTMLElement>('[data-island="member-access"]')) {
    if (host.dataset.tesseraMounted) continue;
    host.dataset.tesseraMounted = "1";
    const label = host.dataset.joinLabel || host.querySelector(".member-area-join")?.textContent?.trim() || "Join";
    paywallEvent(PAYWALL_VIEW, host.dataset.memberArea ?? "");
    host.textContent = "";
    render(
      <MemberAccess
        area={host.dataset.memberArea ?? ""}
        redirect={host.dataset.redirect || window.location.pathname}
        joinLabel={label}
        reload={reload}
      />,
      host,
    );
  }
}
