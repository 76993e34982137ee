/**
 * `pnpm keys:rotate`: adds a new active receipt signing key and retires the current one. Running API
 * processes pick the new key up within seconds; the retired key stays in the JWKS for its grace period
 * (longest receipt lifetime + one JWKS cache lifetime), so receipts already issued keep verifying.
 */
import { loadEnv } from "../env";
import { rotateReceiptKey } from "../services/keys/receipt-keys";

const env = loadEnv();
const { kid, retired } = await rotateReceiptKey(env.receiptKeysFile, new Date());
const graceHours = (env.receipts.ttlSeconds + env.receipts.jwksCacheSeconds) / 3600;
console.log(`new receipt signing key ${kid} is active (${env.receiptKeysFile})`);
for (const old of retired) console.log(`retired ${old}: still published for ${graceHours.toFixed(1)} h`);
