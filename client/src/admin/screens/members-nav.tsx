// The Members section's sub-navigation: Members, Comments, Member areas — each only for a
// role that opens it (members: the orders area, as customers; comments: the comments area;
// member areas: the content area).
import { Link, useLocation } from "wouter";
import type { AreaName, Me } from "../api/types";
import { allows, useSession } from "../session";

export const MEMBER_PARTS: { path: string; name: string; areas: AreaName[] }[] = [
  { path: "/members", name: "Members", areas: ["orders"] },
  { path: "/members/comments", name: "Comments", areas: ["comments"] },
  { path: "/members/areas", name: "Member areas", areas: ["content"] },
];

/** The first part of the section `me` opens (where "Members" in the main navigation goes). */
export function firstPart(me: Me): string | null {
  return MEMBER_PARTS.find((p) => allows(me, p.areas))?.path ?? null;
}

export function MembersNav() {
  const { me } = useSession();
  const [location] = useLocation();
  const parts = MEMBER_PARTS.filter((p) => allows(me, p.areas));
  if (parts.length < 2) return null;
  return (
    <nav class="subnav" aria-label="Members section">
      <ul>
        {parts.map((p) => (
          <li key={p.path}>
            <Link href={p.path} aria-current={location === p.path ? "page" : undefined}>
              {p.name}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
