// The signed-in frame: a skip link, the banner (site, account, sign out), the main
// navigation (only the sections this role opens; the current one marked), the main region.
import type { ComponentChildren } from "preact";
import { Link, useLocation } from "wouter";
import { allows, SECTIONS, useSession } from "./session";

export function Layout({ children }: { children: ComponentChildren }) {
  const { me, signOut } = useSession();
  const [location] = useLocation();
  const current = (path: string) =>
    path === "/" ? location === "/" || location === "" : location === path || location.startsWith(`${path}/`);
  return (
    <div class="frame">
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById("main")?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="banner">
        <span class="site">{me.site.title}</span>
        <span class="who">
          {me.account ? `${me.account.email} (${me.account.roleName})` : "API token"}
        </span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav class="nav" aria-label="Main">
        <ul>
          {SECTIONS.filter((s) => allows(me, s.areas)).map((s) => (
            <li key={s.path}>
              <Link href={s.path} aria-current={current(s.path) ? "page" : undefined}>
                {s.name}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
