/** Cursor pages: Previous / Page n / Next under a list, and the table-with-pager most operator lists are. */
import type { Cursor } from "../hooks/useCursor";
import { Table, type TableProps } from "./Table";

export interface PagerProps {
  /** Names the navigation ("<label> pages") and the Next button's test id. */
  label: string;
  cursor: Pick<Cursor, "page" | "next" | "previous">;
  nextCursor: string | null | undefined;
  /** The exact number of rows the filters match (the API's `total`), for "1–50 of 1,234". */
  total?: number | undefined;
  /** Rows on this page and the page size, to place the page within the total. */
  shown?: number | undefined;
  pageSize?: number | undefined;
}

const count = new Intl.NumberFormat("en-US");

/** "1–50 of 1,234" (an en dash, grouped thousands); "0 of 0" for an empty list. */
export function rangeLabel(page: number, pageSize: number, shown: number, total: number): string {
  if (shown === 0) return `0 of ${count.format(total)}`;
  const first = (page - 1) * pageSize + 1;
  return `${count.format(first)}–${count.format(first + shown - 1)} of ${count.format(total)}`;
}

export function Pager({ label, cursor, nextCursor, total, shown, pageSize }: PagerProps) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      {total !== undefined && shown !== undefined && pageSize !== undefined ? (
        <span className="pager__count" data-testid="list-count">
          {rangeLabel(cursor.page, pageSize, shown, total)}
        </span>
      ) : null}
      <button
        type="button"
        className="button button--secondary"
        disabled={cursor.page <= 1}
        onClick={cursor.previous}
      >
        Previous
      </button>
      <span>Page {cursor.page}</span>
      <button
        type="button"
        className="button button--secondary"
        disabled={!nextCursor}
        onClick={() => nextCursor && cursor.next(nextCursor)}
        data-testid={`${label.toLowerCase().replace(/\W+/g, "-")}-next`}
      >
        Next
      </button>
    </nav>
  );
}

/** One page of a cursor-paged list, and the pager under it. */
export function PagedTable<Row>({
  label,
  cursor,
  nextCursor,
  total,
  shown,
  pageSize,
  ...table
}: TableProps<Row> & PagerProps) {
  return (
    <>
      <Table {...table} />
      <Pager
        label={label}
        cursor={cursor}
        nextCursor={nextCursor}
        total={total}
        shown={shown}
        pageSize={pageSize}
      />
    </>
  );
}
