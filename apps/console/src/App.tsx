import type { ReactNode } from "react";
import { Notice, ProblemBanner } from "./components/ProblemBanner";
import { Dashboard } from "./features/dashboard/Dashboard";
import { GatewayPage } from "./features/gateway/GatewayPage";
import { ListingsPage } from "./features/listings/ListingsPage";
import { ProfileEditForm } from "./features/merchant/ProfileEditForm";
import { ProfileView } from "./features/merchant/ProfileView";
import { RegisterForm } from "./features/merchant/RegisterForm";
import { RotateSecret } from "./features/merchant/RotateSecret";
import { PayoutChange } from "./features/payout/PayoutChange";
import { SecretPanel } from "./features/secret/SecretPanel";
import { SignInForm } from "./features/session/SignInForm";
import { WebhooksPage } from "./features/webhooks/WebhooksPage";
import { useNetworks } from "./hooks/useNetworks";
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
  const { screen, setScreen, problem, busy, mainRef, show, loadProfile } = useMerchantSession(api, secrets);

  function signOut() {
    secrets.clear();
    show({ kind: "signin", notice: "Signed out. The secret was removed from this tab." });
  }

  const section: Section = screen.kind === "profile" ? (screen.section ?? "dashboard") : "dashboard";
  const nav = merchantNav(screen, section, show);
  const account =
    screen.kind === "profile" ? <SignedInAs name={screen.merchant.name} onSignOut={signOut} /> : null;
  const keepSection = (merchant: MerchantProfile, notice?: string) =>
    setScreen({ kind: "profile", merchant, section, ...(notice ? { notice } : {}) });

  return (
    <AppLayout area="Merchant" nav={nav} account={account}>
      <div ref={mainRef}>
        <ProblemBanner problem={problem} testId="app-problem" />
        {screen.kind === "loading" ? (
          <p role="status" className="muted">
            Loading your profile…
          </p>
        ) : null}
        {screen.kind === "register" ? (
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
        {screen.kind === "signin" ? (
          <>
            <Notice message={screen.notice} testId="signin-notice" />
            <SignInForm
              api={api}
              onSignedIn={(secret, merchant) => {
                secrets.store(secret);
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
              void loadProfile(screen.reason === "rotated" ? "Secret rotated." : undefined);
            }}
          />
        ) : null}
        {screen.kind === "profile" ? (
          <SectionPage
            api={api}
            section={section}
            merchant={screen.merchant}
            notice={screen.notice}
            onSaved={(saved, notice) =>
              saved ? keepSection(saved, notice) : setScreen({ ...screen, notice })
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
        ) : null}
      </div>
    </AppLayout>
  );
}

/** The merchant console's navigation: the sections when signed in, else register and sign in. */
function merchantNav(screen: Screen, section: Section, show: (next: Screen) => void): ReactNode {
  return screen.kind === "profile" ? (
    SECTIONS.map(([key, label]) => (
      <NavButton
        key={key}
        name={key}
        current={section === key}
        onClick={() => show({ kind: "profile", merchant: screen.merchant, section: key })}
      >
        {label}
      </NavButton>
    ))
  ) : screen.kind === "register" || screen.kind === "signin" ? (
    <>
      <NavButton
        name="register"
        current={screen.kind === "register"}
        onClick={() => show({ kind: "register" })}
      >
        Register
      </NavButton>
      <NavButton name="signin" current={screen.kind === "signin"} onClick={() => show({ kind: "signin" })}>
        Sign in
      </NavButton>
    </>
  ) : null;
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
  if (section === "dashboard") return <Dashboard api={api} />;
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
        : {})}
      merchantId={screen.merchantId}
      secret={screen.secret}
      busy={busy}
      onContinue={onContinue}
    />
  );
}

/** A navigation button of the merchant console; the current one is marked for assistive technology. */
function NavButton({
  name,
  current,
  onClick,
  children,
}: {
  name: string;
  current: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className="button button--quiet"
      aria-current={current ? "page" : undefined}
      onClick={onClick}
      data-testid={`nav-${name}`}
    >
      {children}
    </button>
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
