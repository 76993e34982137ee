/**
 * Identity-gate verification benchmark (issue 12): verifications per second on one core of the gate's whole check
 * (base58 decodes, sha256, Ed25519 via node:crypto, atomic nonce consume in the memory store, seat cache warm)
 * against raw node:crypto Ed25519 verification of the same digests, measured in the same run. Goal: >= 0.8 of raw.
 * Signing and nonce issuance happen before the timed phase. Figures only.
 *   pnpm exec tsx bench/identity-verify.ts
 */
import { createPublicKey, sign, verify } from "node:crypto";
import { cpus } from "node:os";
import {
  CURRENT_AGREEMENT_HASH,
  DEFAULT_SEAT_PROGRAM,
  encodeSeat,
  IdentityGate,
  identityMessageDigest,
  memoryNonceStore,
  SeatChecker,
  type SolanaAccountReader,
  seatAddress,
  testAgent,
} from "@tollgate/api/testing/identity";

const AGENTS = 64;
const REQUESTS = Number(process.env.BENCH_IDENTITY_REQUESTS ?? 20_000);
const agents = Array.from({ length: AGENTS }, () => testAgent());
const accounts = new Map(
  agents.map((agent) => [
    seatAddress(DEFAULT_SEAT_PROGRAM, agent.publicKey).address.toBase58(),
    {
      owner: DEFAULT_SEAT_PROGRAM,
      data: encodeSeat({
        agent: agent.publicKey,
        agreementHash: CURRENT_AGREEMENT_HASH,
        reservedAt: 0n,
        paymentKind: "sol",
        bump: 255,
      }),
      lamports: 1,
      executable: false,
      rentEpoch: 0,
    },
  ]),
);
const reader: SolanaAccountReader = {
  getAccountInfo: async (address) => accounts.get(address.toBase58()) ?? null,
  health: async () => ({ ok: true }),
};
const clock = { now: () => new Date() };
const unlimited = { consume: async () => {} };
const gate = new IdentityGate({
  clock,
  store: memoryNonceStore(REQUESTS * 2),
  seats: new SeatChecker(reader, clock, {
    programId: DEFAULT_SEAT_PROGRAM,
    agreementHash: CURRENT_AGREEMENT_HASH,
    cacheMs: 3_600_000,
  }),
  prefix: "tollgate",
  lifetimeSeconds: 3600,
  issueLimiters: { perClient: unlimited, total: unlimited },
});

async function signedRequests(count: number) {
  const out: { headers: Record<string, string>; digest: Buffer; agent: (typeof agents)[number] }[] = [];
  for (let i = 0; i < count; i++) {
    const agent = agents[i % AGENTS]!;
    const { nonce } = await gate.issueNonce("bench");
    out.push({
      headers: agent.headers(nonce),
      digest: identityMessageDigest("tollgate", nonce, agent.pubkey),
      agent,
    });
  }
  return out;
}

// Warm the seat cache and the key cache.
for (const request of await signedRequests(AGENTS)) {
  await gate.authenticate({
    pubkey: request.headers["x-agent-pubkey"],
    nonce: request.headers["x-nonce"],
    signature: request.headers["x-signature"],
  });
}
const requests = await signedRequests(REQUESTS);
const publicKeys = new Map(agents.map((agent) => [agent, createPublicKey(agent.privateKey)]));
const rawInputs = requests.map((request) => ({
  key: publicKeys.get(request.agent)!,
  digest: request.digest,
  signature: sign(null, request.digest, request.agent.privateKey),
}));

const rawStart = performance.now();
let rawOk = 0;
for (const input of rawInputs) if (verify(null, input.digest, input.key, input.signature)) rawOk++;
const rawSeconds = (performance.now() - rawStart) / 1000;

const gateStart = performance.now();
let gateOk = 0;
for (const request of requests) {
  await gate.authenticate({
    pubkey: request.headers["x-agent-pubkey"],
    nonce: request.headers["x-nonce"],
    signature: request.headers["x-signature"],
  });
  gateOk++;
}
const gateSeconds = (performance.now() - gateStart) / 1000;

const raw = REQUESTS / rawSeconds;
const full = REQUESTS / gateSeconds;
console.log(
  `cpu: ${cpus()[0]?.model ?? "unknown"}; ${REQUESTS} verifications each, one at a time (one core)`,
);
console.table([
  {
    path: "raw node:crypto Ed25519 verify (key imported, bytes decoded)",
    "verifications/s": Math.round(raw),
    ok: rawOk,
  },
  {
    path: "identity gate authenticate (seat cache warm, memory nonces)",
    "verifications/s": Math.round(full),
    ok: gateOk,
  },
]);
console.log(`identity gate / raw = ${(full / raw).toFixed(2)} (goal >= 0.80)`);
