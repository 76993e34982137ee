/**
 * Runs `fn` once pending I/O got its turn (issue 15): a database query or RPC read started just before is on its
 * way while `fn` computes (e.g. a signature recovery). The promise settles as `fn` does: its value, or its throw.
 */
export function afterIo<T>(fn: () => T): Promise<T> {
  return new Promise((resolve, reject) =>
    setImmediate(() => {
      try {
        resolve(fn());
      } catch (err) {
        reject(err);
      }
    }),
  );
}
