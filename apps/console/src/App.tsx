import { type Dispatch, type ReactNode, type SetStateAction, useEffect, useRef } from "react";
import { Link, NavLink } from "react-router";
import { GuideLink } from "./components/GuideLink";
import { Notice, ProblemBanner } from "./components/ProblemBanner";
import { Dashboard } from "./features/dashboard/Dashboard";
import { GatewayPage } from "./features/gateway/GatewayPage";
import { ListingsPage } from "./features/listings/ListingsPage";
import { ProfileEditForm } from "./features/merchant/ProfileEditForm";
import { ProfileView } from "./features/merchant/ProfileView";
import { RegisterForm } from "./features/merchant/RegisterForm";
import { RotateSecret } from "./features/merchant/RotateSecret";
import { PayoutChange } from "./features/payout/PayoutChange";
import { ReceiptsPage } from "./features/receipts/ReceiptsPage";
import { SecretPanel } from "./features/secret/SecretPanel";
import { SignInForm } from "./features/session/SignInForm";
import { SettlementsPage } from "./features/settlements/SettlementsPage";
import { GetStarted } from "./features/start/GetStarted";
import { WebhooksPage } from "./features/webhooks/WebhooksPage";
import { useNetworks } from "./hooks/useNetworks";
import { usePageTitle } from "./hooks/usePageTitle";
import { SECTION_GUIDES } from "./lib/docs";
import type { MerchantApi, MerchantProfile, RotateSecretResult } from "./lib/trpc";
import { AppLayout } from "./shell/AppLayout";
import {
  type Screen,
  SECTIONS,
  type SecretStore,
  type Section,
  sessionStore,
  useMerchantSession,
} from "./shell/merchantSession";

export type { SecretStore } from "./shell/merchantSession";

export function App({ api, secrets = sessionStore }: { api: MerchantApi; secrets?: SecretStore }) {
  const { screen, setScreen, problem, busy, mainRef, show, go, loadProfile, section, location } =
    useMerchantSession(api, secrets);

  function signOut() {
    secrets.clear();
    show({ kind: "signed-out", notice: "Signed out. The secret was removed from this tab." });
    go("/signin");
  }

  const nav = merchantNav(screen);
  const account =
    screen.kind === "profile" ? <SignedInAs name={screen.merchant.name} onSignOut={signOut} /> : null;
  const registering = location.pathname === "/register";
  usePageTitle(merchantPageTitle(screen, section, registering), "merchant");

  useNoticePerSection(section, setScreen);

  return (
    <AppLayout area="Merchant" nav={nav} account={account}>
      <div ref={mainRef}>
        <ProblemBanner problem={problem} testId="app-problem" />
        {screen.kind === "loading" ? (
          <LoadingProfile failed={Boolean(problem)} busy={busy} onRetry={() => void loadProfile()} />
        ) : null}
        {screen.kind === "signed-out" && registering ? (
          <RegisterForm
            api={api}
            onRegistered={(result) =>
              show({
                kind: "secret",
                reason: "registered",
                merchantId: result.merchant_id,
                secret: result.secret,
              })
            }
          />
        ) : null}
        {screen.kind === "signed-out" && !registering ? (
          <>
            <Notice message={screen.notice} testId="signin-notice" />
            <Landing />
            <SignInForm
              api={api}
              onSignedIn={(secret, merchant) => {
                secrets.store(secret);
                // The URL effect then opens the page asked for (`next`) or the dashboard.
                show({ kind: "profile", merchant });
              }}
            />
          </>
        ) : null}
        {screen.kind === "secret" ? (
          <NewSecret
            screen={screen}
            busy={busy}
            onContinue={() => {
              secrets.store(screen.secret);
              void loadProfile(
                screen.reason === "rotated" ? "Secret rotated." : REGISTERED_NEXT_STEP,
                screen.reason === "rotated" ? "profile" : "start",
              );
            }}
          />
        ) : null}
        {screen.kind === "profile" && screen.merchant.suspension ? (
          <SuspensionBanner suspension={screen.merchant.suspension} />
        ) : null}
        {screen.kind === "profile" && section ? (
          <>
            <SectionPage
              api={api}
              section={section}
              merchant={screen.merchant}
              notice={screen.notice}
              onSaved={(saved, notice) =>
                setScreen({
                  kind: "profile",
                  merchant: saved ?? screen.merchant,
                  ...(notice ? { notice } : {}),
                })
              }
              onRotated={(result) => {
                // The old secret is already dead: keep the new one before anything else can fail.
                secrets.store(result.secret);
                show({
                  kind: "secret",
                  reason: "rotated",
                  merchantId: result.merchant_id,
                  secret: result.secret,
                });
              }}
            />
            <GuideLink file={SECTION_GUIDES[section]} testId="section-guide" />
          </>
        ) : null}
      </div>
    </AppLayout>
  );
}

