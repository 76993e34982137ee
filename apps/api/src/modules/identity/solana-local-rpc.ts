/**
 * A local Solana JSON-RPC endpoint for development and tests. It answers `getAccountInfo`,
 * `getMultipleAccounts`, `getHealth`, `getSlot` and `getVersion` in Solana's wire format, so the gate's real
 * @solana/web3.js client code runs unchanged. Accounts come from a ledger: in memory, or a JSON file (the one
 * `pnpm seat:reserve` writes) re-read when it changes. Binds loopback only.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { PublicKey } from "@solana/web3.js";
import { isLoopbackHost } from "@tollgate/shared";
import { encodeSeat, seatAddress } from "./seat-program";

/** The ledger file in DATA_DIR that `pnpm start`'s local RPC serves and `pnpm seat:reserve` writes. */
export const LOCAL_LEDGER_FILE = "solana-ledger.json";

export interface LedgerAccount {
  owner: string;
  lamports: number;
  /** base64 */
  data: string;
}

export interface LocalLedger {
  get(address: string): LedgerAccount | undefined;
  set(address: string, account: LedgerAccount): void;
  delete(address: string): void;
}

export function memoryLedger(): LocalLedger {
  const accounts = new Map<string, LedgerAccount>();
  return {
    get: (address) => accounts.get(address),
    set: (address, account) => void accounts.set(address, account),
    delete: (address) => void accounts.delete(address),
  };
}

/** A ledger kept in one JSON file (`{"accounts": {address: account}}`), re-read when its mtime changes. */
export function fileLedger(path: string): LocalLedger {
  let cache = new Map<string, LedgerAccount>();
  let seenMtime = -1;
  const load = () => {
    if (!existsSync(path)) return cache;
    const mtime = statSync(path).mtimeMs;
    if (mtime !== seenMtime) {
      const parsed = JSON.parse(readFileSync(path, "utf8")) as { accounts?: Record<string, LedgerAccount> };
      cache = new Map(Object.entries(parsed.accounts ?? {}));
      seenMtime = mtime;
    }
    return cache;
  };
  const save = (accounts: Map<string, LedgerAccount>) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify({ accounts: Object.fromEntries(accounts) }, null, 2)}\n`);
  };
  return {
    get: (address) => load().get(address),
    set(address, account) {
      const accounts = new Map(load());
      accounts.set(address, account);
      save(accounts);
    },
    delete(address) {
      const accounts = new Map(load());
      accounts.delete(address);
      save(accounts);
    },
  };
}

/** Leaves the seat account a `reserve_seat_sol` instruction would: at the PDA, owned by the program. */
export function reserveSeat(
  ledger: LocalLedger,
  input: { programId: PublicKey; agent: PublicKey; agreementHash: Buffer; reservedAt: Date },
): string {
  const { address, bump } = seatAddress(input.programId, input.agent);
  const data = encodeSeat({
    agent: input.agent,
    agreementHash: input.agreementHash,
    reservedAt: BigInt(Math.floor(input.reservedAt.getTime() / 1000)),
    paymentKind: "sol",
    bump,
  });
  // Rent-exempt minimum for 82 bytes (what the runtime would require).
  ledger.set(address.toBase58(), {
    owner: input.programId.toBase58(),
    lamports: 1_461_600,
    data: data.toString("base64"),
  });
  return address.toBase58();
}

/** `reserveSeat` with base58 keys and the current agreement (what `pnpm seat:reserve` does). */
export function reserveSeatFor(
  ledger: LocalLedger,
  agent: string,
  programId: string,
  agreementHash: Buffer,
): string {
  return reserveSeat(ledger, {
    programId: new PublicKey(programId),
    agent: new PublicKey(agent),
    agreementHash,
    reservedAt: new Date(),
  });
}

export interface LocalSolanaRpc {
  url: string;
  ledger: LocalLedger;
  close(): Promise<void>;
}

const SOLANA_CORE_VERSION = { "solana-core": "2.1.21", "feature-set": 1_416_569_292 };
// u64::MAX, as the real RPC sends it for rent-exempt accounts: written into the JSON text as a bare literal.
const RENT_EPOCH_PLACEHOLDER = "__u64_max__";
const RENT_EPOCH_EXEMPT = "18446744073709551615";
const MAX_BODY_BYTES = 64 * 1024;

type RpcRequest = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

export async function startLocalSolanaRpc(
  options: { host?: string; port?: number; ledger?: LocalLedger } = {},
): Promise<LocalSolanaRpc> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host)) throw new Error(`the local Solana RPC binds loopback only, not ${host}`);
  const ledger = options.ledger ?? memoryLedger();
  const startedAt = Date.now();
  const slot = () => Math.floor((Date.now() - startedAt) / 400) + 1;
  const accountValue = (address: unknown) => {
    if (typeof address !== "string") return null;
    const account = ledger.get(address);
    if (!account) return null;
    const data = Buffer.from(account.data, "base64");
    return {
      data: [account.data, "base64"],
      executable: false,
      lamports: account.lamports,
      owner: account.owner,
      rentEpoch: RENT_EPOCH_PLACEHOLDER,
      space: data.length,
    };
  };
  const answer = (request: RpcRequest): Record<string, unknown> => {
    const id = request.id ?? null;
    const ok = (result: unknown) => ({ jsonrpc: "2.0", result, id });
    const fail = (code: number, message: string) => ({ jsonrpc: "2.0", error: { code, message }, id });
    const params = Array.isArray(request.params) ? request.params : [];
    const context = { slot: slot(), apiVersion: SOLANA_CORE_VERSION["solana-core"] };
    switch (request.method) {
      case "getAccountInfo":
        if (!validAddress(params[0])) return fail(-32602, "Invalid param: Invalid");
        return ok({ context, value: accountValue(params[0]) });
      case "getMultipleAccounts": {
        const list = params[0];
        if (!Array.isArray(list) || list.length > 100 || !list.every(validAddress))
          return fail(-32602, "Invalid params");
        return ok({ context, value: list.map(accountValue) });
      }
      case "getHealth":
        return ok("ok");
      case "getSlot":
        return ok(slot());
      case "getVersion":
        return ok(SOLANA_CORE_VERSION);
      default:
        return fail(-32601, "Method not found");
    }
  };
  const server: Server = createServer(async (req, res) => {
    let reply: unknown;
    try {
      const body = await readBody(req);
      const parsed = JSON.parse(body) as RpcRequest | RpcRequest[];
      reply = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed);
    } catch {
      reply = { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null };
    }
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(reply).replaceAll(`"${RENT_EPOCH_PLACEHOLDER}"`, RENT_EPOCH_EXEMPT));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    ledger,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function validAddress(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return new PublicKey(value).toBase58() === value;
  } catch {
    return false;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
