import { PublicKey } from "@solana/web3.js";
import type { PlainRoute } from "../../http/plain-route";
import { IDL_PATH } from "./identity-documents";
import { seatProgramIdl } from "./seat-program";

/** GET /idl.json (issue 12): the seat program's Anchor IDL (`reserve_seat_sol`, `reserve_seat_spl`, `Seat`). */
export const idlRoute: PlainRoute = {
  method: "get",
  path: IDL_PATH,
  openapi: {
    operationId: "seatProgramIdl",
    tags: ["identity"],
    summary: "Anchor IDL of the seat program",
    responses: {
      "200": {
        description: "Anchor IDL (spec 0.1.0)",
        content: { "application/json": { schema: { type: "object" } } },
      },
      "500": { $ref: "#/components/responses/Problem500" },
    },
  },
  register(app, deps) {
    const idl = seatProgramIdl(new PublicKey(deps.env.identity.solana.seatProgramId));
    app.get(IDL_PATH, (_req, res) => {
      res.setHeader("Cache-Control", "public, max-age=300");
      res.json(idl);
    });
  },
};
