/**
 * `pnpm seat:reserve <base58 pubkey> [--agreement-hash <hex>]`: creates a seat on the local Solana
 * RPC that `pnpm start` runs, exactly as a `reserve_seat_sol` instruction would leave it (at the seat PDA, owned
 * by the seat program, recording the current agreement hash). It writes the local ledger file in DATA_DIR;
 * the running local RPC re-reads it, so no restart is needed. Real networks: use the program's instructions.
 */
import { join } from "node:path";
import { PublicKey } from "@solana/web3.js";
import { EnvError, loadEnv } from "../env";
import { agreementHashHex } from "../modules/identity/identity-documents";
import { decodeBase58Exact } from "../modules/identity/identity-signature";
import { fileLedger, LOCAL_LEDGER_FILE, reserveSeat } from "../modules/identity/solana-local-rpc";

function main(args: string[]): number {
  const env = loadEnv();
  const pubkey = args.find((arg) => !arg.startsWith("--"));
  const hashAt = args.indexOf("--agreement-hash");
  const agreementHash = hashAt >= 0 ? args[hashAt + 1] : agreementHashHex();
  if (!pubkey || !decodeBase58Exact(pubkey, 32)) {
    console.error("usage: pnpm seat:reserve <base58 Ed25519 public key> [--agreement-hash <64 hex>]");
    return 2;
  }
  if (!agreementHash || !/^[0-9a-f]{64}$/.test(agreementHash)) {
    console.error("--agreement-hash must be 64 lower-case hex characters");
    return 2;
  }
  const ledgerPath = join(env.dataDir, LOCAL_LEDGER_FILE);
  const address = reserveSeat(fileLedger(ledgerPath), {
    programId: new PublicKey(env.identity.solana.seatProgramId),
    agent: new PublicKey(pubkey),
    agreementHash: Buffer.from(agreementHash, "hex"),
    reservedAt: new Date(),
  });
  console.log(`✔ seat for ${pubkey} at ${address} (program ${env.identity.solana.seatProgramId})`);
  console.log(`  ledger ${ledgerPath}; agreement_hash ${agreementHash}`);
  if (env.identity.solana.rpcUrl)
    console.log(
      `  note: SOLANA_RPC_URL is set (${env.identity.solana.rpcUrl}); this seat exists only on the local RPC`,
    );
  return 0;
}

try {
  process.exit(main(process.argv.slice(2)));
} catch (error) {
  console.error(
    error instanceof EnvError ? error.message : `✖ ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
