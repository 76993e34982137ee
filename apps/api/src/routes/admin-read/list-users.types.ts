import { queryInteger, ZAdminView } from "@tollgate/shared";
import { z } from "zod";

export const ZListUsersRequest = z
  .strictObject({
    cursor: z.string().max(400).optional().describe("next_cursor of the previous page"),
    limit: queryInteger({ min: 1, max: 100 }).optional().describe("page size, default 50"),
  })
  .prefault({});

export const ZAdminUserView = ZAdminView.extend({
  kind: z.enum(["admin"]).describe("admin accounts; signed-in user accounts are added by their own work"),
});

export const ZListUsersResponse = z.object({
  users: z.array(ZAdminUserView),
  next_cursor: z.string().nullable(),
});
