/**
 * The AES-256-GCM key that encrypts merchants' webhook secrets (DESIGN §8, §9). The API (which issues
 * secrets) and the indexer (which signs with them) must resolve the same key.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AppError } from "@tollgate/shared/errors";
import { readKeyFile } from "@tollgate/shared/key-file";
import { fileProblem, KeyFileError } from "@tollgate/shared/startup-check";
import { parseWebhookKey } from "./secrets";

export const WEBHOOK_KEY_FILE = "webhook-secret.key";

/**
 * The key from WEBHOOK_SECRET_KEY (`value`), else (development only) from `$DATA_DIR/webhook-secret.key`,
 * generated on first use; concurrent first uses agree (exclusive create, then read back). A key file that cannot
 * be created, read or parsed is a KeyFileError naming DATA_DIR and the path (one line at start, exit code 2).
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
  // The variable that decides the path: the file is used only while WEBHOOK_SECRET_KEY is unset.
  const variable = "DATA_DIR (webhook key file, WEBHOOK_SECRET_KEY unset)";
  if (!existsSync(file)) {
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST")
        throw new KeyFileError(variable, file, `cannot be created: ${fileProblem(err)}`, { cause: err });
    }
  }
  const text = readKeyFile(variable, file);
  try {
    return parseWebhookKey(text);
  } catch (error) {
    throw new KeyFileError(variable, file, "does not hold a 32-byte key (base64 or hex)", { cause: error });
  }
}
