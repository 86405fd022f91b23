// The app: asks who is signed in (`GET /api/owner/session`), shows the sign-in screen when
// nobody is (on any path, which stays, so a link to an order opens that order once signed
// in), and otherwise the layout with the screen the path names. Every screen is its own
// chunk, loaded when first opened.
import { lazy, Suspense } from "preact/compat";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Redirect, Route, Router, Switch, useLocation, useSearch } from "wouter";
import { api, ApiError, setCsrf, whenSignedOut } from "./api/client";
import type { AreaName, Me } from "./api/types";
import { Layout } from "./layout";
import { allows, SessionContext } from "./session";
import { firstPart } from "./screens/members-nav";
import { announce, ErrorText, Heading, LiveRegion, Loading, navigated } from "./ui/page";

const SignIn = lazy(() => import("./screens/sign-in"));
const Reset = lazy(() => import("./screens/reset"));
const SetPassword = lazy(() => import("./screens/set-password"));
const Dashboard = lazy(() => import("./screens/dashboard"));
const Orders = lazy(() => import("./screens/orders"));
const Order = lazy(() => import("./screens/order"));
const Products = lazy(() => import("./screens/products"));
const Product = lazy(() => import("./screens/product"));
const Inventory = lazy(() => import("./screens/inventory"));
const Customers = lazy(() => import("./screens/customers"));
const Customer = lazy(() => import("./screens/customer"));
const Subscriptions = lazy(() => import("./screens/subscriptions"));
const GiftCards = lazy(() => import("./screens/gift-cards"));
const GiftCard = lazy(() => import("./screens/gift-card"));
const Analytics = lazy(() => import("./screens/analytics"));
const PagesScreen = lazy(() => import("./screens/pages"));
const GalleryScreen = lazy(() => import("./screens/gallery"));
const FormsScreen = lazy(() => import("./screens/forms"));
const Settings = lazy(() => import("./screens/settings"));
const Templates = lazy(() => import("./screens/templates"));
const Members = lazy(() => import("./screens/members"));
const Comments = lazy(() => import("./screens/comments"));
const MemberAreas = lazy(() => import("./screens/member-areas"));
const Design = lazy(() => import("./screens/design"));

export const BASE = "/config";

type State = { kind: "loading" } | { kind: "failed"; message: string } | { kind: "out" } | { kind: "in"; me: Me };

export function App() {
  return (
    <Router base={BASE}>
      <Shell />
    </Router>
  );
}

function Shell() {
  const [state, setState] = useState<State>({ kind: "loading" });
  const [location] = useLocation();
  // Counted while rendering (a parent renders before its children, whose effects run first),
  // so the new screen's heading knows to take the focus.
  const seen = useRef(location);
  if (location !== seen.current) {
    seen.current = location;
    navigated();
  }

  const accept = useCallback((me: Me) => {
    setCsrf(me.csrf ?? null);
    setState({ kind: "in", me });
  }, []);
  // From the sign-in (or set-password) form: the form goes away, and the screen that
  // replaces it takes the focus, as after a navigation.
  const signedIn = useCallback(
    (me: Me) => {
      navigated();
      accept(me);
    },
    [accept],
  );
  const load = useCallback(() => {
    setState({ kind: "loading" });
    api<Me>("GET", "/api/owner/session").then(accept, (e: ApiError) =>
      setState(e.status === 401 ? { kind: "out" } : { kind: "failed", message: e.message }),
    );
  }, [accept]);
  useEffect(() => {
    load();
    whenSignedOut(() => {
      setCsrf(null);
      setState({ kind: "out" });
      announce("Your session has ended. Please sign in again.");
    });
    return () => whenSignedOut(null);
  }, [load]);

  const signOut = useCallback(() => {
    api("DELETE", "/api/owner/session").then(
      () => {
        navigated();
        setCsrf(null);
        setState({ kind: "out" });
        announce("You have signed out.");
      },
      (e: ApiError) => announce(e.message),
    );
  }, []);
  const session = useMemo(() => (state.kind === "in" ? { me: state.me, signOut } : null), [state, signOut]);

  let body;
  if (state.kind === "loading") {
    body = (
      <main id="main" class="bare">
        <Loading what="the owner's app" />
      </main>
    );
  } else if (state.kind === "failed") {
    body = (
      <main id="main" class="bare">
        <Heading title="Owner app">The owner's app could not start</Heading>
        <ErrorText message={state.message} />
        <button type="button" onClick={load}>
          Try again
        </button>
      </main>
    );
  } else if (state.kind === "out") {
    body = (
      <main id="main" class="bare">
        <Suspense fallback={<Loading what="the page" />}>
          <Switch>
            <Route path="/reset">
              <ResetOrSet onSignedIn={signedIn} />
            </Route>
            <Route path="/set-password">
              <SetPassword onSignedIn={signedIn} />
            </Route>
            <Route path="/invite">
              <SetPassword onSignedIn={signedIn} />
            </Route>
            <Route>
              <SignIn onSignedIn={signedIn} />
            </Route>
          </Switch>
        </Suspense>
      </main>
    );
  } else {
    body = (
      <SessionContext.Provider value={session}>
        <Layout>
          <Suspense fallback={<Loading what="the page" />}>
            <Screens me={state.me} signedIn={signedIn} />
          </Suspense>
        </Layout>
      </SessionContext.Provider>
    );
  }
  return (
    <>
      {body}
      <LiveRegion />
    </>
  );
}

