// Content: what a page holds, reached from Pages ("Content" on a page's row).
// - A blog's posts, an events page's events (any page with items): the list with each
//   item's status (Draft, Scheduled, Published), "New post" / "New event", open one,
//   delete one (asked first).
// - A post or event: title, URL id, the text (the rich-text editor), excerpt, tags and
//   categories (chips, one edited at a time; a duplicate says "This tag already exists"),
//   author, publish now / schedule (a date and time in the site's time zone, shown) / draft,
//   comments on or off; an event's start, end and place.
// - A regular page: its own text (`mainContent`) in the same editor.
// Each view's data is one call: `GET /api/owner/collections/{id}/items` (the items, the
// collection, the site's authors and time zone) or `GET /api/owner/collections/{id}/content`.
// Writes: `POST /api/owner/collections/{id}/items`, `PATCH|DELETE /api/owner/items/{id}`,
// `PUT /api/owner/collections/{id}/content`. The server sanitizes the HTML and checks every
// field; its errors show beside their fields.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { Link, useLocation } from "wouter";
import { api, ApiError } from "../api/client";
import type { Author, ContentItem, ItemList, PageContent } from "../api/types";
import { canWrite, useSession } from "../session";
import { Confirm } from "../ui/confirm";
import { Field } from "../ui/field";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { RichText } from "../ui/rich-text";
import { alreadyExists } from "../ui/rich-text-rules";
import { fromLocalInput, showZoned, toLocalInput } from "../ui/zoned";

/** SPEC.md §9. */
const MAX_TAG = 50;
const MAX_CATEGORY = 25;

export type Status = "Draft" | "Scheduled" | "Published";

/** What visitors see of an item now (SPEC.md §3's content statuses). */
export function statusOf(item: Pick<ContentItem, "visibility" | "publishOn">, now = Date.now()): Status {
  if (item.visibility === "hidden") return "Draft";
  if (item.visibility === "scheduled" && item.publishOn > now) return "Scheduled";
  return "Published";
}

const isEvents = (typeName: string) => typeName.includes("event");
const noun = (typeName: string) => (isEvents(typeName) ? "event" : typeName === "products" ? "product" : "post");

/** A URL id from a title ("Kiln day!" → "kiln-day"). */
export function slugOf(title: string): string {
  return title
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 200);
}

export default function Content({ collection, item }: { collection: string; item?: string }) {
  const path = `/api/owner/collections/${encodeURIComponent(collection)}/items`;
  const { data, error, loading, reload } = useGet<ItemList>(path);
  if (loading) return <Loading what="the content" />;
  if (error || !data) {
    return (
      <>
        <Heading title="Content">Content</Heading>
        <ErrorText message={error} />
      </>
    );
  }
  if (data.collection.typeName === "page" || data.collection.type === 10) return <PageText collection={collection} />;
  if (item !== undefined) {
    const found = item === "new" ? null : data.items.find((i) => i.id === item);
    if (item !== "new" && !found) {
      return (
        <>
          <Heading title="Not found">Not found</Heading>
          <p>
            That item does not exist. <Link href={`/content/${collection}`}>Back to {data.collection.title}</Link>
          </p>
        </>
      );
    }
    return <ItemEditor list={data} item={found ?? null} onSaved={reload} />;
  }
  return <ItemsList list={data} onChanged={reload} />;
}

