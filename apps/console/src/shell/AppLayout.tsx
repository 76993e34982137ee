import type { ReactNode } from "react";

/**
 * The one frame both consoles draw in (one layout and navigation for both roles): brand, the area's
 * navigation, the account slot (who is signed in, sign out) and the page. Router-agnostic: callers pass links or
 * buttons as `nav`, so the merchant console and the operator console share it without sharing their routing.
 */
export function AppLayout({
  area,
  nav,
  account,
  children,
}: {
  /** "Merchant" or "Operator": shown beside the brand so a person with both roles knows where they are. */
  area: string;
  /** Navigation items (links or buttons), already labelled; rendered inside a labelled <nav>. */
  nav?: ReactNode;
  /** Who is signed in and the sign-out control. */
  account?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar__brand">
          <span className="logo" aria-hidden="true">
            402
          </span>
          <span>Tollgate console</span>
          <span className="topbar__area">{area}</span>
        </div>
        {nav ? (
          <nav aria-label={`${area} sections`} className="topbar__nav">
            {nav}
          </nav>
        ) : null}
        {account ? <div className="topbar__account">{account}</div> : null}
      </header>
      <main id="main" className="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
