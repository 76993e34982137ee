import { z } from "zod";

export const ZAdminLogoutRequest = z.strictObject({}).optional();
export const ZAdminLogoutResponse = z.object({
  signed_out: z.boolean().describe("true when a live session was revoked; signing out twice is not an error"),
});
