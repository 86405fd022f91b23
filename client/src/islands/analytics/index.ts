// The page's analytics (the server has counted the view itself): on a counted page, the
// error reporter and the performance records; on a member area's page (105) the visitor
// tracking event of SPEC.md §2's lesson pages; and, on any page, what the site's plan
// status shows (trial, expired, parking page).

import { Reporter } from "../../shared/analytics/errors";
import { Recorder } from "../../shared/analytics/performance";
import { pageData } from "../../shared/page";

/** The event a member area's page records. */
export const MEMBER_AREA_VIEW = "member_area_view";

export function mount() {
  // Once per page: the page data's element carries the mark.
  const el = document.getElementById("tessera-data");
  if (!el || el.dataset.tesseraAnalytics) return;
  el.dataset.tesseraAnalytics = "1";
  const data = pageData();
  // The rarer parts load only where they are needed (the budget is shared with the islands).
  if (data.websiteStatus) void import("../../shared/analytics/status").then((m) => m.showStatus(data.websiteStatus));
  const a = data.analytics;
  if (!a?.track) return;
  new Reporter().install();
  const perf = new Recorder("site");
  perf.install();
  const loaded = () => {
    const nav = performance.getEntriesByType?.("navigation")[0] as PerformanceNavigationTiming | undefined;
    if (nav) perf.add("navigation", { domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd), loadMs: Math.round(nav.loadEventEnd) });
  };
  if (document.readyState === "complete") setTimeout(loaded, 0);
  else window.addEventListener("load", () => setTimeout(loaded, 0), { once: true });
  if (a.pageType === 105) {
    void import("../../shared/analytics/tracker").then((m) => m.track(MEMBER_AREA_VIEW, { page_type: 105 })).catch(() => undefined);
  }
}
