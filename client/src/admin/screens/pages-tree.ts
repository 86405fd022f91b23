// The Pages screen's model: each navigation the template declares and the "Not linked"
// area, as lists of links (a folder's link holding its own), and the moves on them. A move
// gives new areas; `arrangement` turns the areas that changed into the body of
// `PATCH /api/owner/pages`.
import type { SitePage, Pages, PagesArrangement } from "../api/types";

/** A link as stored: to a page (`collectionId`, a folder's with `items`), or external. */
export interface Link {
  collectionId?: string;
  title?: string;
  externalLink?: { url: string; newWindow?: boolean };
  memberAreaId?: string;
  items?: Link[];
}

/** A navigation (`nav:<name>`) or the not-linked area (`free`). */
export interface Area {
  key: string;
  title: string;
  links: Link[];
}

/** Where a link is: its area, its index there, and its index inside that folder. */
export interface Spot {
  area: string;
  index: number;
  child?: number;
}

export const FREE = "free";

export function areasOf(data: Pages): Area[] {
  return [
    ...data.navigations.map((n) => ({ key: `nav:${n.identifier}`, title: n.title, links: n.links as Link[] })),
    { key: FREE, title: "Not linked", links: data.notLinked as Link[] },
  ];
}

/** The page a link is to. */
export function pageOf(link: Link, pages: SitePage[]): SitePage | undefined {
  return link.collectionId ? pages.find((p) => p.id === link.collectionId) : undefined;
}

/** What a link shows: its own title, else the page's navigation title. */
export function labelOf(link: Link, pages: SitePage[]): string {
  return link.title || pageOf(link, pages)?.navigationTitle || link.externalLink?.url || "Untitled";
}

export function isFolder(link: Link, pages: SitePage[]): boolean {
  return !!pageOf(link, pages)?.folder;
}

/** The list a spot is in (a folder's own links for a child spot). */
function listAt(areas: Area[], spot: Spot): Link[] | undefined {
  const area = areas.find((a) => a.key === spot.area);
  if (!area) return undefined;
  if (spot.child === undefined) return area.links;
  return area.links[spot.index]?.items;
}

export function linkAt(areas: Area[], spot: Spot): Link | undefined {
  const list = listAt(areas, spot);
  return list?.[spot.child ?? spot.index];
}

export function copy(areas: Area[]): Area[] {
  return areas.map((a) => ({ ...a, links: a.links.map((l) => ({ ...l, items: l.items ? [...l.items] : undefined })) }));
}

/** `areas` with the link at `from` taken out and put at `to` (a spot in the areas as they
 *  are without it). A folder never goes inside a folder, and external links stay in
 *  navigations: such a move gives `null`. */
export function move(areas: Area[], from: Spot, to: Spot, pages: SitePage[]): Area[] | null {
  const link = linkAt(areas, from);
  if (!link) return null;
  if (to.child !== undefined && isFolder(link, pages)) return null;
  if (to.area === FREE && !link.collectionId) return null;
  const next = copy(areas);
  const source = listAt(next, from)!;
  source.splice(from.child ?? from.index, 1);
  const target = to.child !== undefined ? folderItems(next, to) : next.find((a) => a.key === to.area)?.links;
  if (!target) return null;
  const at = Math.max(0, Math.min(to.child ?? to.index, target.length));
  target.splice(at, 0, link);
  return next;
}

function folderItems(areas: Area[], to: Spot): Link[] | undefined {
  const area = areas.find((a) => a.key === to.area);
  const folder = area?.links[to.index];
  if (!folder) return undefined;
  folder.items = folder.items ?? [];
  return folder.items;
}

/** The spot one place up (-1) or down (+1) from `spot` in its own list, or null at an end. */
export function step(areas: Area[], spot: Spot, by: -1 | 1): Spot | null {
  const list = listAt(areas, spot);
  if (!list) return null;
  const i = (spot.child ?? spot.index) + by;
  if (i < 0 || i >= list.length) return null;
  return spot.child === undefined ? { ...spot, index: i } : { ...spot, child: i };
}

