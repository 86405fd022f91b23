// Dates and times in the site's time zone (`website.timeZone`), whatever the browser's: what
// a `datetime-local` field shows and what it means as epoch milliseconds.

/** The zone's offset from UTC at `ms`, in milliseconds (east positive). */
function offsetAt(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(ms));
  const n = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const asUtc = Date.UTC(n("year"), n("month") - 1, n("day"), n("hour") % 24, n("minute"), n("second"));
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** `ms` as `yyyy-mm-ddThh:mm` in `zone` (a `datetime-local` field's value). */
export function toLocalInput(ms: number, zone: string): string {
  const local = new Date(ms + offsetAt(ms, zone));
  return local.toISOString().slice(0, 16);
}

/** A `datetime-local` value meant in `zone`, as epoch ms; null when it is not one. */
export function fromLocalInput(value: string, zone: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(value);
  if (!m) return null;
  const guess = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]);
  // The offset at the guess, then at the moment it gives (a change of offset between).
  let ms = guess - offsetAt(guess, zone);
  ms = guess - offsetAt(ms, zone);
  return ms;
}

/** `ms` as the owner reads it, in `zone` ("Mar 3, 2031, 9:00 AM"). */
export function showZoned(ms: number, zone: string): string {
  return new Intl.DateTimeFormat("en-US", { timeZone: zone, dateStyle: "medium", timeStyle: "short" }).format(new Date(ms));
}
