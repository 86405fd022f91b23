// How the app writes dates, numbers and states (words, never colour alone).
import type { FulfilmentState, PaymentState } from "../api/types";

// Keyed by the server's words (strings in its document); an unknown one is shown as is.
export const PAYMENT: Record<PaymentState | (string & {}), string> = {
  "awaiting-payment": "Awaiting payment",
  paid: "Paid",
  "partially-refunded": "Partially refunded",
  refunded: "Refunded",
  expired: "Expired",
};

export const FULFILMENT: Record<FulfilmentState | (string & {}), string> = {
  unfulfilled: "Unfulfilled",
  "partially-fulfilled": "Partially fulfilled",
  fulfilled: "Fulfilled",
  "not-required": "No fulfilment needed",
};

export function dateTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function date(ms: number): string {
  return new Date(ms).toLocaleDateString(undefined, { dateStyle: "medium" });
}

export function count(n: number): string {
  return n.toLocaleString();
}

export function percent(x: number): string {
  return `${(x * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })}%`;
}

/** `yyyy-mm-dd` (a date input's value) → epoch ms at the start (or end) of that local day. */
export function dayMs(value: string, end = false): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (end) d.setHours(23, 59, 59, 999);
  return d.getTime();
}

/** Epoch ms → a `datetime-local` input's value (`yyyy-mm-ddThh:mm`, local time). */
export function localDateTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** A `datetime-local` input's value (local time) → epoch ms; null when it is not one. */
export function localDateTimeMs(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  return Number.isNaN(d.getTime()) ? null : d.getTime();
}

/** The number of decimals `currency` is written with. */
export function decimals(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}
