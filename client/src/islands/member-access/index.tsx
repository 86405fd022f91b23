// A member area's join page (page type 106, `[data-island="member-access"]`): the join
// button, and what it leads to. A signed-in member joins the area at once and the page
// reloads as the content (105). A visitor gets a sign-up form (the server mails a link that
// confirms the address, joins the area and signs in), or a sign-in form for members, after
// which the page reloads: as the content, or as the join page again for a member of
// another area, who can then join.
//
// A paid area's join page (`data-plan-item`, `data-plan-kind`) sells its plan product: a
// signed-in member's click adds it to their cart (a one-time price) or makes its own
// subscription cart, and goes on to checkout, whose paid order opens the area. A visitor
// signs up or in first (confirming a sign-up never opens a paid area: the link lands them
// back here, signed in, to buy it).

import { useState } from "react";
import { render } from "react-dom";
import { call } from "../../shared/api";
import { joinArea, signUp, siteUserInfo } from "../../shared/member";
import { ErrorLine, Field, SignInForm, formValue, problemsOf } from "../../shared/member-forms";
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

/** A paid area's plan: the product its join button sells, and how it is bought. */
export interface Plan {
  item: string;
  kind: "one-time" | "subscription";
}

/** Where buying a plan goes on to (replaced in tests). */
export const navigate = { to: (url: string) => window.location.assign(url) };

/** Buys a plan: a subscription gets a cart of its own and its checkout; a one-time price
 *  goes in the member's cart, and on to checkout. */
export async function buyPlan(plan: Plan): Promise<void> {
  if (plan.kind === "subscription") {
    const r = await call<{ cartToken: string; checkoutUrl?: string }>("POST", "/api/3/commerce/cart/subscription", { itemId: plan.item, qty: 1 });
    navigate.to(r.checkoutUrl ?? `/checkout/subscription?cartToken=${encodeURIComponent(r.cartToken)}`);
    return;
  }
  await call("POST", "/api/commerce/shopping-cart/entries", { itemId: plan.item, quantity: 1 });
  navigate.to("/checkout");
}

interface Props {
  area: string;
  redirect: string;
  joinLabel: string;
  /** A paid area's plan; absent for a free area. */
  plan?: Plan;
  /** Called when the page should show what the visitor may now see. */
  reload: () => void;
}

export function MemberAccess({ area, redirect, joinLabel, plan, reload }: Props) {
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
      const p = problemsOf(e);
      setProblems(p.fields);
      setProblem(p.line);
    } finally {
      setBusy(false);
    }
  };

  const join = () => {
    paywallEvent(JOIN_CLICK, area);
    if (siteUserInfo().authenticated) {
      void attempt(async () => {
        if (plan) return buyPlan(plan);
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
    const email = formValue(form, "email").trim();
    const password = formValue(form, "password");
    if (!email || !password) return setProblem(mm.BLANK);
    if (Array.from(password).length < 8) return setProblems({ password: mm.SHORT_PASSWORD });
    void attempt(async () => {
      const message = await signUp({ email, password, displayName: formValue(form, "displayName").trim(), memberAreaId: area, redirect });
      setSent(message ?? mm.CHECK_EMAIL);
      setView("sent");
    });
  };

  const prefix = "member-access";
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
        <Field prefix={prefix} name="email" label={mm.EMAIL} type="email" autocomplete="email" problem={problems.email} />
        <Field prefix={prefix} name="password" label={mm.PASSWORD} type="password" autocomplete="new-password" problem={problems.password} />
        <Field prefix={prefix} name="displayName" label={mm.NAME} type="text" autocomplete="name" required={false} problem={problems.displayName} />
        <ErrorLine prefix={prefix} text={problem} />
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
    return <SignInForm prefix={prefix} onSignedIn={reload} switchLabel={mm.NEED_ACCOUNT} onSwitch={() => setView("sign-up")} />;
  }
  return (
    <div class="member-access-start">
      <ErrorLine prefix={prefix} text={problem} />
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
    const item = host.dataset.planItem;
    const plan: Plan | undefined = item ? { item, kind: host.dataset.planKind === "subscription" ? "subscription" : "one-time" } : undefined;
    paywallEvent(PAYWALL_VIEW, host.dataset.memberArea ?? "");
    host.textContent = "";
    render(
      <MemberAccess
        area={host.dataset.memberArea ?? ""}
        redirect={host.dataset.redirect || window.location.pathname}
        joinLabel={label}
        plan={plan}
        reload={reload}
      />,
      host,
    );
  }
}
