// The signed-in owner (`Me`), for every screen, and what each may see.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Access, AreaName, Me } from "./api/types";

export interface Session {
  me: Me;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside a signed-in app");
  return s;
}

/** The app's sections: their paths, link names, and the areas that open them (any one). */
export const SECTIONS: { path: string; name: string; areas: AreaName[] | "always" }[] = [
  { path: "/", name: "Dashboard", areas: "always" },
  { path: "/pages", name: "Pages", areas: ["content"] },
  { path: "/design", name: "Design", areas: ["design"] },
  { path: "/forms", name: "Forms", areas: ["forms"] },
  { path: "/orders", name: "Orders", areas: ["orders"] },
  { path: "/products", name: "Products", areas: ["store"] },
  { path: "/inventory", name: "Inventory", areas: ["store"] },
  { path: "/customers", name: "Customers", areas: ["orders"] },
  { path: "/analytics", name: "Analytics", areas: ["analytics"] },
  { path: "/templates", name: "Templates", areas: ["design"] },
  { path: "/members", name: "Members", areas: ["orders", "comments", "content"] },
  { path: "/settings", name: "Settings", areas: ["store", "languages", "access"] },
];

/** Whether `me` may open a section needing `areas`. */
export function allows(me: Me, areas: AreaName[] | "always"): boolean {
  return areas === "always" || areas.some((a) => me.areas[a] != null);
}

/** Whether `me` may change things in `area`. */
export function canWrite(me: Me, area: AreaName): boolean {
  const a: Access = me.areas[area] ?? null;
  return a === "write";
}
