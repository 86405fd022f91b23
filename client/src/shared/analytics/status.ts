// What a site's plan status shows (SPEC.md §3 "Enumerations", website status; §2 the
// upgrade destinations): a trial site a banner with the trial upgrade, an expired site a
// notice with the plan upgrade, a parking-page site (12) its "coming soon" page instead of
// its content. Every other status shows nothing. The server sends the trial and expired
// statuses only on its owner's pages (api/src/pages/islands.rs): visitors never see them.

export const STATUS = {
  EXPIRED: 1,
  PAST_DUE: 2,
  TRIAL: 3,
  BETA: 4,
  REMOVED: 5,
  INTERNAL: 6,
  COMPED: 7,
  PAID: 8,
  LINKED: 11,
  PARKING_PAGE: 12,
  RESOLD: 13,
  RESOLD_GRACE: 14,
  ENTERPRISE: 15,
} as const;

export const TRIAL_UPGRADE = "/settings/billing/upgrade";
export const PLAN_UPGRADE = "/settings/billing/subscriptions/website";

export const TRIAL_TEXT = "This site is on a free trial.";
export const EXPIRED_TEXT = "This site's plan has expired.";
export const PARKING_TEXT = "Coming soon.";
export const UPGRADE = "Upgrade";

export interface Effect {
  kind: "trial" | "expired" | "parking";
  text: string;
  /** Where the owner upgrades; none on a parking page. */
  link: string | null;
}

export function statusEffect(status: number | null | undefined): Effect | null {
  switch (status) {
    case STATUS.TRIAL:
      return { kind: "trial", text: TRIAL_TEXT, link: TRIAL_UPGRADE };
    case STATUS.EXPIRED:
      return { kind: "expired", text: EXPIRED_TEXT, link: PLAN_UPGRADE };
    case STATUS.PARKING_PAGE:
      return { kind: "parking", text: PARKING_TEXT, link: null };
    default:
      return null;
  }
}

/** Shows the effect on the page: a banner at the top, or the parking page in place of the
 *  content. Returns the element added, if any. */
export function showStatus(status: number | null | undefined, doc: Document = document): HTMLElement | null {
  const effect = statusEffect(status);
  if (!effect) return null;
  const box = doc.createElement("div");
  box.className = `tessera-site-status tessera-site-status-${effect.kind}`;
  box.setAttribute("role", effect.kind === "parking" ? "main" : "status");
  const p = doc.createElement("p");
  p.textContent = effect.text;
  box.append(p);
  if (effect.link) {
    const a = doc.createElement("a");
    a.href = effect.link;
    a.textContent = UPGRADE;
    box.append(a);
  }
  if (effect.kind === "parking") doc.body.replaceChildren(box);
  else doc.body.prepend(box);
  return box;
}
