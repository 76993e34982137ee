/**
 * Stores quote rows (issue 15): concurrent quotes share one multi-row INSERT, one round trip and one commit, instead
 * of one each. Invariants: each caller's promise settles only once its own row is committed (or refused); one row
 * per quote, never two (the primary key); the first write waits only for the end of the current event-loop turn
 * (setImmediate), so rows of requests handled in the same turn share it (PGlite answers within a turn, so nothing
 * would ever be "in flight" to wait behind); while a batch is in flight new rows wait and go together in the next
 * one. A refused batch (one bad row fails the whole statement) is retried row by row, so a row is refused only for
 * its own fault.
 */
import { type Database, quotes } from "@tollgate/db";

export type QuoteRow = typeof quotes.$inferInsert;

export interface QuoteWriter {
  insert(row: QuoteRow): Promise<void>;
}

/** Rows per INSERT: past this the next statement takes the rest. */
export const QUOTE_BATCH_MAX = 64;

interface Pending {
  row: QuoteRow;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function createQuoteWriter(db: Database, maxBatch = QUOTE_BATCH_MAX): QuoteWriter {
  const queue: Pending[] = [];
  let flushing = false;

  const one = (item: Pending) =>
    db
      .insert(quotes)
      .values(item.row)
      .then(() => item.resolve(), item.reject);

  async function flush(): Promise<void> {
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, maxBatch);
        if (batch.length === 1) {
          await one(batch[0]!);
          continue;
        }
        try {
          await db.insert(quotes).values(batch.map((item) => item.row));
        } catch {
          // Nothing of the batch is stored (one statement); each row gets its own answer.
          await Promise.all(batch.map(one));
          continue;
        }
        for (const item of batch) item.resolve();
      }
    } finally {
      flushing = false;
    }
  }

  return {
    insert(row) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        if (!flushing) {
          flushing = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}
