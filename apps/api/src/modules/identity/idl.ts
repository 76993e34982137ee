import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import type { IdentityModuleDeps } from "./deps";
import { IDL_PATH } from "./identity-documents";

/** GET /idl.json (SPEC §4.2, §5): the seat program's Anchor IDL (`reserve_seat_sol`, `reserve_seat_spl`, `Seat`). */
export const idlEndpoint = defineEndpoint({
  method: "get",
  path: IDL_PATH,
  operationId: "seatProgramIdl",
  tags: ["identity"],
  summary: "Anchor IDL of the seat program",
  responses: { 200: { description: "Anchor IDL (spec 0.1.0)", body: z.looseObject({}) } },
  handle: (deps: IdentityModuleDeps) =>
    reply.json(deps.identity.documents.idl, { headers: { "Cache-Control": "public, max-age=300" } }),
});
