import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { ThemeToggle } from "../theme/ThemeToggle";

/**
 * The one frame both consoles draw in (one layout and navigation for both roles): brand, the area's
 * navigation, the account slot (who is signed in, sign out) and the page. Router-agnostic: callers pass links or
 * buttons as `nav`, so the merchant console and the operator console share it without sharing their routing.
 *
 * On a narrow screen the navigation and the account slot fold behind a menu button (decision 0070): it says
 * whether the menu is open (aria-expanded), and the menu closes on Escape (focus back on the button), on any
 * navigation (a link or button pressed in it, a search submitted from it, Back/Forward), so the page shown
 * is never covered by a menu left open. On a wide screen the button is hidden and the menu is always shown.
 * The theme control (decision 0073) stays outside the menu, so it is there signed out and on every width.
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
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      toggle.current?.focus();
    };
    const onHistory = () => setOpen(false);
    document.addEventListener("keydown", onKey);
    window.addEventListener("popstate", onHistory);
    return () => {
      document.removeEventListener("keydown", onKey);
      window.removeEventListener("popstate", onHistory);
    };
  }, [open]);

  const hasMenu = Boolean(nav || account);
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
        <div className="topbar__theme">
          <ThemeToggle />
        </div>
        {hasMenu ? (
          <button
            ref={toggle}
            type="button"
            className="button button--secondary topbar__toggle"
            aria-expanded={open}
            aria-controls={menuId}
            onClick={() => setOpen((was) => !was)}
            data-testid="menu-toggle"
          >
            Menu
          </button>
        ) : null}
        {hasMenu ? (
          // A press on a link or button in the menu is a navigation (or sign-out): the menu closes behind it.
          // biome-ignore lint/a11y/noStaticElementInteractions: the handlers only observe presses on the links and buttons inside.
          // biome-ignore lint/a11y/useKeyWithClickEvents: a keyboard press on those links and buttons fires click too.
          <div
            id={menuId}
            className="topbar__menu"
            data-open={open ? "" : undefined}
            onClick={(event) => {
              if ((event.target as Element).closest("a, button")) setOpen(false);
            }}
            onSubmit={() => setOpen(false)}
          >
            {nav ? (
              <nav aria-label={`${area} sections`} className="topbar__nav">
                {nav}
              </nav>
            ) : null}
            {account ? <div className="topbar__account">{account}</div> : null}
          </div>
        ) : null}
      </header>
      <main id="main" className="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
