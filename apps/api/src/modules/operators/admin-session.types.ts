import { z } from "zod";
import { ZAdminMeResponse } from "./admin-me.types";

/** Whether this request carries a live operator session; the signed-in operator when it does. */
export const ZAdminSessionResponse = z.discriminatedUnion("signed_in", [
  z.object({ signed_in: z.literal(false) }),
  ZAdminMeResponse.extend({ signed_in: z.literal(true) }),
]);
