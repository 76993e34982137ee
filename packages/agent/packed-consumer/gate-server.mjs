// A merchant's server as a user of the published @tollgate/gate writes it: plain Node ESM, no TypeScript runtime.
// Copied into a fresh project by src/published-packages.test.ts; prints its URL as one JSON line on stdout.
import { gate } from "@tollgate/gate";
import express from "express";

const { TOLLGATE_API_URL, TOLLGATE_MERCHANT_ID } = process.env;
if (!TOLLGATE_API_URL || !TOLLGATE_MERCHANT_ID)
  throw new Error("TOLLGATE_API_URL and TOLLGATE_MERCHANT_ID are required");

const app = express();
for (const path of ["/v1/library", "/v1/cli"]) {
  app.get(
    path,
    gate({ merchantId: TOLLGATE_MERCHANT_ID, tier: "standard", apiBaseUrl: TOLLGATE_API_URL }),
    (req, res) => {
      res.json({ ok: true, path, receipt_id: req.aifp?.receiptId ?? null });
    },
  );
}
const server = app.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
