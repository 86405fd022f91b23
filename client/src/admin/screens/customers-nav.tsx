// The Customers section's sub-navigation: Customers, Subscriptions, Gift cards.
import { Link, useLocation } from "wouter";

const PARTS = [
  { path: "/customers", name: "All customers" },
  { path: "/customers/subscriptions", name: "Subscriptions" },
  { path: "/customers/gift-cards", name: "Gift cards" },
];

export function CustomersNav() {
  const [location] = useLocation();
  const current = (path: string) =>
    path === "/customers" ? location === path : location === path || location.startsWith(`${path}/`);
  return (
    <nav class="subnav" aria-label="Customers section">
      <ul>
        {PARTS.map((p) => (
          <li key={p.path}>
            <Link href={p.path} aria-current={current(p.path) ? "page" : undefined}>
              {p.name}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The code as the owner sees it: all but its last 4 characters hidden. */
export function masked(codeEnd: string): string {
  return `••••-••••-••••-${codeEnd}`;
}

export const SUBSCRIPTION_STATUS: Record<string, string> = {
  active: "Active",
  cancelled: "Cancelled",
  completed: "Completed",
};
