/** Cursor pages: Previous / Page n / Next under a list, and the table-with-pager most operator lists are. */
import type { Cursor } from "../hooks/useCursor";
import { Table, type TableProps } from "./Table";

export interface PagerProps {
  /** Names the navigation ("<label> pages") and the Next button's test id. */
  label: string;
  cursor: Pick<Cursor, "page" | "next" | "previous">;
  nextCursor: string | null | undefined;
}

export function Pager({ label, cursor, nextCursor }: PagerProps) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
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
export function PagedTable<Row>({ label, cursor, nextCursor, ...table }: TableProps<Row> & PagerProps) {
  return (
    <>
      <Table {...table} />
      <Pager label={label} cursor={cursor} nextCursor={nextCursor} />
    </>
  );
}
