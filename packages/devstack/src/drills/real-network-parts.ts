/**
 * Loopback parts of the real-network drill: a merchant's Express server with one route behind `@tollgate/gate`, and
 * a webhook receiver that keeps the raw bytes of every delivery so the test verifies signatures as a merchant would.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import { gate } from "@tollgate/gate";
import { listenOnLoopback } from "@tollgate/shared/test-process";
import express from "express";

/** GET /search behind the gate for `merchantId`'s `tier`, trusting the API at `apiBaseUrl`. */
export async function startGatedMerchant(options: { merchantId: string; tier: string; apiBaseUrl: string }) {
  const app = express();
  app.get("/search", gate(options), (req, res) => {
    res.json({ ok: true, query: req.query, receipt_id: req.aifp?.receiptId });
  });
  return listenOnLoopback(createServer(app));
}

export interface WebhookDelivery {
  type: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  received: WebhookDelivery[];
  close(): Promise<void>;
}

/** Answers 204 to every POST and records it; `type` is read from the JSON envelope, the signature is not checked here. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: WebhookDelivery[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let type: string | undefined;
    try {
      type = (JSON.parse(body) as { type?: string }).type;
    } catch {
      type = undefined;
    }
    received.push({ type, headers: req.headers, body });
    res.writeHead(204).end();
  });
  const { url, close } = await listenOnLoopback(server);
  return { url: `${url}/webhooks/tollgate`, received, close };
}
