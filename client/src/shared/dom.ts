// Small DOM helpers.

/** A value quoted for an attribute selector: `[data-item-id=${quoted(id)}]`. */
export function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
}
