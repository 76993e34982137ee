/**
 * The AES-256-GCM key that encrypts merchants' webhook secrets (DESIGN §8, §9). The API (which issues
 * secrets) and the indexer (which signs with them) must resolve the same key.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AppError } from "@tollgate/shared/errors";
import { parseWebhookKey } from "./secrets";

export const WEBHOOK_KEY_FILE = "webhook-secret.key";

/**
 * The key from WEBHOOK_SECRET_KEY (`value`), else (development only) from `$DATA_DIR/webhook-secret.key`,
 * generated on first use; concurrent first uses agree (exclusive create, then read back).
 */
export function loadWebhookSecretKey(options: {
  value?: string | undefined;
  dataDir: string;
  development: boolean;
}): Buffer {
  if (options.value) return parseWebhookKey(options.value);
  if (!options.development)
    throw new AppError("internal_error", "WEBHOOK_SECRET_KEY is required in production");
  const file = join(options.dataDir, WEBHOOK_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return parseWebhookKey(readFileSync(file, "utf8"));
}
