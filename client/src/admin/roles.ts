// SPEC.md §3's roles (api/src/http/owner.rs ROLES): the number, the name the API uses, and
// what the app calls it.
export const ROLES: [number, string, string][] = [
  [1, "admin", "Administrator"],
  [15, "website-manager", "Website manager"],
  [8, "store-manager", "Store manager"],
  [4, "editor", "Editor"],
  [2, "billing", "Billing"],
  [3, "reporting", "Reporting"],
  [6, "moderator", "Moderator"],
  [7, "commenter", "Commenter"],
  [9, "scheduling", "Scheduling"],
  [12, "scheduling-viewer", "Scheduling viewer"],
  [13, "scheduling-editor", "Scheduling editor"],
  [10, "viewer", "Viewer"],
  [11, "campaigns-editor", "Campaigns editor"],
];

export function roleLabel(role: number, fallback = ""): string {
  return ROLES.find(([n]) => n === role)?.[2] ?? (fallback || `Role ${role}`);
}

export const ROLE_OPTIONS: [string, string][] = ROLES.map(([n, , label]) => [String(n), label]);
