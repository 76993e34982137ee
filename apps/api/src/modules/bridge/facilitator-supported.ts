import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import type { BridgeContext } from "./wiring";

/** `GET /facilitator/supported` (x402 facilitator API): the kinds this facilitator verifies and settles. */
export const facilitatorSupportedEndpoint = defineEndpoint({
  method: "get",
  path: "/facilitator/supported",
  operationId: "facilitator-supported",
  tags: ["bridge"],
  summary: "x402 facilitator /supported",
  description: "The x402 facilitator wire format.",
  responses: { 200: { description: "x402 format", body: z.looseObject({}) } },
  handle(ctx: BridgeContext) {
    const relayer = ctx.facilitator.relayer;
    return reply.json({
      kinds: [
        { x402Version: 1, scheme: "exact", network: ctx.wireNetwork(1) },
        { x402Version: 2, scheme: "exact", network: ctx.wireNetwork(2) },
        // docs/decisions/0085: the relayer is the only `witness.facilitator` settled.
        ...(ctx.upto
          ? [
              {
                x402Version: 2,
                scheme: "upto",
                network: ctx.wireNetwork(2),
                extra: { facilitatorAddress: ctx.upto.relayer },
              },
            ]
          : []),
      ],
      extensions: [],
      signers: relayer ? { "eip155:*": [relayer] } : {},
    });
  },
});
