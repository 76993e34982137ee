import type { Database } from "@tollgate/db";
import type { EvmNetworkName } from "@tollgate/shared";
import type { Logger } from "../../infra/logger";
import type { RateLimiter } from "../../infra/rate-limit";
import type { ProviderCatalog, ProviderConfig } from "../bridge";
import type { ChainRegistry } from "../chains";
import type { AdminAuth } from "../operators";
import type { AvailabilityDeps } from "./availability";
import type { DocumentDeps } from "./public-documents";

/** What the public module is handed by the app (docs/architecture.md). */
export type PublicDeps = AvailabilityDeps &
  Omit<DocumentDeps, "snapshot"> & {
    db: { db: Database };
    log: Logger;
    chains: ChainRegistry;
    adminAuth: AdminAuth;
    limiters: { publicSurface: RateLimiter };
    /** The providers the bridge serves now (the database); undefined when no bridge is mounted. */
    bridgeProviders: ProviderCatalog | undefined;
    env: { bridge: { network: EvmNetworkName; providers: readonly ProviderConfig[] } | undefined };
  };

/** The public endpoints also read the module's registry snapshot, made once by {@link publicModule}. */
export type PublicEndpointDeps = PublicDeps & DocumentDeps;
