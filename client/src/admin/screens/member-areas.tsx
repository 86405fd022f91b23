// Member areas: each area the site declares, with the pages it covers (links to them on the
// site, where everyone but its members sees the join page), its join button's label, its
// price (joining is free) and how many members joined; a role that changes content edits
// an area's title, description and join button label (`PATCH /api/owner/member-areas/{id}`,
// errors beside their fields). `GET /api/owner/member-areas`.
import { useId, useState } from "preact/hooks";
import { api, ApiError } from "../api/client";
import type { MemberArea, MemberAreas as AreaList } from "../api/types";
import { canWrite, useSession } from "../session";
import { Field } from "../ui/field";
import { count } from "../ui/format";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { MembersNav } from "./members-nav";

export default function MemberAreas() {
  const { me } = useSession();
  const writable = canWrite(me, "content");
  const { data, error, loading, reload } = useGet<AreaList>("/api/owner/member-areas");
  return (
    <>
      <Heading title="Member areas">Member areas</Heading>
      <MembersNav />
      <p>
        A member area keeps pages for its members: everyone else sees its join page, with its title, description and
        join button.
      </p>
      <ErrorText message={error} />
      {loading && <Loading what="member areas" />}
      {data && data.areas.length === 0 && (
        <Empty>This site has no member areas. They come with the site's settings (memberAreas) when it is imported.</Empty>
      )}
      {data?.areas.map((a) => <Area key={a.id} area={a} writable={writable} onSaved={reload} />)}
    </>
  );
}

function Area({ area: a, writable, onSaved }: { area: MemberArea; writable: boolean; onSaved: () => void }) {
  const [editing, setEditing] = useState(false);
  return (
    <section aria-labelledby={`area-${a.id}`} class="card">
      <h2 id={`area-${a.id}`}>{a.title}</h2>
      {a.description && <p>{a.description}</p>}
      <dl class="facts">
        <dt>Join button</dt>
        <dd>“{a.joinButtonText}”</dd>
        <dt>Price</dt>
        <dd>Free to join</dd>
        <dt>Members</dt>
        <dd>{count(a.members)}</dd>
      </dl>
      <h3>Pages it covers</h3>
      {a.pages.length === 0 ? (
        <Empty>No pages are in this area yet.</Empty>
      ) : (
        <ul>
          {a.pages.map((p) => (
            <li key={p.collectionId}>
              <a href={p.url} target="_blank" rel="noopener">
                {p.title}
              </a>{" "}
              <span class="hint">{p.url}</span>
            </li>
          ))}
        </ul>
      )}
      {writable && !editing && (
        <div class="actions">
          <button type="button" onClick={() => setEditing(true)} aria-label={`Edit ${a.title}`}>
            Edit
          </button>
        </div>
      )}
      {writable && editing && (
        <AreaForm
          area={a}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            onSaved();
          }}
        />
      )}
    </section>
  );
}

function AreaForm({ area, onCancel, onSaved }: { area: MemberArea; onCancel: () => void; onSaved: () => void }) {
  const id = useId();
  const [title, setTitle] = useState(area.title);
  const [description, setDescription] = useState(area.description);
  const [join, setJoin] = useState(area.joinButtonText);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api("PATCH", `/api/owner/member-areas/${encodeURIComponent(area.id)}`, {
        title,
        description,
        joinButtonText: join,
      });
      announce(`${title.trim()} saved: its join page shows it now.`);
      onSaved();
    } catch (err) {
      setError(err as ApiError);
      setBusy(false);
    }
  };
  const fields = error?.fields ?? {};
  const descriptionError = fields.description;
  return (
    <form onSubmit={save} aria-label={`Edit ${area.title}`}>
      <ErrorText message={error?.message} />
      <Field label="Title" value={title} onValue={setTitle} error={fields.title} required />
      <div class={descriptionError ? "field invalid" : "field"}>
        <label for={`${id}-description`}>Description</label>
        <textarea
          id={`${id}-description`}
          rows={3}
          value={description}
          onInput={(e) => setDescription((e.currentTarget as HTMLTextAreaElement).value)}
          aria-invalid={descriptionError ? "true" : undefined}
          aria-describedby={descriptionError ? `${id}-description-error` : undefined}
        />
        {descriptionError && (
          <span class="field-error" id={`${id}-description-error`}>
            <span aria-hidden="true">⚠ </span>
            {descriptionError}
          </span>
        )}
      </div>
      <Field
        label="Join button label"
        hint="Empty for “Join”"
        value={join}
        onValue={setJoin}
        error={fields.joinButtonText}
      />
      <div class="actions">
        <button type="submit" disabled={busy}>
          Save area
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
