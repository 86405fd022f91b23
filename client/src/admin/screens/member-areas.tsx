// Member areas: each area the site declares, with the pages it covers (links to them on the
// site, where everyone but its members sees the join page), its join button's label, its
// price (joining is free) and how many members joined. `GET /api/owner/member-areas`.
import type { MemberAreas as AreaList } from "../api/types";
import { count } from "../ui/format";
import { Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { MembersNav } from "./members-nav";

export default function MemberAreas() {
  const { data, error, loading } = useGet<AreaList>("/api/owner/member-areas");
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
        <section key={a.id} aria-labelledby={`area-${a.id}`} class="card">
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
        </section>
      ))}
    </>
  );
}
