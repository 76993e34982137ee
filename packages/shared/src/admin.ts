/**
 * The operator surface's wire constants (SPEC §4.3, §5), shared by the API and the console so both sides agree.
 */
import { z } from "zod";

export const ADMIN_ROLE_NAMES = ["owner", "operator", "viewer"] as const;
export type AdminRoleName = (typeof ADMIN_ROLE_NAMES)[number];

/**
 * State-changing requests made with the admin cookie must carry this header (any non-empty value). A cross-site
 * form cannot set a custom header, and a cross-origin script cannot without a CORS preflight we never grant;
 * the `Origin`, when sent, must also be one of the API's allowed origins.
 */
export const ADMIN_CSRF_HEADER = "x-tollgate-csrf";

export const ZAdminView = z.object({
  id: z.string().describe("adm_..."),
  email: z.string(),
  role: z.enum(ADMIN_ROLE_NAMES),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
  disabled: z.boolean(),
});
export type AdminViewWire = z.infer<typeof ZAdminView>;
