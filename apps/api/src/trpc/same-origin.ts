/**
 * Same-origin proof for state changes made with a session cookie (DESIGN.md §9), shared by the operator and the
 * user session: the `x-tollgate-csrf` header, and an allowed `Origin` when the browser sends one (docs/users.md).
 */
import { ADMIN_CSRF_HEADER, AppError } from "@tollgate/shared";
import type { Context } from "./trpc";

export function assertSameOrigin(
  ctx: Pick<Context, "header">,
  allowedOrigins: readonly string[],
  session: string,
): void {
  const origin = ctx.header("origin");
  if (origin !== undefined && !allowedOrigins.includes(origin)) {
    throw new AppError("csrf_check_failed", `requests from ${origin} may not act with ${session}`);
  }
  if (!ctx.header(ADMIN_CSRF_HEADER)) {
    throw new AppError(
      "csrf_check_failed",
      `send the ${ADMIN_CSRF_HEADER} header with state-changing requests`,
    );
  }
}
