/** Renders the public registry documents from one shared snapshot (docs/registry.md). */
import { agentOnboarding } from "./agent-onboarding";
import { buildCapabilities } from "./capabilities-service";
import type { PaymentCapabilities } from "./payment-capabilities.types";
import {
  buildCoverage,
  buildRegistry,
  type RegistryCoverage,
  type SplitterRegistry,
} from "./registry-service";
import type { RegistrySnapshots } from "./snapshot";

export interface DocumentDeps {
  snapshot: RegistrySnapshots;
  env: {
    baseUrl: string;
    identity: { prefix: string; solana: { usdcMint: string; usdtMint: string } };
  };
}

export async function paymentCapabilities(deps: DocumentDeps): Promise<PaymentCapabilities> {
  const snapshot = await deps.snapshot();
  const solana = deps.env.identity.solana;
  return buildCapabilities(
    snapshot.availability,
    { usdc: solana.usdcMint, usdt: solana.usdtMint },
    snapshot.at,
    snapshot.halts,
  );
}

export async function splitterRegistry(deps: DocumentDeps): Promise<SplitterRegistry> {
  const snapshot = await deps.snapshot();
  return buildRegistry(snapshot.availability, snapshot.at);
}

export async function registryCoverage(deps: DocumentDeps): Promise<RegistryCoverage> {
  const snapshot = await deps.snapshot();
  return buildCoverage(snapshot.availability, snapshot.at);
}

export async function agentRegistration(deps: DocumentDeps) {
  return agentOnboarding(await paymentCapabilities(deps), {
    baseUrl: deps.env.baseUrl,
    identityPrefix: deps.env.identity.prefix,
  });
}
