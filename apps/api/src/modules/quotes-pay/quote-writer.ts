/**
 * Stores quote rows: concurrent quotes share one multi-row INSERT, one round trip and one commit, instead
 * of one each. Invariants: each caller's promise settles only once its own row is committed (or refused); one row
 * per quote, never two (the primary key); the first write waits only for the end of the current event-loop turn
 * (setImmediate), so rows of requests handled in the same turn share it (PGlite answers within a turn, so nothing
 * would ever be "in flight" to wait behind); at most `maxInFlight` statements are in flight, and rows queued past
 * that wait and go together in the next one. A refused batch (one bad row fails the whole statement) is retried row
 * by row, so a row is refused only for its own fault.
 * `maxInFlight`: 1 on PGlite (one in-process engine: a second statement would only queue inside it, in a smaller
 * batch); more on PostgreSQL, where a quote otherwise waits for the commit before its own batch may even start.
 * Each batch size's statement is built once (drizzle prepared statement, a server-side prepared statement on
 * PostgreSQL) and then only fed values: building the 26-column, up-to-64-row INSERT per batch was the largest
 * share of a quote's CPU (docs/decisions/0040-quote-writer-calldata-and-id-pool.md).
 */
import { type Database, quotes } from "@tollgate/db";
import { getTableColumns, type SQL, sql } from "drizzle-orm";

export type QuoteRow = typeof quotes.$inferInsert;

export interface QuoteWriter {
  insert(row: QuoteRow): Promise<void>;
}

/** Rows per INSERT: past this the next statement takes the rest. */
export const QUOTE_BATCH_MAX = 64;

/** Statements in flight at once on PostgreSQL (a share of the pool: other requests need connections too). */
export const QUOTE_WRITES_IN_FLIGHT_POSTGRES = 4;

export interface QuoteWriterOptions {
  maxBatch?: number;
  /** Statements in flight at once (default 1). */
  maxInFlight?: number;
  /** Told the row count of every statement sent (tests count statements with it). */
  onStatement?: (rows: number) => void;
}

interface Pending {
  row: QuoteRow;
  resolve: () => void;
  reject: (error: unknown) => void;
}

type Column = ReturnType<typeof getTableColumns<typeof quotes>>[keyof QuoteRow];

/** Every column of `quotes`, in table order, written explicitly by every statement. */
const COLUMNS = Object.entries(getTableColumns(quotes)) as [keyof QuoteRow, Column][];
for (const [key, column] of COLUMNS) {
  // A default would be silently replaced by NULL here (every column is always sent): refuse at load instead.
  if (column.hasDefault) throw new Error(`quote writer: column ${key} has a default; send it explicitly`);
}

/**
 * The driver value of each column of `row`, as drizzle's builder maps it: null and undefined go as SQL NULL (the
 * builder's `default` is NULL here, no column has a default), anything else through the column's own encoder.
 */
export function quoteRowParams(row: QuoteRow, into: unknown[]): void {
  for (const [key, column] of COLUMNS) {
    const value = row[key];
    into.push(value === null || value === undefined ? null : column.mapToDriverValue(value));
  }
}

export function createQuoteWriter(db: Database, options: QuoteWriterOptions = {}): QuoteWriter {
  const maxBatch = options.maxBatch ?? QUOTE_BATCH_MAX;
  const maxInFlight = options.maxInFlight ?? 1;
  const queue: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;
  // One prepared INSERT per batch size, built on first use. Placeholders are wrapped in `sql` so drizzle passes
  // the values as given: they are mapped by quoteRowParams (drizzle maps a bare placeholder's null through the
  // encoder, which would store JSON null for `rate`).
  const statements = new Map<number, { execute(values: unknown): Promise<unknown> }>();

  function statementFor(rows: number) {
    let statement = statements.get(rows);
    if (!statement) {
      const values: Record<string, SQL>[] = [];
      for (let r = 0; r < rows; r++) {
        const entry: Record<string, SQL> = {};
        COLUMNS.forEach(([key], c) => {
          entry[key] = sql`${sql.placeholder(String(r * COLUMNS.length + c))}`;
        });
        values.push(entry);
      }
      statement = db
        .insert(quotes)
        .values(values as unknown as QuoteRow[])
        .prepare(`quote_insert_${rows}`);
      statements.set(rows, statement);
    }
    return statement;
  }

  async function write(batch: Pending[]): Promise<void> {
    const params: unknown[] = [];
    for (const item of batch) quoteRowParams(item.row, params);
    options.onStatement?.(batch.length);
    // Placeholder names are the parameter indexes, so the array itself holds the values.
    await statementFor(batch.length).execute(params);
  }

  const one = (item: Pending) => write([item]).then(() => item.resolve(), item.reject);

  async function send(batch: Pending[]): Promise<void> {
    if (batch.length === 1) return one(batch[0]!);
    try {
      await write(batch);
    } catch {
      // Nothing of the batch is stored (one statement); each row gets its own answer.
      await Promise.all(batch.map(one));
      return;
    }
    for (const item of batch) item.resolve();
  }

  /** At the end of this turn, send what is queued, as far as the in-flight bound allows. */
  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (queue.length > 0 && inFlight < maxInFlight) {
        inFlight++;
        void send(queue.splice(0, maxBatch)).finally(() => {
          inFlight--;
          schedule();
        });
      }
    });
  }

  return {
    insert(row) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        schedule();
      });
    },
  };
}
