// The error reporter (SPEC.md §9 "Tracking"): the page's uncaught errors and rejections go
// to `RecordJavascriptErrors` with the crumb header, silently. At most 20 reports a page
// and 10 waiting; sending waits for a second without new errors; stacks are cut at 5000
// characters.

import type { ReportedError } from "../types";

/** The crumb cookie (read here, so the reporter does not bring the API helpers along). */
function crumb(): string | null {
  const m = /(?:^|;\s*)crumb=([^;]*)/.exec(document.cookie);
  return m ? m[1] : null;
}

export const ERRORS_PATH = "/api/events/RecordJavascriptErrors";
export const MAX_REPORTS = 20;
export const MAX_QUEUED = 10;
export const DEBOUNCE_MS = 1000;
export const MAX_STACK = 5000;

/** A report as this page sends it (one of the document's `ReportedError`s). */
export interface Report extends ReportedError {
  event: "javascript-error";
  data: { message: string; stack: string; source: string; line: number; column: number; pagePath: string };
  timestamp: number;
}

export type Send = (reports: Report[]) => Promise<unknown>;

/** Sends reports with the crumb; failures are dropped (reporting must not make errors). */
export const sendReports: Send = (reports) => {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  const token = crumb();
  if (token) headers["X-CSRF-Token"] = token;
  return fetch(ERRORS_PATH, { method: "POST", headers, credentials: "same-origin", keepalive: true, body: JSON.stringify(reports) }).catch(
    () => undefined,
  );
};

export interface ErrorLike {
  message?: string;
  stack?: string;
  source?: string;
  line?: number;
  column?: number;
}

export class Reporter {
  private taken = 0;
  private queue: Report[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly send: Send = sendReports,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one error; `false` when the page's reports are used up or the queue is full. */
  report(e: ErrorLike): boolean {
    if (this.taken >= MAX_REPORTS || this.queue.length >= MAX_QUEUED) return false;
    this.taken++;
    this.queue.push({
      event: "javascript-error",
      data: {
        message: String(e.message ?? "Error").slice(0, MAX_STACK),
        stack: String(e.stack ?? "").slice(0, MAX_STACK),
        source: e.source ?? "",
        line: e.line ?? 0,
        column: e.column ?? 0,
        pagePath: window.location.pathname,
      },
      timestamp: this.now(),
    });
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), DEBOUNCE_MS);
    return true;
  }

  /** Sends what waits now. */
  flush() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0);
    void this.send(batch);
  }

  /** Listens to the window's errors and unhandled rejections. */
  install(target: Window = window) {
    target.addEventListener("error", (ev) => {
      const e = ev as ErrorEvent;
      this.report({ message: e.message, stack: e.error?.stack, source: e.filename, line: e.lineno, column: e.colno });
    });
    target.addEventListener("unhandledrejection", (ev) => {
      const reason = (ev as PromiseRejectionEvent).reason;
      this.report({ message: reason?.message ?? String(reason), stack: reason?.stack });
    });
    target.addEventListener("pagehide", () => this.flush());
  }
}