/** A notice belongs to the page it was given on: moving to another section drops it. */
function useNoticePerSection(section: Section | undefined, setScreen: Dispatch<SetStateAction<Screen>>) {
  const shownSection = useRef(section);
  useEffect(() => {
    const before = shownSection.current;
    shownSection.current = section;
    if (before && section && before !== section) {
      setScreen((current) =>
        current.kind === "profile" && current.notice
          ? { kind: "profile", merchant: current.merchant }
          : current,
      );
    }
  }, [section, setScreen]);
}

/** The profile on its way, or the Retry after a failed read (the problem banner above says what failed). */
function LoadingProfile({ failed, busy, onRetry }: { failed: boolean; busy: boolean; onRetry: () => void }) {
  return failed ? (
    <button
      type="button"
      className="button button--secondary"
      disabled={busy}
      onClick={onRetry}
      data-testid="app-retry"
    >
      {busy ? "Trying again…" : "Retry"}
    </button>
  ) : (
    <p role="status" className="muted">
      Loading your profile…
    </p>
  );
}

/** The tab title of what the merchant console shows (decision 0072): its section, or sign-in / register. */
export function merchantPageTitle(
  screen: Screen,
  section: Section | undefined,
  registering: boolean,
): string | undefined {
  if (screen.kind === "profile") return SECTIONS.find(([name]) => name === section)?.[1];
  if (screen.kind === "secret")
    return screen.reason === "registered" ? "Merchant registered" : "Secret rotated";
  if (screen.kind === "signed-out") return registering ? "Register" : "Sign in";
  return undefined;
}

/** A suspension by the operator, on every section while it lasts (docs/decisions/0071-operator-actions-in-the-console.md). */
function SuspensionBanner({ suspension }: { suspension: NonNullable<MerchantProfile["suspension"]> }) {
  return (
    <div className="banner banner--warning" role="alert" data-testid="merchant-suspension">
      <p>
        Your account is suspended by the operator since {new Date(suspension.suspended_at).toLocaleString()}:{" "}
        {suspension.reason}
      </p>
      <p>
        No new quotes or payment challenges are issued and your listings are not public. Payments already made
        are honoured: receipts verify, settlements are recorded and webhooks are delivered.
      </p>
    </div>
  );
}

/** What a new merchant reads first, on the Get started checklist they land on after registering (decision 0074). */
const REGISTERED_NEXT_STEP =
  "Registered and signed in. Work through the steps below; your profile and payout are under Profile and payout.";

/** What Tollgate is, for a visitor who is not signed in: the way in, and the way to register. */
function Landing() {
  return (
    <section className="card" aria-labelledby="landing-heading" data-testid="landing">
      <h1 id="landing-heading">Sell your API to AI agents, paid per call</h1>
      <p>
        Tollgate answers unpaid calls to your API with HTTP 402 and a price. An agent pays on chain in USDC or
        the network's coin, gets a signed receipt, and calls again; the payment goes to your wallet.
      </p>
      <p>
        Put the gate in front of your API (or let Tollgate host the route), publish a listing so agents find
        you, and follow every payment on the dashboard and through signed webhooks.
      </p>
      <div className="actions">
        <Link to="/register" className="button" data-testid="landing-register">
          Register a merchant
        </Link>
        <a href="#signin-heading" className="button button--secondary" data-testid="landing-signin">
          Sign in
        </a>
      </div>
      <p className="muted">New here? Registering takes a minute and starts in test mode, on test networks.</p>
    </section>
  );
}

