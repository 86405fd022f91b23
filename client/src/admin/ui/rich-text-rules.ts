// The rich-text editor's checks, apart from Tiptap (so screens and tests use them without
// loading the editor's chunk).

/** SPEC.md §5, its two `{host}`s filled as the server's `layout::BAD_LINK` fills them. */
export const BAD_LINK = "Links must be formatted as www.example.com or https://www.example.com";
/** SPEC.md §5 (image templates): alt text is given, or the image is marked decorative. */
export const NO_ALT = "Please describe the image, or mark it as decorative.";

/** SPEC.md §5's file message for a file that is not an image. */
export function notAnImage(fileName: string): string {
  return `The file ${fileName} does not appear to be a supported image file.`;
}

/** A link as it is stored (a bare host gets `https://`), or null when it is not one: the
 *  server's `layout::external_link`, for the editor's links (and `tel:`). */
export function checkLink(url: string): string | null {
  const u = url.trim();
  if (!u || /[\s\u0000-\u001f]/.test(u)) return null;
  const lower = u.toLowerCase();
  if (["http://", "https://", "mailto:", "tel:"].some((p) => lower.startsWith(p) && lower.length > p.length)) return u.length < 2083 ? u : null;
  if (u.startsWith("/") && !u.startsWith("//")) return u.length < 2083 ? u : null;
  if (u.startsWith("#") && u.length > 1) return u;
  const end = u.search(/[/?#]/);
  const host = (end < 0 ? u : u.slice(0, end)).split(":")[0];
  const labels = host.split(".");
  const ok =
    labels.length >= 2 &&
    labels.every((l) => l.length > 0 && l.length <= 63 && /^[A-Za-z0-9-]+$/.test(l)) &&
    /^[A-Za-z]+$/.test(labels[labels.length - 1]);
  if (!ok) return null;
  const stored = `https://${u}`;
  return stored.length < 2083 ? stored : null;
}

/** "This {tagType} already exists" (SPEC.md §5). */
export function alreadyExists(tagType: "tag" | "category"): string {
  return `This ${tagType} already exists`;
}

/** What the editor keeps (its schema): anything else in stored HTML is lost once the text
 *  is changed in it. */
const KEPT = new Set(["P", "H1", "H2", "H3", "H4", "STRONG", "B", "EM", "I", "S", "U", "A", "UL", "OL", "LI", "BLOCKQUOTE", "BR", "HR", "IMG"]);

/** The kinds of markup in `html` the editor would not keep ("a form", "a table" …), so the
 *  field can say so before the owner changes the text. */
export function unkept(html: string): string[] {
  if (!html || !/<(?!\/?(p|h[1-4]|strong|b|em|i|s|u|a|ul|ol|li|blockquote|br|hr|img)\b)[a-z]/i.test(html)) return [];
  const doc = new DOMParser().parseFromString(html, "text/html");
  const found = new Set<string>();
  for (const el of Array.from(doc.body.querySelectorAll("*"))) {
    if (KEPT.has(el.tagName)) continue;
    // The editor's own form block (./form-block.ts; not imported here, which is Tiptap's chunk).
    if (el.tagName === "DIV" && el.getAttribute("data-block-type") === "9" && /^[A-Za-z0-9_-]{1,64}$/.test(el.getAttribute("data-form-id") ?? "") && el.childNodes.length === 0) continue;
    const t = el.tagName;
    if (t === "FORM" || t === "INPUT" || t === "SELECT" || t === "TEXTAREA" || t === "BUTTON" || t === "FIELDSET") found.add("a form");
    else if (t === "TABLE" || t === "TR" || t === "TD" || t === "TH") found.add("a table");
    else if (t === "IFRAME" || t === "VIDEO" || t === "AUDIO" || t === "EMBED" || t === "OBJECT") found.add("an embedded video or page");
    else if (t === "FIGURE" || t === "FIGCAPTION") found.add("image captions");
    else if (t === "DIV" && (el.hasAttribute("data-block-type") || /\bsqs-(row|col|layout|block)\b/.test(el.className))) found.add("a layout of blocks");
    else if (t === "H5" || t === "H6") found.add("small headings");
    else if (t !== "DIV" && t !== "SPAN" && t !== "LABEL" && t !== "LEGEND" && t !== "OPTION" && t !== "THEAD" && t !== "TBODY" && t !== "CAPTION") found.add("other formatting");
  }
  return [...found];
}

/** "a, b and c". */
export function listed(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}
