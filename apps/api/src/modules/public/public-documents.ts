/** Renders the public registry documents from one shared snapshot (issue 13). */
import type { Deps } from "../../deps";
import { agentOnboarding } from "./agent-onboarding";
import { buildCapabilities, type PaymentCapabilities } from "./capabilities-service";
import {
  buildCoverage,
  buildRegistry,
  type RegistryCoverage,
  type SplitterRegistry,
} from "./registry-service";
import { registrySnapshot } from "./snapshot";

type DocumentDeps = Pick<Deps, "chains" | "quoteSigner" | "pause" | "clock" | "env">;

export async function paymentCapabilities(deps: DocumentDeps): Promise<PaymentCapabilities> {
  const snapshot = await registrySnapshot(deps);
  const solana = deps.env.identity.solana;
  return buildCapabilities(
    snapshot.availability,
    { usdc: solana.usdcMint, usdt: solana.usdtMint },
    snapshot.at,
  );
}

export async function splitterRegistry(deps: DocumentDeps): Promise<SplitterRegistry> {
  const snapshot = await registrySnapshot(deps);
  return buildRegistry(snapshot.availability, snapshot.at);
}

export async function registryCoverage(deps: DocumentDeps): Promise<RegistryCoverage> {
  const snapshot = await registrySnapshot(deps);
  return buildCoverage(snapshot.availability, snapshot.at);
}

export async function agentRegistration(deps: DocumentDeps) {
  return agentOnboarding(await paymentCapabilities(deps), {
    baseUrl: deps.env.baseUrl,
    identityPrefix: deps.env.identity.prefix,
  });
}
