/**
 * The merchant console's session and places: who is signed in (the profile load), and which page the URL names
 * (decision 0069). Every section has its own path under /console/, so reload keeps the page, Back and Forward move
 * between pages and a link opens the same page in a new tab; a signed-out visitor is sent to Sign in with the page
 * asked for kept in `next`, and reaches it after signing in.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { type FormProblem, problemOf, toFormProblem } from "../lib/errors";
import { clearSecret, readSecret, storeSecret } from "../lib/session";
import type { MerchantApi, MerchantProfile } from "../lib/trpc";

/** Where the secret is kept; sessionStorage in the app (lib/session.ts). */
export interface SecretStore {
  read: () => string | undefined;
  store: (secret: string) => void;
  clear: () => void;
}

export const sessionStore: SecretStore = { read: readSecret, store: storeSecret, clear: clearSecret };

/** The signed-in merchant's sections; each is the path `/<key>` under the console's base (/console). */
export const SECTIONS = [
  ["start", "Get started"],
  ["dashboard", "Dashboard"],
  ["receipts", "Receipts"],
  ["settlements", "Settlements"],
  ["listings", "Listings"],
  ["webhooks", "Webhooks"],
  ["gateway", "Gateway"],
  ["profile", "Profile and payout"],
] as const;
export type Section = (typeof SECTIONS)[number][0];

/** The section a path names, if any (`/gateway` -> gateway). */
export function sectionOf(pathname: string): Section | undefined {
  const key = pathname.replace(/^\/+|\/+$/g, "");
  return SECTIONS.find(([name]) => name === key)?.[0];
}

/** Where to go after signing in: `next` only when it names a section (never another site or path). */
export function nextSection(search: string): Section | undefined {
  const next = new URLSearchParams(search).get("next");
  return next ? sectionOf(next) : undefined;
}

export type Screen =
  | { kind: "loading" }
  | { kind: "signed-out"; notice?: string }
  | { kind: "secret"; reason: "registered" | "rotated"; merchantId: string; secret: string }
  | { kind: "profile"; merchant: MerchantProfile; notice?: string };

/**
 * The current screen and how to change it: `show` moves to a screen (clearing the last problem, scrolling
 * `mainRef` into view); `go` moves to a path (a new history entry); `loadProfile` reads the profile with the
 * stored secret and opens `to` (an invalid secret signs out). A secret stored earlier in this tab loads the
 * profile on start-up, on whatever page the URL names.
 */
export function useMerchantSession(api: MerchantApi, secrets: SecretStore) {
  const [screen, setScreen] = useState<Screen>(() =>
    secrets.read() ? { kind: "loading" } : { kind: "signed-out" },
  );
  const [problem, setProblem] = useState<FormProblem>();
  const [busy, setBusy] = useState(false);
  const mainRef = useRef<HTMLDivElement>(null);
  const navigate = useNavigate();
  const location = useLocation();
  const section = sectionOf(location.pathname);
  /** A section to open once the profile is shown (after registration or rotation). */
  const destination = useRef<Section | undefined>(undefined);

  const show = useCallback((next: Screen) => {
    setProblem(undefined);
    setScreen(next);
    mainRef.current?.scrollIntoView?.({ block: "start" });
  }, []);

  const go = useCallback(
    (path: string, options: { replace?: boolean } = {}) => {
      navigate(path, options);
      mainRef.current?.scrollIntoView?.({ block: "start" });
    },
    [navigate],
  );

  const loadProfile = useCallback(
    async (notice?: string, to?: Section) => {
      setBusy(true);
      setProblem(undefined);
      try {
        const merchant = await api.me();
        if (to) {
          // Opened by the URL effect below, in the same render that shows the profile.
          destination.current = to;
        }
        show({ kind: "profile", merchant, ...(notice ? { notice } : {}) });
      } catch (error) {
        const code = problemOf(error)?.code;
        if (code === "invalid_merchant_secret" || code === "merchant_auth_required") {
          secrets.clear();
          show({
            kind: "signed-out",
            notice: "That secret is no longer valid. Sign in with the current one.",
          });
        } else {
          setProblem(toFormProblem(error));
        }
      } finally {
        setBusy(false);
      }
    },
    [api, secrets, show],
  );

  // Start-up only (a stored secret from earlier in this tab); later loads are triggered by actions.
  const started = useRef(false);
  const startsLoading = screen.kind === "loading";
  useEffect(() => {
    if (started.current || !startsLoading) return;
    started.current = true;
    void loadProfile();
  }, [loadProfile, startsLoading]);

  // The URL and the session agree: signed in, a path that names no section opens `next` or the dashboard;
  // signed out, a section's path opens Sign in and keeps the section as `next`.
  const signedIn = screen.kind === "profile";
  const signedOut = screen.kind === "signed-out";
  const { pathname, search } = location;
  useEffect(() => {
    const to = destination.current;
    if (signedIn && to) {
      destination.current = undefined;
      if (to !== section) navigate(`/${to}`, { replace: !section });
    } else if (signedIn && !section) {
      navigate(`/${nextSection(search) ?? "dashboard"}`, { replace: true });
    } else if (signedOut && section) {
      navigate(`/signin?next=${encodeURIComponent(`/${section}`)}`, { replace: true });
    } else if (signedOut && pathname !== "/signin" && pathname !== "/register") {
      navigate(`/signin${search}`, { replace: true });
    }
  }, [signedIn, signedOut, section, pathname, search, navigate]);

  return { screen, setScreen, problem, busy, mainRef, show, go, loadProfile, section, location };
}
