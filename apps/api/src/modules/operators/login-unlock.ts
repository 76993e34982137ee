/**
 * Lifting sign-in waits by hand (`pnpm admin:unlock`; decision 0064): forgets the limiter's subjects of an email
 * (from every client) and/or of a client (the client and every account on it), and audits it as
 * `admin.login.unlocked` with what was cleared and the refusals not yet reported.
 */
import type { Database } from "@tollgate/db";
import { type ClientKey, clientKey } from "../../infra/rate-limit";
import { type AuditActor, recordAuditAlone } from "../audit";
import type { LoginLimiter } from "./login-limiter";

export interface UnlockRequest {
  email?: string | undefined;
  /** A client address as given; keyed like every limiter does (an IPv6 address unlocks its /64). */
  address?: string | undefined;
}

export async function unlockSignIns(
  deps: { db: Database; limiter: LoginLimiter; now(): Date },
  request: UnlockRequest,
  actor: AuditActor,
): Promise<{ cleared: string[]; refused: number; client: ClientKey | undefined }> {
  const email = request.email?.trim().toLowerCase() || undefined;
  const client = request.address ? clientKey(request.address) : undefined;
  if (email === undefined && client === undefined)
    throw new Error("name an email, a client address, or both");
  const { subjects, refused } = await deps.limiter.unlock({
    ...(email !== undefined ? { email } : {}),
    ...(client !== undefined ? { client } : {}),
  });
  await recordAuditAlone(
    deps.db,
    {
      actor,
      action: "admin.login.unlocked",
      target:
        email !== undefined ? { type: "admin_email", id: email } : { type: "client", id: String(client) },
      details: { email, client, cleared: subjects.length, refused_unreported: refused },
    },
    deps.now(),
  );
  return { cleared: subjects, refused, client };
}