/** A screen, or a note that this account's role does not open it. */
function Guard({ me, areas, children }: { me: Me; areas: AreaName[]; children: any }) {
  if (allows(me, areas)) return children;
  return (
    <>
      <Heading title="No access">No access</Heading>
      <p>Your role ({me.account?.roleName ?? "this token"}) does not open this page.</p>
    </>
  );
}

function Screens({ me, signedIn }: { me: Me; signedIn: (me: Me) => void }) {
  return (
    <Switch>
      {/* An invite or reset link opened while signed in: setting the password signs in as
          that link's account. */}
      <Route path="/set-password">
        <SetPassword onSignedIn={signedIn} />
      </Route>
      <Route path="/invite">
        <SetPassword onSignedIn={signedIn} />
      </Route>
      <Route path="/">
        <Dashboard />
      </Route>
      <Route path="/orders/:id">
        {(p) => (
          <Guard me={me} areas={["orders"]}>
            <Order id={p.id} />
          </Guard>
        )}
      </Route>
      <Route path="/orders">
        <Guard me={me} areas={["orders"]}>
          <Orders />
        </Guard>
      </Route>
      <Route path="/products/new">
        <Guard me={me} areas={["store"]}>
          <Product />
        </Guard>
      </Route>
      <Route path="/products/:id">
        {(p) => (
          <Guard me={me} areas={["store"]}>
            <Product id={p.id} />
          </Guard>
        )}
      </Route>
      <Route path="/products">
        <Guard me={me} areas={["store"]}>
          <Products />
        </Guard>
      </Route>
      <Route path="/inventory">
        <Guard me={me} areas={["store"]}>
          <Inventory />
        </Guard>
      </Route>
      <Route path="/customers/subscriptions">
        <Guard me={me} areas={["orders"]}>
          <Subscriptions />
        </Guard>
      </Route>
      <Route path="/customers/gift-cards/:id">
        {(p) => (
          <Guard me={me} areas={["orders"]}>
            <GiftCard id={p.id} />
          </Guard>
        )}
      </Route>
      <Route path="/customers/gift-cards">
        <Guard me={me} areas={["orders"]}>
          <GiftCards />
        </Guard>
      </Route>
      <Route path="/customers/:email">
        {(p) => (
          <Guard me={me} areas={["orders"]}>
            <Customer email={decodeURIComponent(p.email)} />
          </Guard>
        )}
      </Route>
      <Route path="/customers">
        <Guard me={me} areas={["orders"]}>
          <Customers />
        </Guard>
      </Route>
      <Route path="/pages">
        <Guard me={me} areas={["content"]}>
          <PagesScreen />
        </Guard>
      </Route>
      <Route path="/galleries/:id">
        {(p) => (
          <Guard me={me} areas={["content"]}>
            <GalleryScreen id={p.id} />
          </Guard>
        )}
      </Route>
      <Route path="/forms/*?">
        <Guard me={me} areas={["forms"]}>
          <FormsScreen />
        </Guard>
      </Route>
      <Route path="/analytics">
        <Guard me={me} areas={["analytics"]}>
          <Analytics />
        </Guard>
      </Route>
      <Route path="/templates">
        <Guard me={me} areas={["design"]}>
          <Templates />
        </Guard>
      </Route>
      <Route path="/members/comments">
        <Guard me={me} areas={["comments"]}>
          <Comments />
        </Guard>
      </Route>
      <Route path="/members/areas">
        <Guard me={me} areas={["content"]}>
          <MemberAreas />
        </Guard>
      </Route>
      <Route path="/members">
        {allows(me, ["orders"]) ? (
          <Members />
        ) : firstPart(me) ? (
          <Redirect to={firstPart(me)!} replace />
        ) : (
          <Guard me={me} areas={["orders"]}>
            <Members />
          </Guard>
        )}
      </Route>
      <Route path="/design">
        <Guard me={me} areas={["design"]}>
          <Design />
        </Guard>
      </Route>
      <Route path="/settings" nest>
        <Guard me={me} areas={["store", "languages", "access"]}>
          <Settings />
        </Guard>
      </Route>
      <Route path="/reset">
        <ResetOrSet onSignedIn={signedIn} />
      </Route>
      <Route>
        <Heading title="Not found">Page not found</Heading>
        <p>There is nothing at this address in the owner's app.</p>
      </Route>
    </Switch>
  );
}

/** `/reset`: asking for a link, or (opened from the emailed link, `?token=`) choosing the
 * new password. Invitations (`/invite?token=`) and first-password links
 * (`/set-password?token=`) choose theirs on the same screen. */
function ResetOrSet({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const token = new URLSearchParams(useSearch()).get("token");
  return token ? <SetPassword onSignedIn={onSignedIn} /> : <Reset />;
}
