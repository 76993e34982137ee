/**
 * Purchase coalescing (prior-art §8 item 10): one purchase per key at a time in this process; callers that
 * arrive while it runs share its outcome instead of paying again. Across processes nothing is coalesced
 * (one store belongs to one process).
 */
export class Coalescer<T> {
  private readonly inflight = new Map<string, Promise<T>>();

  /**
   * The running task for `key` if there is one (after `onJoin`), else `start()` registered under `key`
   * until it settles.
   */
  async run(key: string, start: () => Promise<T>, onJoin?: () => Promise<void>): Promise<T> {
    const running = this.inflight.get(key);
    if (running) {
      await onJoin?.();
      return running;
    }
    const started = start().finally(() => this.inflight.delete(key));
    this.inflight.set(key, started);
    return started;
  }
}
