/**
 * The facilitator's verification queue (docs/bridge.md "Threat model"). Checking a
 * `/facilitator/verify` or `/settle` body costs CPU (ECDSA recovery, ~3-4 ms) and chain reads, and any stranger may
 * send one. So:
 * - a request is admitted at the door, before its body is read: at most `perClient` admitted per client (429
 *   `rate_limited`) and `capacity` in all (503 `facilitator_busy`); both refusals store nothing;
 * - admitted requests take turns, `concurrency` at a time, round-robin across clients (least recently served first);
 * - while a paid call (the bridge's own paid routes) is in flight, no turn starts, for at most `maxDeferMs` per
 *   waiting request: a real payer is never queued behind a stranger's junk, and facilitator users are delayed,
 *   never starved.
 * Invariant: every ticket and every paid-call mark is given back exactly once (idempotent releases); a released
 * ticket that was waiting leaves the queue without running.
 */
import { AppError } from "@tollgate/shared";

export interface FacilitatorTicket {
  /** Resolves when this request may verify; rejects (503 `facilitator_busy`) if the ticket was released first. */
  turn(): Promise<void>;
  /** Gives the ticket back (idempotent): the turn if running, the place if waiting. */
  release(): void;
}

export interface FacilitatorQueue {
  /** Admits one request of `client`, or throws 429 `rate_limited` / 503 `facilitator_busy`. */
  admit(client: string): FacilitatorTicket;
  /** Marks a paid call in flight; returns its (idempotent) end. */
  paidCall(): () => void;
  /** Admitted, running, waiting (for tests and stats). */
  stats(): { admitted: number; running: number; waiting: number; paidCalls: number };
}

export interface FacilitatorQueueLimits {
  perClient: number;
  capacity: number;
  concurrency: number;
  maxDeferMs: number;
}

export const FACILITATOR_QUEUE_LIMITS: FacilitatorQueueLimits = {
  perClient: 4,
  capacity: 64,
  concurrency: 2,
  maxDeferMs: 500,
};

interface Waiter {
  client: string;
  since: number;
  start: () => void;
  cancel: (error: Error) => void;
}

export function createFacilitatorQueue(
  limits: FacilitatorQueueLimits = FACILITATOR_QUEUE_LIMITS,
  now: () => number = () => performance.now(),
): FacilitatorQueue {
  const admittedBy = new Map<string, number>();
  /** When each client with admitted tickets was last served (a turn counter). */
  const servedAt = new Map<string, number>();
  let turns = 0;
  let admitted = 0;
  let running = 0;
  let paidCalls = 0;
  /** Waiting requests per client with admitted tickets (an entry may be empty until the client has no ticket left). */
  const waiting = new Map<string, Waiter[]>();
  let waitingCount = 0;
  let timer: NodeJS.Timeout | undefined;

  const oldestWait = (): number | undefined => {
    let oldest: number | undefined;
    for (const list of waiting.values())
      if (list.length > 0 && (oldest === undefined || list[0]!.since < oldest)) oldest = list[0]!.since;
    return oldest;
  };

  function pump(): void {
    while (running < limits.concurrency && waitingCount > 0) {
      const oldest = oldestWait()!;
      if (paidCalls > 0 && now() - oldest < limits.maxDeferMs) {
        // Deferred for paid calls: wake up when the oldest waiter's deferral ends (or earlier, when they end).
        if (!timer) {
          timer = setTimeout(
            () => {
              timer = undefined;
              pump();
            },
            Math.max(1, limits.maxDeferMs - (now() - oldest)),
          );
          timer.unref();
        }
        return;
      }
      // Round-robin: the least recently served waiting client goes first (never served: first come).
      let pick: [string, Waiter[]] | undefined;
      for (const entry of waiting)
        if (entry[1].length > 0 && (!pick || (servedAt.get(entry[0]) ?? -1) < (servedAt.get(pick[0]) ?? -1)))
          pick = entry;
      const [client, list] = pick!;
      const next = list.shift()!;
      servedAt.set(client, ++turns);
      waitingCount--;
      running++;
      next.start();
    }
  }

  return {
    admit(client) {
      const mine = admittedBy.get(client) ?? 0;
      if (mine >= limits.perClient)
        throw new AppError(
          "rate_limited",
          `at most ${limits.perClient} facilitator requests in flight per client`,
          { headers: { "Retry-After": "2" } },
        );
      if (admitted >= limits.capacity)
        throw new AppError("facilitator_busy", `at most ${limits.capacity} facilitator requests in flight`, {
          headers: { "Retry-After": "2" },
        });
      admittedBy.set(client, mine + 1);
      admitted++;
      let state: "admitted" | "waiting" | "running" | "released" = "admitted";
      let waiter: Waiter | undefined;
      return {
        turn() {
          if (state !== "admitted") return Promise.reject(new Error(`ticket is ${state}`));
          state = "waiting";
          return new Promise<void>((resolve, reject) => {
            waiter = {
              client,
              since: now(),
              start: () => {
                state = "running";
                resolve();
              },
              cancel: reject,
            };
            const list = waiting.get(client);
            if (list) list.push(waiter);
            else waiting.set(client, [waiter]);
            waitingCount++;
            pump();
          });
        },
        release() {
          if (state === "released") return;
          const was = state;
          state = "released";
          if (was === "waiting" && waiter) {
            const list = waiting.get(client) ?? [];
            const at = list.indexOf(waiter);
            if (at >= 0) {
              list.splice(at, 1);
              waitingCount--;
            }
            waiter.cancel(
              new AppError("facilitator_busy", "the request left the facilitator queue before its turn"),
            );
          }
          const left = (admittedBy.get(client) ?? 1) - 1;
          admitted--;
          if (left > 0) admittedBy.set(client, left);
          else {
            admittedBy.delete(client);
            waiting.delete(client);
            servedAt.delete(client);
          }
          if (was === "running") {
            running--;
            pump();
          }
        },
      };
    },
    paidCall() {
      paidCalls++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        paidCalls--;
        if (paidCalls === 0) {
          if (timer) clearTimeout(timer);
          timer = undefined;
          pump();
        }
      };
    },
    stats: () => ({ admitted, running, waiting: waitingCount, paidCalls }),
  };
}
