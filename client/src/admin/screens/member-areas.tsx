// Member areas: each area the site declares, with the pages it covers (links to them on the
// site, where everyone but its members sees the join page), its join button's label, its
// price (free, or the store product its join button sells: a one-time price or a
// subscription) and how many members joined; a role that changes content edits an area's
// title, description, join button label and access (Free / Paid, with the product picked
// from the store's digital, service and subscription products with their prices)
// (`PATCH /api/owner/member-areas/{id}`, errors beside their fields).
// `GET /api/owner/member-areas` gives the areas and the products in one call.
import { useId, useState } from "preact/hooks";
import { Link } from "wouter";
import { api, ApiError } from "../api/client";
import type { MemberArea, MemberAreas as AreaList, PlanProduct } from "../api/types";
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
      {data?.areas.map((a) => (
        <Area key={a.id} area={a} plans={data.planProducts ?? []} writable={writable} onSaved={reload} />
      ))}
    </>
  );
}

/** What an area costs, as its card says it. */
function price(a: MemberArea, plans: PlanProduct[]): string {
  if (!a.planProductId) return "Free to join";
  const plan = plans.find((p) => p.productId === a.planProductId);
  if (!plan || !a.priceText) return "Paid, but its product can no longer be sold: choose another";
  return `${a.priceText} (${plan.title})`;
}

function Area({ area: a, plans, writable, onSaved }: { area: MemberArea; plans: PlanProduct[]; writable: boolean; onSaved: () => void }) {
  const [editing, setEditing] = useState(false);
  return (
    <section aria-labelledby={`area-${a.id}`} class="card">
      <h2 id={`area-${a.id}`}>{a.title}</h2>
      {a.description && <p>{a.description}</p>}
      <dl class="facts">
        <dt>Join button</dt>
        <dd>“{a.joinButtonText}”</dd>
        <dt>Price</dt>
        <dd>{price(a, plans)}</dd>
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
          plans={plans}
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

/** A product as the picker lists it: its title, kind and price. */
function planLabel(p: PlanProduct): string {
  const kind = p.kind === "subscription" ? "subscription" : `${p.kind}, one-time`;
  return `${p.title} (${kind}): ${p.priceText}`;
}

const CHOOSE_PRODUCT = "Choose the product that is its price.";

function AreaForm({ area, plans, onCancel, onSaved }: { area: MemberArea; plans: PlanProduct[]; onCancel: () => void; onSaved: () => void }) {
  const id = useId();
  const [title, setTitle] = useState(area.title);
  const [description, setDescription] = useState(area.description);
  const [join, setJoin] = useState(area.joinButtonText);
  const [access, setAccess] = useState<"free" | "paid">(area.planProductId ? "paid" : "free");
  const [plan, setPlan] = useState(area.planProductId ?? "");
  const [error, setError] = useState<ApiError | null>(null);
  const [planError, setPlanError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setPlanError(null);
    if (access === "paid" && !plan) {
      setPlanError(CHOOSE_PRODUCT);
      return;
    }
    setBusy(true);
    try {
      await api("PATCH", `/api/owner/member-areas/${encodeURIComponent(area.id)}`, {
        title,
        description,
        joinButtonText: join,
        planProductId: access === "paid" ? plan : "",
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
  const productError = planError ?? fields.planProductId;
  // The products another area is sold by cannot be this one's price.
  const choices = plans.filter((p) => !p.usedBy || p.usedBy === area.id);
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
        hint="Empty for “Join”; a paid area's button adds “for” and its price"
        value={join}
        onValue={setJoin}
        error={fields.joinButtonText}
      />
      <fieldset class="field">
        <legend>Access</legend>
        <label>
          <input type="radio" name={`${id}-access`} value="free" checked={access === "free"} onChange={() => setAccess("free")} /> Free
        </label>
        <label>
          <input type="radio" name={`${id}-access`} value="paid" checked={access === "paid"} onChange={() => setAccess("paid")} /> Paid
        </label>
      </fieldset>
      {access === "paid" &&
        (choices.length === 0 ? (
          <p class="empty" id={`${id}-product-empty`}>
            Create a digital, service or subscription product to sell access. <Link href="/products">Products</Link>
          </p>
        ) : (
          <div class={productError ? "field invalid" : "field"}>
            <label for={`${id}-product`}>Product sold to join</label>
            <span class="hint" id={`${id}-product-hint`}>
              Members pay its price once (digital, service) or while their subscription lasts.
            </span>
            <select
              id={`${id}-product`}
              value={plan}
              onChange={(e) => setPlan((e.currentTarget as HTMLSelectElement).value)}
              aria-invalid={productError ? "true" : undefined}
              aria-describedby={[`${id}-product-hint`, productError ? `${id}-product-error` : ""].filter(Boolean).join(" ")}
            >
              <option value="">Choose a product</option>
              {choices.map((p) => (
                <option key={p.productId} value={p.productId}>
                  {planLabel(p)}
                </option>
              ))}
            </select>
            {productError && (
              <span class="field-error" id={`${id}-product-error`}>
                <span aria-hidden="true">⚠ </span>
                {productError}
              </span>
            )}
          </div>
        ))}
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
