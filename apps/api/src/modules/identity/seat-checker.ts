/**
 * Does this agent own a seat (SPEC §5 step 2)? Reads the seat PDA with @solana/web3.js 1.x
 * `Connection.getAccountInfo` and checks the owner program, the Anchor discriminator, the stored pubkey and the
 * agreement hash. Positive answers are cached briefly; an RPC failure is a 503, never a pass.
 */
import { type AccountInfo, Connection, PublicKey } from "@solana/web3.js";
import { AppError } from "@tollgate/shared";
import type { Clock } from "../../infra/clock";
import { decodeSeat, seatAddress } from "./seat-program";

/** The one RPC call the gate needs; `web3AccountReader` is the real one, tests may pass their own. */
export interface SolanaAccountReader {
  getAccountInfo(address: PublicKey): Promise<AccountInfo<Buffer> | null>;
  /** Cheap liveness probe for the operator dashboard. */
  health(): Promise<{ ok: boolean; slot?: number; error?: string }>;
}

export function web3AccountReader(rpcUrl: string, timeoutMs: number): SolanaAccountReader {
  const connection = new Connection(rpcUrl, {
    commitment: "confirmed",
    disableRetryOnRateLimit: true,
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
  });
  return {
    getAccountInfo: (address) => connection.getAccountInfo(address, "confirmed"),
    async health() {
      try {
        return { ok: true, slot: await connection.getSlot("confirmed") };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}

/** A reader for when no Solana RPC is configured: every seat check is a 503. */
export const unconfiguredAccountReader: SolanaAccountReader = {
  getAccountInfo: () => Promise.reject(new Error("SOLANA_RPC_URL is not set")),
  health: async () => ({ ok: false, error: "SOLANA_RPC_URL is not set" }),
};

export type SeatVerdict =
  | { ok: true }
  | { ok: false; code: "identity_seat_missing" | "identity_seat_outdated"; detail: string };

export interface SeatCheckerOptions {
  programId: PublicKey;
  agreementHash: Buffer;
  cacheMs: number;
  maxCached?: number;
}

export interface SeatCheckStats {
  rpcCalls: number;
  rpcFailures: number;
  cacheHits: number;
}

export class SeatChecker {
  private readonly cache = new Map<string, number>();
  readonly stats: SeatCheckStats = { rpcCalls: 0, rpcFailures: 0, cacheHits: 0 };

  constructor(
    private readonly reader: SolanaAccountReader,
    private readonly clock: Clock,
    private readonly options: SeatCheckerOptions,
  ) {}

  /** `agent` as a PublicKey, or its base58 text (the cache key: no key object is built on a cache hit). */
  async check(agentKey: PublicKey | string): Promise<SeatVerdict> {
    const id = typeof agentKey === "string" ? agentKey : agentKey.toBase58();
    const now = this.clock.now().getTime();
    const cachedUntil = this.cache.get(id);
    if (cachedUntil !== undefined && cachedUntil > now) {
      this.stats.cacheHits++;
      return { ok: true };
    }
    const agent = typeof agentKey === "string" ? new PublicKey(agentKey) : agentKey;
    const { address } = seatAddress(this.options.programId, agent);
    let account: AccountInfo<Buffer> | null;
    this.stats.rpcCalls++;
    try {
      account = await this.reader.getAccountInfo(address);
    } catch (error) {
      this.stats.rpcFailures++;
      throw new AppError("solana_rpc_unavailable", "seat check failed: Solana RPC unavailable", {
        cause: error,
      });
    }
    const verdict = this.judge(agent, account);
    if (verdict.ok) {
      if (this.cache.size >= (this.options.maxCached ?? 10_000)) this.cache.clear();
      this.cache.set(id, now + this.options.cacheMs);
    }
    return verdict;
  }

  private judge(agent: PublicKey, account: AccountInfo<Buffer> | null): SeatVerdict {
    const missing = (detail: string): SeatVerdict => ({ ok: false, code: "identity_seat_missing", detail });
    if (!account) return missing("no seat account at this public key's seat address");
    if (!account.owner.equals(this.options.programId))
      return missing("the seat address is not owned by the seat program");
    const decoded = decodeSeat(account.data);
    if (!decoded.ok) return missing("the account at the seat address is not a Seat");
    if (!decoded.seat.agent.equals(agent)) return missing("the seat belongs to another public key");
    if (!decoded.seat.agreementHash.equals(this.options.agreementHash))
      return {
        ok: false,
        code: "identity_seat_outdated",
        detail: "the seat records an older agreement; reserve a seat for the current agreement_hash",
      };
    return { ok: true };
  }
}

export { PublicKey };
