import { ZAdminView } from "@tollgate/shared";
import { z } from "zod";
import { ZAdminEmail } from "./admin-accounts";
import { MAX_PASSWORD_LENGTH } from "./passwords";

export const ZAdminLoginRequest = z.strictObject({
  email: ZAdminEmail,
  // Checked only against the stored hash: length bounds keep argon2 work bounded, nothing else is implied.
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  session: z
    .enum(["cookie", "bearer"])
    .default("cookie")
    .describe("cookie (default, for people): an HttpOnly cookie; bearer (for tools): the token in the body"),
});

export const ZAdminLoginResponse = z.object({
  admin: ZAdminView.pick({ id: true, email: true, role: true }),
  expires_at: z
    .string()
    .describe("idle expiry; using the session pushes it forward up to the absolute limit"),
  token: z
    .string()
    .optional()
    .describe("ases_... only when `session` is bearer; send as Authorization: Bearer"),
});
