/**
 * One relayer key's send slot, shared by every x402 scheme that settles from it on one network (`exact`:
 * ./settle-authorization.ts; `upto`: ./upto-facilitator.ts; docs/decisions/0085).
 * Invariant: sends are serialized per key and process, and the account nonce this process last used is known to all
 * of them, so two schemes never sign the same nonce (max of the node's pending count and the last nonce sent + 1).
 */
export interface RelayerSendSlot {
  /** Runs `send` when every earlier send of this key has finished; `nonce` reads and updates the key's next nonce. */
  run<T>(send: (nonce: NonceBook) => Promise<T>): Promise<T>;
}

export interface NonceBook {
  /** The next nonce this process knows for the key (undefined: ask the node only). */
  next: number | undefined;
}

export function createRelayerSendSlot(): RelayerSendSlot {
  let tail: Promise<unknown> = Promise.resolve();
  const book: NonceBook = { next: undefined };
  return {
    run(send) {
      const result = tail.then(() => send(book));
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