/** The body of `PATCH /api/owner/pages` for what changed from `before` to `after`. */
export function arrangement(before: Area[], after: Area[], templateId: string | null | undefined): PagesArrangement {
  const body: PagesArrangement = {};
  if (templateId) body.templateId = templateId;
  const navigations: Record<string, Link[]> = {};
  for (const a of after) {
    const old = before.find((b) => b.key === a.key);
    if (old && JSON.stringify(clean(old.links)) === JSON.stringify(clean(a.links))) continue;
    if (a.key === FREE) body.notLinked = clean(a.links);
    else navigations[a.key.slice(4)] = clean(a.links);
  }
  if (Object.keys(navigations).length > 0) body.navigations = navigations;
  return body;
}

/** Links without empty `items`. */
function clean(links: Link[]): Link[] {
  return links.map((l) => {
    const { items, ...rest } = l;
    return items && items.length > 0 ? { ...rest, items: clean(items) } : rest;
  });
}

/** Where a page may be placed: each navigation, each folder there, and not linked. */
export interface Place {
  value: string;
  label: string;
}

export function places(areas: Area[], pages: SitePage[], forFolder: boolean): Place[] {
  const out: Place[] = [];
  for (const a of areas) {
    out.push({ value: a.key, label: a.title });
    if (forFolder) continue;
    a.links.forEach((l, i) => {
      if (isFolder(l, pages)) out.push({ value: `${a.key}#${i}`, label: `${a.title} › ${labelOf(l, pages)}` });
    });
  }
  return out;
}

/** The place value of a spot (its area, or its folder). */
export function placeOf(spot: Spot): string {
  return spot.child === undefined ? spot.area : `${spot.area}#${spot.index}`;
}

/** The spot at the end of a place. */
export function endOf(areas: Area[], place: string): Spot {
  const [area, folder] = place.split("#");
  const links = areas.find((a) => a.key === area)?.links ?? [];
  if (folder === undefined) return { area, index: links.length };
  const index = Number(folder);
  return { area, index, child: links[index]?.items?.length ?? 0 };
}

/** Field errors of `PATCH /api/owner/pages` (`navigations.mainNav[2].externalLink`) for the
 *  link at `spot`, by its own field name (`externalLink`, `title`, …). */
export function linkErrors(fields: Record<string, string>, spot: Spot): Record<string, string> {
  const base =
    (spot.area === FREE ? "notLinked" : `navigations.${spot.area.slice(4)}`) +
    `[${spot.index}]` +
    (spot.child === undefined ? "" : `.items[${spot.child}]`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (k === base) out[""] = v;
    else if (k.startsWith(`${base}.`)) out[k.slice(base.length + 1)] = v;
  }
  return out;
}

/** `areas` without the link at `spot`, and `place` as it reads once that link is out. */
export function without(areas: Area[], spot: Spot, place: string): [Area[], string] {
  const next = copy(areas);
  const area = next.find((a) => a.key === spot.area);
  if (!area) return [next, place];
  const list = spot.child === undefined ? area.links : area.links[spot.index]?.items;
  list?.splice(spot.child ?? spot.index, 1);
  const [key, folder] = place.split("#");
  if (folder !== undefined && key === spot.area && spot.child === undefined && spot.index < Number(folder)) {
    return [next, `${key}#${Number(folder) - 1}`];
  }
  return [next, place];
}

/** `areas` with `link` at the end of `place`; and where it is. */
export function append(areas: Area[], place: string, link: Link): [Area[], Spot] {
  const next = copy(areas);
  const at = endOf(next, place);
  const area = next.find((a) => a.key === at.area)!;
  if (at.child === undefined) area.links.push(link);
  else (area.links[at.index].items ??= []).push(link);
  return [next, at];
}

/** `areas` with the link at `spot` replaced by `link`. */
export function replace(areas: Area[], spot: Spot, link: Link): Area[] {
  const next = copy(areas);
  const area = next.find((a) => a.key === spot.area)!;
  if (spot.child === undefined) area.links[spot.index] = link;
  else area.links[spot.index].items![spot.child] = link;
  return next;
}
