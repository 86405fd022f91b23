// Performance records (SPEC.md §7, §9 "Tracking"): the page asks for a `pageLoadId` (giving
// up after 30 s), collects records, and sends them once, at page hide or 30 s after load,
// whichever comes first, by beacon or by a call. Page-speed metrics are waited for at most
// 60 s.

import type { PerformanceRecord, Schemas } from "../types";

export const SETTINGS_PATH = "/api/1/performance/settings";
export const RECORDS_PATH = "/api/1/performance/records";
export const SETTINGS_TIMEOUT_MS = 30_000;
export const FLUSH_AFTER_MS = 30_000;
export const METRICS_WAIT_MS = 60_000;
/** The server takes at most this many records a call. */
export const MAX_RECORDS = 100;

/** A record as this page sends it (one of the document's `PerformanceRecord`s). */
export interface PerfRecord extends PerformanceRecord {
  app: string;
  event: string;
  data: Record<string, unknown>;
  pageLoadId: string;
  ts: number;
}

export interface Transport {
  /** The page load's id, or null when the settings did not come in time. */
  settings: () => Promise<string | null>;
  send: (records: PerfRecord[]) => void;
}

/** Asks the server for the page load's id within 30 s. */
export async function fetchPageLoadId(timeoutMs = SETTINGS_TIMEOUT_MS): Promise<string | null> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const r = await fetch(SETTINGS_PATH, { credentials: "same-origin", signal: abort.signal });
    if (!r.ok) return null;
    const body: Partial<Schemas["PerformanceSettings"]> = await r.json();
    return typeof body.pageLoadId === "string" ? body.pageLoadId : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** Sends records by beacon, else by a call. */
export function sendRecords(records: PerfRecord[]) {
  const body = JSON.stringify(records);
  if (typeof navigator.sendBeacon === "function" && navigator.sendBeacon(RECORDS_PATH, new Blob([body], { type: "application/json" }))) return;
  void fetch(RECORDS_PATH, { method: "POST", headers: { "Content-Type": "application/json" }, credentials: "same-origin", keepalive: true, body }).catch(
    () => undefined,
  );
}

export const defaultTransport: Transport = { settings: () => fetchPageLoadId(), send: sendRecords };

export class Recorder {
  private pending: Omit<PerfRecord, "pageLoadId">[] = [];
  private id: string | null = null;
  private sent = false;
  private ready: Promise<void>;

  constructor(
    private readonly app = "site",
    private readonly transport: Transport = defaultTransport,
    private readonly now: () => number = Date.now,
  ) {
    this.ready = transport.settings().then((id) => {
      this.id = id;
    });
  }

  /** Keeps one record (dropped once the page's records were sent). */
  add(event: string, data: Record<string, unknown>) {
    if (this.sent || this.pending.length >= MAX_RECORDS) return;
    this.pending.push({ app: this.app, event, data, ts: this.now() });
  }

  /** Sends the records once; without a page load id there is nothing to send them with. */
  async flush() {
    if (this.sent) return;
    this.sent = true;
    await this.ready;
    if (!this.id || this.pending.length === 0) return;
    const id = this.id;
    this.transport.send(this.pending.map((r) => ({ ...r, pageLoadId: id })));
    this.pending = [];
  }

  /** Flushes at page hide or 30 s after now (the load), whichever is first. */
  install(target: Window = window) {
    const timer = setTimeout(() => void this.flush(), FLUSH_AFTER_MS);
    target.addEventListener("pagehide", () => {
      clearTimeout(timer);
      void this.flush();
    });
  }
}
