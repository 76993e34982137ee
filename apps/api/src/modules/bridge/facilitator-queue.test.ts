import { AppError } from "@tollgate/shared";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFacilitatorQueue, type FacilitatorTicket } from "./facilitator-queue";

const limits = { perClient: 3, capacity: 5, concurrency: 1, maxDeferMs: 500 };

/** Lets every settled promise's continuations run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("expected a refusal");
}

describe("facilitator queue", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("admits up to the per-client bound (429 rate_limited) and the capacity (503 facilitator_busy)", () => {
    const queue = createFacilitatorQueue(limits);
    const a = [queue.admit("a"), queue.admit("a"), queue.admit("a")];
    const perClient = refusal(() => queue.admit("a"));
    expect(perClient.code).toBe("rate_limited");
    expect(perClient.status).toBe(429);
    queue.admit("b");
    queue.admit("c");
    const full = refusal(() => queue.admit("d"));
    expect(full.code).toBe("facilitator_busy");
    expect(full.status).toBe(503);
    expect(full.toProblem().detail).toContain("facilitator");
    // Refusals took nothing; a release gives one place back, once however often it is called.
    expect(queue.stats().admitted).toBe(5);
    a[0]!.release();
    a[0]!.release();
    expect(queue.stats().admitted).toBe(4);
    queue.admit("d");
    expect(() => queue.admit("e")).toThrow(AppError);
  });

  it("serves waiting clients round-robin, `concurrency` at a time", async () => {
    const queue = createFacilitatorQueue({ ...limits, capacity: 10 });
    const started: string[] = [];
    const cancelled: string[] = [];
    const tickets: FacilitatorTicket[] = [];
    const enqueue = (client: string, name: string) => {
      const ticket = queue.admit(client);
      tickets.push(ticket);
      ticket.turn().then(
        () => started.push(name),
        () => cancelled.push(name),
      );
      return ticket;
    };
    const first = enqueue("junk", "junk1");
    enqueue("junk", "junk2");
    enqueue("junk", "junk3");
    enqueue("payer", "payer1");
    await settle();
    expect(started).toEqual(["junk1"]);
    expect(queue.stats()).toMatchObject({ running: 1, waiting: 3 });
    first.release();
    await settle();
    // The payer came after three junk requests, yet goes second.
    expect(started).toEqual(["junk1", "payer1"]);
    tickets[3]!.release();
    await settle();
    expect(started).toEqual(["junk1", "payer1", "junk2"]);
    for (const ticket of [...tickets].reverse()) ticket.release();
    await settle();
    expect(cancelled).toEqual(["junk3"]);
    expect(queue.stats()).toEqual({ admitted: 0, running: 0, waiting: 0, paidCalls: 0 });
  });

  it("no turn starts while a paid call is in flight; ending it starts the waiting ones", async () => {
    const queue = createFacilitatorQueue({ ...limits, concurrency: 2 });
    const end = queue.paidCall();
    const started: string[] = [];
    void queue
      .admit("a")
      .turn()
      .then(() => started.push("a"));
    void queue
      .admit("b")
      .turn()
      .then(() => started.push("b"));
    await settle();
    expect(started).toEqual([]);
    end();
    end();
    await settle();
    expect(started).toEqual(["a", "b"]);
    expect(queue.stats().paidCalls).toBe(0);
  });

  it("a waiting request is deferred at most maxDeferMs, even under endless paid calls", async () => {
    vi.useFakeTimers();
    let clock = 0;
    const queue = createFacilitatorQueue(limits, () => clock);
    queue.paidCall();
    let started = false;
    void queue
      .admit("a")
      .turn()
      .then(() => {
        started = true;
      });
    clock = 499;
    await vi.advanceTimersByTimeAsync(499);
    expect(started).toBe(false);
    clock = 500;
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toBe(true);
  });

  it("a ticket released while waiting leaves the queue without running", async () => {
    const queue = createFacilitatorQueue(limits);
    const end = queue.paidCall();
    const ticket = queue.admit("a");
    const turn = ticket.turn();
    ticket.release();
    await expect(turn).rejects.toMatchObject({ code: "facilitator_busy" });
    expect(queue.stats()).toMatchObject({ admitted: 0, waiting: 0 });
    end();
    expect(queue.stats().running).toBe(0);
  });

  it("hostile client keys (__proto__, constructor) are ordinary keys", () => {
    const queue = createFacilitatorQueue(limits);
    for (let i = 0; i < 3; i++) queue.admit("__proto__");
    expect(() => queue.admit("__proto__")).toThrow(AppError);
    expect(() => queue.admit("constructor")).not.toThrow();
  });
});
