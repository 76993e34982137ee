/** The merchant console's screens and the signed-in state behind them: the screen shown, the profile load. */
import { useCallback, useEffect, useRef, useState } from "react";
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

/** The signed-in merchant's sections. */
export const SECTIONS = [
  ["dashboard", "Dashboard"],
  ["listings", "Listings"],
  ["webhooks", "Webhooks"],
  ["gateway", "Gateway"],
  ["profile", "Profile and payout"],
] as const;
export type Section = (typeof SECTIONS)[number][0];

export type Screen =
  | { kind: "loading" }
  | { kind: "register" }
  | { kind: "signin"; notice?: string }
  | { kind: "secret"; reason: "registered" | "rotated"; merchantId: string; secret: string }
  | { kind: "profile"; merchant: MerchantProfile; notice?: string; section?: Section };

/**
 * The current screen and how to change it: `show` moves to a screen (clearing the last problem, scrolling
 * `mainRef` into view); `loadProfile` reads the profile with the stored secret, an invalid secret signs out.
 * A secret stored earlier in this tab loads the profile on start-up.
 */
export function useMerchantSession(api: MerchantApi, secrets: SecretStore) {
  const [screen, setScreen] = useState<Screen>(() =>
    secrets.read() ? { kind: "loading" } : { kind: "register" },
  );
  const [problem, setProblem] = useState<FormProblem>();
  const [busy, setBusy] = useState(false);
  const mainRef = useRef<HTMLDivElement>(null);

  const show = useCallback((next: Screen) => {
    setProblem(undefined);
    setScreen(next);
    mainRef.current?.scrollIntoView?.({ block: "start" });
  }, []);

  const loadProfile = useCallback(
    async (notice?: string) => {
      setBusy(true);
      try {
        const merchant = await api.me();
        show({ kind: "profile", merchant, ...(notice ? { notice, section: "profile" as const } : {}) });
      } catch (error) {
        const code = problemOf(error)?.code;
        if (code === "invalid_merchant_secret" || code === "merchant_auth_required") {
          secrets.clear();
          show({ kind: "signin", notice: "That secret is no longer valid. Sign in with the current one." });
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

  return { screen, setScreen, problem, busy, mainRef, show, loadProfile };
}
