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

/** The queue's bookkeeping, shared by its tickets and paid-call marks. */
interface QueueState {
  limits: FacilitatorQueueLimits;
  now: () => number;
  admittedBy: Map<string, number>;
  /** When each client with admitted tickets was last served (a turn counter). */
  servedAt: Map<string, number>;
  turns: number;
  admitted: number;
  running: number;
  paidCalls: number;
  /** Waiting requests per client with admitted tickets (an entry may be empty until the client has no ticket left). */
  waiting: Map<string, Waiter[]>;
  waitingCount: number;
  timer: NodeJS.Timeout | undefined;
}

export function createFacilitatorQueue(
  limits: FacilitatorQueueLimits = FACILITATOR_QUEUE_LIMITS,
  now: () => number = () => performance.now(),
): FacilitatorQueue {
  const queue: QueueState = {
    limits,
    now,
    admittedBy: new Map(),
    servedAt: new Map(),
    turns: 0,
    admitted: 0,
    running: 0,
    paidCalls: 0,
    waiting: new Map(),
    waitingCount: 0,
    timer: undefined,
  };
  return {
    admit: (client) => admit(queue, client),
    paidCall: () => startPaidCall(queue),
    stats: () => ({
      admitted: queue.admitted,
      running: queue.running,
      waiting: queue.waitingCount,
      paidCalls: queue.paidCalls,
    }),
  };
}

function oldestWait(queue: QueueState): number | undefined {
  let oldest: number | undefined;
  for (const list of queue.waiting.values())
    if (list.length > 0 && (oldest === undefined || list[0]!.since < oldest)) oldest = list[0]!.since;
  return oldest;
}

/** Starts waiting turns while there is room, unless paid calls defer them. */
function pump(queue: QueueState): void {
  const { limits, now } = queue;
  while (queue.running < limits.concurrency && queue.waitingCount > 0) {
    const oldest = oldestWait(queue)!;
    if (queue.paidCalls > 0 && now() - oldest < limits.maxDeferMs) {
      // Deferred for paid calls: wake up when the oldest waiter's deferral ends (or earlier, when they end).
      if (!queue.timer) {
        queue.timer = setTimeout(
          () => {
            queue.timer = undefined;
            pump(queue);
          },
          Math.max(1, limits.maxDeferMs - (now() - oldest)),
        );
        queue.timer.unref();
      }
      return;
    }
    // Round-robin: the least recently served waiting client goes first (never served: first come).
    let pick: [string, Waiter[]] | undefined;
    for (const entry of queue.waiting)
      if (
        entry[1].length > 0 &&
        (!pick || (queue.servedAt.get(entry[0]) ?? -1) < (queue.servedAt.get(pick[0]) ?? -1))
      )
        pick = entry;
    const [client, list] = pick!;
    const next = list.shift()!;
    queue.servedAt.set(client, ++queue.turns);
    queue.waitingCount--;
    queue.running++;
    next.start();
  }
}

function admit(queue: QueueState, client: string): FacilitatorTicket {
  const { limits } = queue;
  const mine = queue.admittedBy.get(client) ?? 0;
  if (mine >= limits.perClient)
    throw new AppError(
      "rate_limited",
      `at most ${limits.perClient} facilitator requests in flight per client`,
      {
        headers: { "Retry-After": "2" },
      },
    );
  if (queue.admitted >= limits.capacity)
    throw new AppError("facilitator_busy", `at most ${limits.capacity} facilitator requests in flight`, {
      headers: { "Retry-After": "2" },
    });
  queue.admittedBy.set(client, mine + 1);
  queue.admitted++;
  const ticket: TicketState = { client, state: "admitted", waiter: undefined };
  return {
    turn: () => takeTurn(queue, ticket),
    release: () => releaseTicket(queue, ticket),
  };
}

interface TicketState {
  client: string;
  state: "admitted" | "waiting" | "running" | "released";
  waiter: Waiter | undefined;
}

function takeTurn(queue: QueueState, ticket: TicketState): Promise<void> {
  if (ticket.state !== "admitted") return Promise.reject(new Error(`ticket is ${ticket.state}`));
  ticket.state = "waiting";
  return new Promise<void>((resolve, reject) => {
    const waiter: Waiter = {
      client: ticket.client,
      since: queue.now(),
      start: () => {
        ticket.state = "running";
        resolve();
      },
      cancel: reject,
    };
    ticket.waiter = waiter;
    const list = queue.waiting.get(ticket.client);
    if (list) list.push(waiter);
    else queue.waiting.set(ticket.client, [waiter]);
    queue.waitingCount++;
    pump(queue);
  });
}

function releaseTicket(queue: QueueState, ticket: TicketState): void {
  if (ticket.state === "released") return;
  const was = ticket.state;
  const { client, waiter } = ticket;
  ticket.state = "released";
  if (was === "waiting" && waiter) {
    const list = queue.waiting.get(client) ?? [];
    const at = list.indexOf(waiter);
    if (at >= 0) {
      list.splice(at, 1);
      queue.waitingCount--;
    }
    waiter.cancel(new AppError("facilitator_busy", "the request left the facilitator queue before its turn"));
  }
  const left = (queue.admittedBy.get(client) ?? 1) - 1;
  queue.admitted--;
  if (left > 0) queue.admittedBy.set(client, left);
  else {
    queue.admittedBy.delete(client);
    queue.waiting.delete(client);
    queue.servedAt.delete(client);
  }
  if (was === "running") {
    queue.running--;
    pump(queue);
  }
}

function startPaidCall(queue: QueueState): () => void {
  queue.paidCalls++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    queue.paidCalls--;
    if (queue.paidCalls === 0) {
      if (queue.timer) clearTimeout(queue.timer);
      queue.timer = undefined;
      pump(queue);
    }
  };
}
