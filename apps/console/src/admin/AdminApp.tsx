/**
 * The operator console at /console/admin/*, loaded lazily by main.tsx so the merchant bundle never
 * carries it. The admin session is the HttpOnly cookie; nothing about it is stored in the page.
 */
import "uplot/dist/uPlot.min.css";
import "./admin.css";
import { type FormEvent, useMemo, useState } from "react";
import { BrowserRouter, NavLink, Route, Routes, useLocation, useNavigate } from "react-router";
import { useLoad } from "../hooks/useLoad";
import { usePageTitle } from "../hooks/usePageTitle";
import { AppLayout } from "../shell/AppLayout";
import { AcceptInvitation, INVITE_PATH } from "./AcceptInvitation";
import { codeOf, createAdminClient } from "./api";
import { AdminContext, type AdminSession } from "./context";
import { AccountsPage } from "./pages/Accounts";
import { AgentDetailPage, AgentsPage } from "./pages/Agents";
import { AuditPage } from "./pages/Audit";
import { FailedPage } from "./pages/Failed";
import { FeesPage } from "./pages/Fees";
import { MerchantDetailPage, MerchantsPage } from "./pages/Merchants";
import { ModerationPage } from "./pages/Moderation";
import { OperatorsPage } from "./pages/Operators";
import { OverviewPage } from "./pages/Overview";
import { SearchPage } from "./pages/Search";
import { SolanaPage, TelemetryPage, X402Page } from "./pages/Services";
import { TransactionDetailPage } from "./pages/TransactionDetail";
import { TransactionsListPage } from "./pages/Transactions";
import { WebhooksPage } from "./pages/Webhooks";
import { SignIn } from "./SignIn";
import { operatorPageTitle, SECTIONS } from "./sections";
import { ErrorState, Loading } from "./ui";

export default function AdminApp() {
  const client = useMemo(() => createAdminClient(window.location.origin), []);
  // admin.session answers 200 signed in or not (decision 0069): being signed out is expected, not an error.
  const me = useLoad(() => client.admin.session.query(), "me");
  const session: AdminSession | undefined = useMemo(
    () =>
      me.status === "ready" && me.data.signed_in
        ? {
            client,
            me: {
              admin: me.data.admin,
              session_expires_at: me.data.session_expires_at,
              can_act: me.data.can_act,
            },
            canAct: me.data.can_act,
          }
        : undefined,
    [client, me.status, me.data],
  );

  // The invitation link's page stands before any session: the invitee has no account yet (decision 0071).
  if (window.location.pathname.replace(/\/$/, "") === INVITE_PATH) {
    return (
      <AppLayout area="Operator">
        <AcceptInvitation client={client} token={window.location.hash.slice(1)} />
      </AppLayout>
    );
  }
  if (me.status === "loading" && !me.data) {
    return (
      <AppLayout area="Operator">
        <Loading what="your session" />
      </AppLayout>
    );
  }
  if (!session) {
    const signedOut =
      (me.status === "ready" && !me.data.signed_in) ||
      (me.status === "error" && codeOf(me.error) === "admin_auth_required");
    return (
      <AppLayout area="Operator">
        {signedOut ? (
          <SignIn client={client} onSignedIn={me.reload} />
        ) : (
          <ErrorState error={me.status === "error" ? me.error : undefined} retry={() => void me.reload()} />
        )}
      </AppLayout>
    );
  }
  return (
    <AdminContext.Provider value={session}>
      <BrowserRouter basename="/console/admin">
        <Frame onSignedOut={me.reload}>
          <Routes>
            <Route index element={<OverviewPage />} />
            <Route path="merchants" element={<MerchantsPage />} />
            <Route path="merchants/:id" element={<MerchantDetailPage />} />
            <Route path="agents" element={<AgentsPage />} />
            <Route path="agents/:addr" element={<AgentDetailPage />} />
            <Route path="transactions" element={<TransactionsListPage />} />
            <Route path="transactions/:id" element={<TransactionDetailPage />} />
            <Route path="marketplace" element={<ModerationPage />} />
            <Route path="failed" element={<FailedPage />} />
            <Route path="webhooks" element={<WebhooksPage />} />
            <Route path="fees" element={<FeesPage />} />
            <Route path="telemetry" element={<TelemetryPage />} />
            <Route path="x402" element={<X402Page />} />
            <Route path="solana" element={<SolanaPage />} />
            <Route path="audit" element={<AuditPage />} />
            <Route path="accounts" element={<AccountsPage />} />
            <Route path="operators" element={<OperatorsPage />} />
            <Route path="search" element={<SearchPage />} />
            <Route path="*" element={<p data-testid="not-found">No operator page here.</p>} />
          </Routes>
        </Frame>
      </BrowserRouter>
    </AdminContext.Provider>
  );
}

function PageTitle() {
  usePageTitle(operatorPageTitle(useLocation().pathname), "operator");
  return null;
}

function Frame({ children, onSignedOut }: { children: React.ReactNode; onSignedOut: () => void }) {
  return (
    <AdminContext.Consumer>
      {(session) =>
        session ? (
          <AppLayout
            area="Operator"
            nav={SECTIONS.map(([path, label]) => (
              <NavLink key={path} to={path} end={path === "/"} className="button button--quiet">
                {label}
              </NavLink>
            ))}
            account={<Account session={session} onSignedOut={onSignedOut} />}
          >
            <PageTitle />
            {session.canAct ? null : (
              <p className="banner banner--info" data-testid="viewer-banner">
                You are signed in as a viewer: you can see everything and change nothing.
              </p>
            )}
            {children}
          </AppLayout>
        ) : null
      }
    </AdminContext.Consumer>
  );
}

function Account({ session, onSignedOut }: { session: AdminSession; onSignedOut: () => void }) {
  const navigate = useNavigate();
  const [q, setQ] = useState("");
  function search(event: FormEvent) {
    event.preventDefault();
    if (q.trim()) navigate(`/search?q=${encodeURIComponent(q.trim())}`);
  }
  async function signOut() {
    try {
      await session.client.admin.logout.mutate();
    } finally {
      onSignedOut();
    }
  }
  return (
    <>
      <search className="search-box">
        <form onSubmit={search}>
          <label htmlFor="global-search" className="visually-hidden">
            Search ids, hashes, addresses, names
          </label>
          <input
            id="global-search"
            type="search"
            placeholder="Search id, hash, address, name"
            value={q}
            onChange={(event) => setQ(event.target.value)}
            data-testid="global-search"
          />
        </form>
      </search>
      <span data-testid="admin-who">
        {session.me.admin.email} ({session.me.admin.role})
      </span>
      <button
        type="button"
        className="button button--secondary"
        onClick={signOut}
        data-testid="admin-signout"
      >
        Sign out
      </button>
    </>
  );
}
