/**
 * The merchant side of the scale-out drill: two merchant processes' worth of `@tollgate/gate` (one Express server
 * per API replica). Each is configured with the public base URL, as a merchant is, and its calls to that URL land
 * on one replica (a load balancer pinning it there): JWKS, prices and the revocation feed come from that replica.
 * Each meters quota in the shared Redis through a RedisQuotaStore of its own, as two merchant processes would.
 */
import { createServer } from "node:http";
import { gate, RedisQuotaStore, RevocationFeed } from "@tollgate/gate";
import { RECEIPT_HEADER } from "@tollgate/shared";
import { listenOnLoopback } from "@tollgate/shared/test-process";
import express from "express";

export interface Shop {
  url: string;
  /** GET /search with the receipt: the status the merchant answered. */
  call(receipt: string): Promise<number>;
  close(): Promise<void>;
}

export async function startShop(options: {
  merchantId: string;
  /** The replica this merchant's calls land on. */
  apiUrl: string;
  /** The public base URL (BASE_URL of every replica): the receipts' issuer. */
  publicUrl: string;
  redisUrl: string;
}): Promise<Shop> {
  const { merchantId, apiUrl, publicUrl, redisUrl } = options;
  const fetchImpl = (input: string | URL, init?: RequestInit) => {
    const url = String(input);
    return fetch(url.startsWith(publicUrl) ? `${apiUrl}${url.slice(publicUrl.length)}` : url, init);
  };
  const quotaStore = new RedisQuotaStore({ redis: redisUrl, merchantId });
  const revocations = new RevocationFeed({ apiBaseUrl: publicUrl, merchantId, fetchImpl });
  const app = express();
  app.get(
    "/search",
    gate({ merchantId, tier: "standard", apiBaseUrl: publicUrl, fetchImpl, quotaStore, revocations }),
    (_req, res) => {
      res.json({ ok: true });
    },
  );
  const server = await listenOnLoopback(createServer(app));
  return {
    url: server.url,
    async call(receipt) {
      const response = await fetch(`${server.url}/search`, { headers: { [RECEIPT_HEADER]: receipt } });
      await response.arrayBuffer();
      return response.status;
    },
    async close() {
      revocations.stop();
      await server.close();
      await quotaStore.close();
    },
  };
}
