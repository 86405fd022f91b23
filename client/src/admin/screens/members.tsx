// Members: the site's members (site users), the newest first, with their name, email, when
// they joined, whether they confirmed their address, and the member areas they belong to
// (a paid one links to the order that opened it); a search and keyset paging.
// `GET /api/owner/members?q&after`.
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { Link } from "wouter";
import { withQuery } from "../api/client";
import type { Members as MemberPage } from "../api/types";
import { Field } from "../ui/field";
import { count, date } from "../ui/format";
import { Empty, ErrorText, Heading, Loading } from "../ui/page";
import { Pager, usePages } from "../ui/pager";
import { useGet, useQuery } from "../ui/query";
import { MembersNav } from "./members-nav";

export default function Members() {
  const [params, setParams] = useQuery();
  const q = params.get("q") ?? "";
  const after = params.get("after") ?? "";
  const { data, error, loading } = useGet<MemberPage>(withQuery("/api/owner/members", { q, after }));
  const pages = usePages(after, (cursor) => setParams({ after: cursor }));
  const [search, setSearch] = useState(q);
  return (
    <>
      <Heading title="Members">Members</Heading>
      <MembersNav />
      {data && (
        <p>
          {data.total === 1 ? "1 member" : `${count(data.total)} members`} in all. Visitors become members by
          signing up on the site; a member area's join page offers it.
        </p>
      )}
      <form
        class="filters"
        role="search"
        aria-label="Members"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ q: search.trim(), after: "" });
        }}
      >
        <Field label="Search members" type="search" hint="Name or email" value={search} onValue={setSearch} />
        <button type="submit">Search</button>
      </form>
      <ErrorText message={error} />
      {loading && <Loading what="members" />}
      {data && data.members.length === 0 && <Empty>{q ? "No members match." : "No members yet."}</Empty>}
      {data && data.members.length > 0 && (
        <>
          <table>
            <caption class="visually-hidden">Members, the newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Joined</th>
                <th scope="col">Address confirmed</th>
                <th scope="col">Member areas</th>
              </tr>
            </thead>
            <tbody>
              {data.members.map((m) => (
                <tr key={m.id}>
                  <th scope="row">{m.displayName || "—"}</th>
                  <td>
                    <a href={`mailto:${m.email}`}>{m.email}</a>
                  </td>
                  <td>{date(m.createdOn)}</td>
                  <td>{m.confirmed ? "Yes" : "Not yet (cannot sign in)"}</td>
                  <td>
                    {m.areas.length
                      ? m.areas.map((a, i) => (
                          <Fragment key={a.id}>
                            {i > 0 && ", "}
                            {a.title}
                            {a.order && (
                              <>
                                {" "}
                                (paid: <Link href={`/orders/${encodeURIComponent(a.order.id)}`}>order #{a.order.orderNumber ?? "…"}</Link>)
                              </>
                            )}
                          </Fragment>
                        ))
                      : "None"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Pages of members" next={data.next ?? null} onNext={pages.next} onPrevious={pages.previous} />
        </>
      )}
    </>
  );
}