function ItemsList({ list, onChanged }: { list: ItemList; onChanged: () => void }) {
  const { me } = useSession();
  const writable = canWrite(me, "content");
  const c = list.collection;
  const what = noun(c.typeName);
  const [deleting, setDeleting] = useState<ContentItem | null>(null);
  const items = [...list.items].sort((a, b) => b.publishOn - a.publishOn);
  return (
    <>
      <p class="crumbs">
        <Link href="/pages">Pages</Link> › {c.title}
      </p>
      <Heading title={c.title}>{c.title}</Heading>
      {writable && (
        <p>
          <Link class="button" href={`/content/${c.id}/new`}>
            New {what}
          </Link>
        </p>
      )}
      {items.length === 0 ? (
        <Empty>
          No {what}s yet.{writable ? ` "New ${what}" writes the first.` : ""}
        </Empty>
      ) : (
        <table class="content-items">
          <caption class="visually-hidden">{c.title}: every {what}, the newest first</caption>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Status</th>
              <th scope="col">{isEvents(c.typeName) ? "Starts" : "Date"}</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((i) => {
              const status = statusOf(i);
              const when = isEvents(c.typeName) && i.startDate ? i.startDate : i.publishOn;
              return (
                <tr key={i.id}>
                  <th scope="row">
                    <Link href={`/content/${c.id}/${i.id}`}>{i.title}</Link>
                  </th>
                  <td>
                    <span class={`badge status-${status.toLowerCase()}`}>{status}</span>
                  </td>
                  <td>{when ? showZoned(when, list.timeZone) : ""}</td>
                  <td>
                    {writable && (
                      <button type="button" aria-label={`Delete ${i.title}`} onClick={() => setDeleting(i)}>
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {deleting && (
        <Confirm
          title={`Delete ${deleting.title}?`}
          action="Delete"
          keep="Cancel"
          run={() => api("DELETE", `/api/owner/items/${encodeURIComponent(deleting.id)}`)}
          done={`${deleting.title} deleted.`}
          onClose={() => setDeleting(null)}
          onDone={() => {
            setDeleting(null);
            onChanged();
          }}
        >
          <p>The {what} leaves the site at once. This cannot be undone.</p>
        </Confirm>
      )}
    </>
  );
}

type Publish = "now" | "schedule" | "draft";

type Draft = {
  title: string;
  urlId: string;
  body: string;
  excerpt: string;
  tags: string[];
  categories: string[];
  author: string;
  publish: Publish;
  publishOn: string;
  comments: boolean;
  start: string;
  end: string;
  place: { addressTitle: string; addressLine1: string; addressLine2: string; addressCountry: string };
};

function draftOf(item: ContentItem | null, zone: string): Draft {
  const loc = item?.data?.location ?? {};
  const publish: Publish = !item ? "now" : item.visibility === "hidden" ? "draft" : item.visibility === "scheduled" && item.publishOn > Date.now() ? "schedule" : "now";
  return {
    title: item?.title ?? "",
    urlId: item?.urlId ?? "",
    body: item?.body ?? "",
    excerpt: item?.excerpt ?? "",
    tags: item?.tags ?? [],
    categories: item?.categories ?? [],
    author: item?.author?.displayName ?? "",
    publish,
    publishOn: item && item.visibility === "scheduled" && item.publishOn > 0 ? toLocalInput(item.publishOn, zone) : "",
    comments: item ? item.data?.commentState === 1 : true,
    start: item?.startDate ? toLocalInput(item.startDate, zone) : "",
    end: item?.endDate ? toLocalInput(item.endDate, zone) : "",
    place: {
      addressTitle: String(loc.addressTitle ?? ""),
      addressLine1: String(loc.addressLine1 ?? ""),
      addressLine2: String(loc.addressLine2 ?? ""),
      addressCountry: String(loc.addressCountry ?? ""),
    },
  };
}

function ItemEditor({ list, item, onSaved }: { list: ItemList; item: ContentItem | null; onSaved: () => void }) {
  const { me } = useSession();
  const writable = canWrite(me, "content");
  const c = list.collection;
  const zone = list.timeZone;
  const what = noun(c.typeName);
  const events = isEvents(c.typeName);
  const [, navigate] = useLocation();
  const [d, setD] = useState<Draft>(() => draftOf(item, zone));
  const [slugTouched, setSlugTouched] = useState(!!item);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const authorsId = useId();
  // Another item opened in the same screen (a new post just saved): its fields.
  const shown = useRef(item?.id);
  useEffect(() => {
    if (shown.current === item?.id) return;
    shown.current = item?.id;
    setD(draftOf(item, zone));
    setSlugTouched(!!item);
  }, [item?.id]);
  const set = <K extends keyof Draft>(k: K) => (v: Draft[K]) => setD((x) => ({ ...x, [k]: v }));
  const setPlace = (k: keyof Draft["place"]) => (v: string) => setD((x) => ({ ...x, place: { ...x.place, [k]: v } }));
  const err = (k: string) => errors[k];
  /** The first problem with any of a list's entries (`tags[1]` …), or with the list. */
  const listErr = (k: string) => errors[k] ?? Object.entries(errors).find(([f]) => f.startsWith(`${k}[`))?.[1];

  const save = async (e: Event) => {
    e.preventDefault();
    const problems: Record<string, string> = {};
    let publishOn: number | null = null;
    if (d.publish === "schedule") {
      publishOn = fromLocalInput(d.publishOn, zone);
      if (publishOn === null) problems.publishOn = "Please choose the date and time it shows from.";
      else if (publishOn <= Date.now()) problems.publishOn = "Please choose a date and time in the future, or publish it now.";
    }
    const start = d.start ? fromLocalInput(d.start, zone) : null;
    const end = d.end ? fromLocalInput(d.end, zone) : null;
    if (events && start === null) problems.startDate = "Please choose when it starts.";
    if (start !== null && end !== null && end < start) problems.endDate = "An event ends after it starts.";
    if (Object.keys(problems).length) {
      setErrors(problems);
      setFailure("Please correct the fields marked below.");
      return;
    }
    const body: Record<string, unknown> = {
      title: d.title.trim(),
      urlId: d.urlId.trim(),
      body: d.body,
      excerpt: d.excerpt,
      tags: d.tags,
      categories: d.categories,
      author: d.author.trim() ? { ...(list.authors.find((a) => a.displayName === d.author.trim()) ?? {}), displayName: d.author.trim() } : null,
      visibility: d.publish === "draft" ? "hidden" : d.publish === "schedule" ? "scheduled" : "visible",
      data: { ...(item?.data ?? {}), commentState: d.comments ? 1 : 0 },
    };
    if (d.publish === "schedule") body.publishOn = publishOn;
    // Published now: from now, unless it was already out.
    if (d.publish === "now" && (!item || statusOf(item) !== "Published")) body.publishOn = Date.now();
    if (events) {
      body.recordType = 12;
      body.startDate = start;
      body.endDate = end;
      const place = Object.fromEntries(Object.entries(d.place).map(([k, v]) => [k, v.trim()]).filter(([, v]) => v));
      (body.data as Record<string, unknown>).location = Object.keys(place).length ? { ...(item?.data?.location ?? {}), ...place } : null;
      if (!Object.keys(place).length) delete (body.data as Record<string, unknown>).location;
    }
    setSaving(true);
    setErrors({});
    setFailure(null);
    try {
      if (item) {
        await api("PATCH", `/api/owner/items/${encodeURIComponent(item.id)}`, body);
        announce(`${d.title.trim()} saved.`);
        onSaved();
      } else {
        const made = await api<ContentItem>("POST", `/api/owner/collections/${encodeURIComponent(c.id)}/items`, body);
        announce(`${made.title} saved.`);
        onSaved();
        navigate(`/content/${c.id}/${made.id}`, { replace: true });
      }
    } catch (x) {
      const e = x as ApiError;
      setErrors(e.fields);
      setFailure(e.message);
    } finally {
      setSaving(false);
    }
  };

  const title = item ? item.title : `New ${what}`;
  const live = item ? `/${c.urlId}/${item.urlId}` : null;
  return (
    <>
      <p class="crumbs">
        <Link href="/pages">Pages</Link> › <Link href={`/content/${c.id}`}>{c.title}</Link> › {title}
      </p>
      <Heading title={title}>{title}</Heading>
      {item && (
        <p>
          <span class={`badge status-${statusOf(item).toLowerCase()}`}>{statusOf(item)}</span>{" "}
          {live && statusOf(item) === "Published" && (
            <a href={live} target="_blank" rel="noopener">
              View on the site (opens in a new tab)
            </a>
          )}
        </p>
      )}
      <ErrorText message={failure} />
      <form noValidate onSubmit={save} class="content-form">
        <fieldset disabled={!writable || saving}>
          <legend class="visually-hidden">The {what}</legend>
          <Field
            label="Title"
            required
            value={d.title}
            onValue={(v) => setD((x) => ({ ...x, title: v, urlId: slugTouched ? x.urlId : slugOf(v) }))}
            error={err("title")}
          />
          <Field
            label="URL id"
            hint={`The address: /${c.urlId}/${d.urlId || "…"}`}
            value={d.urlId}
            onValue={(v) => {
              setSlugTouched(true);
              set("urlId")(v);
            }}
            error={err("urlId")}
          />
          <RichText label={events ? "Description" : "Text"} value={d.body} onValue={set("body")} error={err("body")} disabled={!writable} />
          <RichText label="Excerpt" hint="A short summary lists and feeds may show." short images={false} value={d.excerpt} onValue={set("excerpt")} error={err("excerpt")} disabled={!writable} />
          {events && (
            <fieldset>
              <legend>When and where ({zone})</legend>
              <Field label={`Starts (${zone})`} type="datetime-local" required value={d.start} onValue={set("start")} error={err("startDate")} />
              <Field label={`Ends (${zone})`} type="datetime-local" value={d.end} onValue={set("end")} error={err("endDate")} />
              <Field label="Place name" value={d.place.addressTitle} onValue={setPlace("addressTitle")} error={err("data.location")} />
              <Field label="Address line 1" value={d.place.addressLine1} onValue={setPlace("addressLine1")} />
              <Field label="Address line 2" value={d.place.addressLine2} onValue={setPlace("addressLine2")} />
              <Field label="Country" value={d.place.addressCountry} onValue={setPlace("addressCountry")} />
            </fieldset>
          )}
          <Chips label="Tags" tagType="tag" max={MAX_TAG} values={d.tags} onValues={set("tags")} error={listErr("tags")} />
          <Chips label="Categories" tagType="category" max={MAX_CATEGORY} values={d.categories} onValues={set("categories")} error={listErr("categories")} />
          <Field label="Author" list={authorsId} hint="Who wrote it, as the site shows it." value={d.author} onValue={set("author")} error={err("author")} />
          <datalist id={authorsId}>
            {list.authors.map((a: Author) => (
              <option key={a.displayName} value={a.displayName} />
            ))}
          </datalist>
          <fieldset class="choices">
            <legend>Publishing</legend>
            {(
              [
                ["now", "Published: visitors see it now"],
                ["schedule", "Scheduled: visitors see it from a date and time"],
                ["draft", "Draft: only owners see it"],
              ] as [Publish, string][]
            ).map(([v, text]) => (
              <label key={v} class="choice">
                <input type="radio" name="publish" value={v} checked={d.publish === v} onChange={() => set("publish")(v)} /> {text}
              </label>
            ))}
            {d.publish === "schedule" && (
              <Field
                label={`Publish on (${zone})`}
                type="datetime-local"
                required
                hint={`In the site's time zone, ${zone}.`}
                value={d.publishOn}
                onValue={set("publishOn")}
                error={err("publishOn")}
              />
            )}
          </fieldset>
          <div class="field check">
            <label>
              <input type="checkbox" checked={d.comments} onChange={(e) => set("comments")((e.currentTarget as HTMLInputElement).checked)} /> Comments on
            </label>
            {err("data.commentState") && <span class="field-error">{err("data.commentState")}</span>}
          </div>
          {writable && (
            <div class="actions">
              <button type="submit">{saving ? "Saving…" : d.publish === "schedule" ? "Schedule" : d.publish === "draft" ? "Save draft" : "Publish"}</button>
              <Link href={`/content/${c.id}`}>Back to {c.title}</Link>
            </div>
          )}
        </fieldset>
      </form>
    </>
  );
}

/** Tags or categories as chips: add one (Enter or the button), edit one (only one at a time:
 *  its text goes back into the field), remove one. A duplicate (any case) is refused with
 *  SPEC.md §5's "This {tagType} already exists". */
export function Chips({
  label,
  tagType,
  max,
  values,
  onValues,
  error,
}: {
  label: string;
  tagType: "tag" | "category";
  max: number;
  values: string[];
  onValues: (v: string[]) => void;
  error?: string;
}) {
  const id = useId();
  const [text, setText] = useState("");
  const [editing, setEditing] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const shown = problem ?? error;
  const add = () => {
    const v = text.trim();
    if (!v) return;
    if (v.length > max) return setProblem(`A ${tagType} is 1 to ${max} characters.`);
    if (values.some((w, i) => i !== editing && w.toLowerCase() === v.toLowerCase())) return setProblem(alreadyExists(tagType));
    setProblem(null);
    if (editing !== null) {
      onValues(values.map((w, i) => (i === editing ? v : w)));
      setEditing(null);
    } else onValues([...values, v]);
    setText("");
    document.getElementById(`${id}-input`)?.focus();
  };
  const describedBy = [`${id}-hint`, shown ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={shown ? "field chips invalid" : "field chips"}>
      <label for={`${id}-input`}>{editing !== null ? `Edit ${tagType} “${values[editing]}”` : label}</label>
      <span class="hint" id={`${id}-hint`}>
        Enter adds it; up to {max} characters.
      </span>
      <ul class="chip-list" aria-label={`${label} added`}>
        {values.map((v, i) => (
          <li key={`${v}-${i}`} class={editing === i ? "chip editing" : "chip"}>
            <span>{v}</span>
            <button type="button" aria-label={`Edit ${tagType} ${v}`} disabled={editing !== null} onClick={() => {
              setEditing(i);
              setText(v);
              setProblem(null);
              document.getElementById(`${id}-input`)?.focus();
            }}>
              ✎
            </button>
            <button type="button" aria-label={`Remove ${tagType} ${v}`} disabled={editing !== null} onClick={() => {
              onValues(values.filter((_, j) => j !== i));
              announce(`${v} removed.`);
            }}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <div class="chip-add">
        <input
          id={`${id}-input`}
          value={text}
          maxLength={max + 20}
          aria-invalid={shown ? "true" : undefined}
          aria-describedby={describedBy}
          onInput={(e) => {
            setText((e.currentTarget as HTMLInputElement).value);
            setProblem(null);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              add();
            } else if (e.key === "Escape" && editing !== null) {
              e.preventDefault();
              setEditing(null);
              setText("");
            }
          }}
        />
        <button type="button" onClick={add}>
          {editing !== null ? `Save ${tagType}` : `Add ${tagType}`}
        </button>
        {editing !== null && (
          <button type="button" onClick={() => {
            setEditing(null);
            setText("");
            setProblem(null);
          }}>
            Cancel
          </button>
        )}
      </div>
      {shown && (
        <span class="field-error" id={`${id}-error`} role="alert">
          <span aria-hidden="true">⚠ </span>
          {shown}
        </span>
      )}
    </div>
  );
}

/** A regular page's own text (`mainContent`). */
function PageText({ collection }: { collection: string }) {
  const { me } = useSession();
  const writable = canWrite(me, "content");
  const path = `/api/owner/collections/${encodeURIComponent(collection)}/content`;
  const { data, error, loading, setData } = useGet<PageContent>(path);
  const [html, setHtml] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  if (loading) return <Loading what="the page" />;
  if (error || !data) return <ErrorText message={error} />;
  const value = html ?? data.mainContent;
  const title = data.title ?? "Page";
  return (
    <>
      <p class="crumbs">
        <Link href="/pages">Pages</Link> › {title}
      </p>
      <Heading title={title}>{title}</Heading>
      <ErrorText message={failure} />
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          api<PageContent>("PUT", path, { mainContent: value }).then(
            (saved) => {
              setData(saved);
              setHtml(null);
              setErrors({});
              setFailure(null);
              announce(`${title} saved.`);
            },
            (x: ApiError) => {
              setErrors(x.fields);
              setFailure(x.message);
            },
          );
        }}
      >
        <RichText label="Page text" value={value} onValue={setHtml} error={errors.mainContent} disabled={!writable} />
        {writable && (
          <div class="actions">
            <button type="submit">Save</button>
          </div>
        )}
      </form>
    </>
  );
}
