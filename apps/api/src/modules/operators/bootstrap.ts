/**
 * The first operator from the environment (DESIGN §9): `ADMIN_BOOTSTRAP_EMAIL` and
 * `ADMIN_BOOTSTRAP_PASSWORD_FILE` create an owner at start-up when no admin exists yet, and are ignored after.
 * There is never a default password.
 */
import type { Database } from "@tollgate/db";
import { readKeyFile } from "@tollgate/shared/key-file";
import type { Logger } from "../../infra/logger";
import { countAdmins, createAdmin } from "./admin-accounts";

/**
 * Reads a password file: the first line, without its line ending. A missing or unreadable file is a KeyFileError
 * naming `variable` (the environment variable or flag that gave the path) and the path.
 */
export function readPasswordFile(path: string, variable = "ADMIN_BOOTSTRAP_PASSWORD_FILE"): string {
  const [first = ""] = readKeyFile(variable, path).split(/\r?\n/);
  return first;
}

export async function bootstrapFirstAdmin(
  db: Database,
  bootstrap: { email: string; passwordFile: string } | undefined,
  options: { now: Date; log: Logger },
): Promise<"created" | "exists" | "not_configured"> {
  if (!bootstrap) {
    if ((await countAdmins(db)) === 0)
      options.log.warn(
        "no operator account yet: create one with `pnpm admin:create --email <you@example.com>`",
      );
    return "not_configured";
  }
  const created = await createAdmin(
    db,
    { email: bootstrap.email, password: readPasswordFile(bootstrap.passwordFile), role: "owner" },
    { now: options.now, actor: { type: "system", id: "bootstrap" }, onlyIfNone: true },
  );
  if (created)
    options.log.info({ admin_id: created.id, email: created.email }, "first operator created (owner)");
  return created ? "created" : "exists";
}