/** The merchant console's navigation: the sections when signed in, else sign in and register. */
function merchantNav(screen: Screen): ReactNode {
  if (screen.kind === "profile") {
    return SECTIONS.map(([key, label]) => (
      <NavItem key={key} name={key} to={`/${key}`}>
        {label}
      </NavItem>
    ));
  }
  if (screen.kind !== "signed-out") return null;
  return (
    <>
      <NavItem name="signin" to="/signin">
        Sign in
      </NavItem>
      <NavItem name="register" to="/register">
        Register
      </NavItem>
    </>
  );
}

/** The signed-in merchant's current section. */
function SectionPage({
  api,
  section,
  merchant,
  notice,
  onSaved,
  onRotated,
}: {
  api: MerchantApi;
  section: Section;
  merchant: MerchantProfile;
  notice: string | undefined;
  /** A saved profile and what to tell (no profile: nothing was saved, only the notice changes). */
  onSaved: (merchant: MerchantProfile | undefined, notice?: string) => void;
  onRotated: (result: RotateSecretResult) => void;
}) {
  if (section === "start") return <GetStarted api={api} merchant={merchant} notice={notice} />;
  if (section === "dashboard") return <Dashboard api={api} />;
  if (section === "receipts") return <ReceiptsPage api={api} merchant={merchant} />;
  if (section === "settlements") return <SettlementsPage api={api} merchant={merchant} />;
  if (section === "listings") return <ListingsPage api={api} merchant={merchant} />;
  if (section === "webhooks")
    return <WebhooksPage api={api} merchant={merchant} onSaved={(saved) => onSaved(saved)} />;
  if (section === "gateway") return <GatewayPage api={api} merchant={merchant} />;
  return (
    <ProfileSection api={api} merchant={merchant} notice={notice} onSaved={onSaved} onRotated={onRotated} />
  );
}

/** Who is signed in, and the way out. */
function SignedInAs({ name, onSignOut }: { name: string; onSignOut: () => void }) {
  return (
    <>
      <span className="topbar__who" data-testid="signed-in-as">
        {name}
      </span>
      <button type="button" className="button button--quiet" onClick={onSignOut} data-testid="nav-signout">
        Sign out
      </button>
    </>
  );
}

/** The secret just issued (registration or rotation), shown once before the merchant continues. */
function NewSecret({
  screen,
  busy,
  onContinue,
}: {
  screen: Extract<Screen, { kind: "secret" }>;
  busy: boolean;
  onContinue: () => void;
}) {
  return (
    <SecretPanel
      heading={screen.reason === "registered" ? "Merchant registered" : "Secret rotated"}
      {...(screen.reason === "rotated"
        ? { note: "The previous secret no longer works. This tab is already signed in with the new one." }
        : { continueLabel: "Continue to Get started" })}
      merchantId={screen.merchantId}
      secret={screen.secret}
      busy={busy}
      onContinue={onContinue}
    />
  );
}

/** A navigation link of the merchant console (a real URL); the current one is marked for assistive technology. */
function NavItem({ name, to, children }: { name: string; to: string; children: ReactNode }) {
  return (
    <NavLink to={to} className="button button--quiet" data-testid={`nav-${name}`}>
      {children}
    </NavLink>
  );
}

/** Profile and payout: the profile, its edit form, the payout change and the secret rotation. */
function ProfileSection({
  api,
  merchant,
  notice,
  onSaved,
  onRotated,
}: {
  api: MerchantApi;
  merchant: MerchantProfile;
  notice: string | undefined;
  /** The saved profile and what to tell; no profile when nothing was saved. */
  onSaved: (merchant: MerchantProfile | undefined, notice: string) => void;
  onRotated: (result: RotateSecretResult) => void;
}) {
  const networks = useNetworks(api);
  return (
    <>
      <Notice message={notice} testId="profile-notice" />
      <div className="grid">
        <ProfileView merchant={merchant} networks={networks} />
        <ProfileEditForm
          key={merchant.updated_at}
          api={api}
          merchant={merchant}
          onSaved={(saved) => onSaved(saved, saved ? "Profile saved." : "Nothing to save: no field changed.")}
        />
        <PayoutChange
          key={`payout-${merchant.updated_at}`}
          api={api}
          merchant={merchant}
          onChanged={(changed) => onSaved(changed, "Payout changed.")}
        />
        <RotateSecret api={api} merchantId={merchant.merchant_id} onRotated={onRotated} />
      </div>
    </>
  );
}
