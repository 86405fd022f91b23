// Settings: Store, Languages, Site access (the site password) and Access (owners,
// invites, API tokens), each shown to
// the roles that may use it. Nested under /settings.
import { Link, Route, Switch } from "wouter";
import { lazy } from "preact/compat";
import { allows, useSession } from "../session";
import { Heading } from "../ui/page";

const Access = lazy(() => import("./access"));
const StoreSettings = lazy(() => import("./store-settings"));
const Languages = lazy(() => import("./languages"));
const SiteAccess = lazy(() => import("./site-access"));

export default function Settings() {
  const { me } = useSession();
  const store = allows(me, ["store"]);
  const access = allows(me, ["access"]);
  const languages = allows(me, ["languages"]);
  return (
    <Switch>
      <Route path="/access">{access ? <Access /> : <NoAccess />}</Route>
      <Route path="/store">{store ? <StoreSettings /> : <NoAccess />}</Route>
      <Route path="/languages">{languages ? <Languages /> : <NoAccess />}</Route>
      <Route path="/site-access">{access ? <SiteAccess /> : <NoAccess />}</Route>
      <Route>
        <Heading title="Settings">Settings</Heading>
        <ul class="todo">
          {store && (
            <li>
              <Link href="/store">Store settings</Link>: currency, checkout, payment, shipping, tax, coupons, emails
            </li>
          )}
          {languages && (
            <li>
              <Link href="/languages">Languages</Link>: the default language, other languages, the translation connection
            </li>
          )}
          {access && (
            <li>
              <Link href="/site-access">Site access</Link>: the site password and its lock screen
            </li>
          )}
          {access && (
            <li>
              <Link href="/access">Access</Link>: owners and their roles, invites, API tokens
            </li>
          )}
        </ul>
      </Route>
    </Switch>
  );
}

function NoAccess() {
  return (
    <>
      <Heading title="No access">No access</Heading>
      <p>Your role does not open this page.</p>
    </>
  );
}
