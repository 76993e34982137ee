/**
 * `pnpm keys:rotate [--lead-seconds N]`: publishes a new receipt signing key that starts signing after the
 * lead (default JWKS_CACHE_SECONDS + 35 s: longer than any cached JWKS and verifiers' refetch cooldown), when
 * the current key retires. Running API
 * processes pick the change up within seconds; the retired key stays in the JWKS for its grace period
 * (longest receipt lifetime + one JWKS cache lifetime), so receipts already issued keep verifying.
 * `--lead-seconds 0` is for replacing a compromised key.
 */
import { parseArgs } from "node:util";
import { loadEnv } from "../env";
import { activationLeadSeconds, rotateReceiptKey } from "../modules/receipts/receipt-keys";

const env = loadEnv();
const { values } = parseArgs({ options: { "lead-seconds": { type: "string" } } });
const lead = Number(values["lead-seconds"] ?? activationLeadSeconds(env.receipts.jwksCacheSeconds));
if (!Number.isInteger(lead) || lead < 0) {
  console.error("--lead-seconds must be a whole number of seconds >= 0");
  process.exit(2);
}
const { kid, activatesAt, retired } = await rotateReceiptKey(env.receiptKeysFile, new Date(), lead);
const graceHours = (env.receipts.ttlSeconds + env.receipts.jwksCacheSeconds) / 3600;
console.log(
  `new receipt signing key ${kid} is published; it signs from ${activatesAt.toISOString()} (${env.receiptKeysFile})`,
);
for (const old of retired)
  console.log(`retiring ${old} then; it stays published for ${graceHours.toFixed(1)} h after`);
