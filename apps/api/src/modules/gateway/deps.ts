import type { Logger } from "../../infra/logger";
import type { SellerWiring } from "../bridge";
import type { OfferDeps } from "../marketplace";
import type { MerchantAuth } from "../merchants";
import type { ReceiptKeyStore } from "../receipts";
import type { GatewayServiceDeps } from "./gateway-config-service";

/** What the gateway module is handed by the app (docs/architecture.md). */
export type GatewayDeps = GatewayServiceDeps &
  OfferDeps & {
    log: Logger;
    merchantAuth: MerchantAuth;
    /** The gateway is inside the issuer: receipts verify against these keys, never over the network. */
    keys: ReceiptKeyStore;
    /** The bridge's x402 rails `/g` sells through (docs/decisions/0089); none: only AIFP-1 is offered. */
    x402: SellerWiring | undefined;
    env: {
      redisUrl: string | undefined;
      /** REDIS_KEY_PREFIX: quota counters are keyed `<prefix>quota:` (decision 0059). */
      redisKeyPrefix: string;
      receipts: { ttlSeconds: number };
      gateway: { url: string; timeoutMs: number; maxBodyBytes: number };
    };
  };
