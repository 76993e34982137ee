/** Tables of both consoles: columns described once, rows drawn from them. */
import type { ReactNode } from "react";
import type { SortState } from "../hooks/useSortParam";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  numeric?: boolean;
  /** A test id for this column's cell in each row. */
  cellTestId?: (row: Row) => string;
  /** The list's sort key for this column (an allow-listed API sort key): the header becomes a sort button. */
  sortKey?: string;
}

export interface DataTableProps<Row> {
  caption?: string;
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  rowTestId?: (row: Row) => string;
  testId: string;
  /** Drawn instead of the table when there is no row. */
  empty?: ReactNode;
  /** The list's current order (headers of sortable columns carry `aria-sort`). */
  sort?: SortState | undefined;
  /** Asked to sort by a column's `sortKey` (a click on its header). */
  onSort?: ((key: string) => void) | undefined;
}

const ARIA_SORT = { asc: "ascending", desc: "descending" } as const;

/** A header cell: a button that sorts when the column is sortable, `aria-sort` on the sorted one. */
function HeaderCell<Row>({
  column,
  sort,
  onSort,
}: {
  column: Column<Row>;
  sort: SortState | undefined;
  onSort: ((key: string) => void) | undefined;
}) {
  const { sortKey } = column;
  const className = column.numeric ? "num" : undefined;
  if (!sortKey || !onSort) {
    return (
      <th scope="col" className={className}>
        {column.header}
      </th>
    );
  }
  const active = sort?.key === sortKey ? sort.direction : undefined;
  return (
    <th scope="col" className={className} aria-sort={active ? ARIA_SORT[active] : "none"}>
      <button
        type="button"
        className="sort-button"
        onClick={() => onSort(sortKey)}
        data-testid={`sort-${sortKey}`}
      >
        {column.header}
        <span aria-hidden="true">{active === "asc" ? " ▲" : active === "desc" ? " ▼" : " ↕"}</span>
      </button>
    </th>
  );
}

/**
 * A table: one header row from the columns, then a row per item, inside its own horizontal scroll box
 * (decision 0070). The box is positioned, so nothing inside it (the visually hidden full values of shortened ids)
 * can reach past it and widen the page; long unbroken strings wrap in their cells (styles.css), so the box only
 * scrolls for many columns on a narrow screen. It is focusable and labelled so keyboard users can scroll it.
 */
export function DataTable<Row>({
  caption,
  rows,
  columns,
  rowKey,
  rowTestId,
  testId,
  empty,
  sort,
  onSort,
}: DataTableProps<Row>) {
  if (rows.length === 0 && empty !== undefined) return <>{empty}</>;
  const label = caption ?? `Table: ${columns.map((column) => column.header).join(", ")}`;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <section className="table-wrap" tabIndex={0} aria-label={label}>
      <table className="table" data-testid={testId}>
        {caption ? <caption>{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((column) => (
              <HeaderCell key={column.header} column={column} sort={sort} onSort={onSort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} data-testid={rowTestId?.(row)}>
              {columns.map((column) => (
                <td
                  key={column.header}
                  className={column.numeric ? "num" : undefined}
                  data-testid={column.cellTestId?.(row)}
                >
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <p className="state state--empty" data-testid="empty">
      {children}
    </p>
  );
}

export interface TableProps<Row> extends Omit<DataTableProps<Row>, "caption" | "empty"> {
  caption: string;
  empty: string;
}

/** The operator console's table: a sentence when there is no row, else the table (in its scroll box). */
export function Table<Row>({ caption, empty, ...table }: TableProps<Row>) {
  if (table.rows.length === 0) return <Empty>{empty}</Empty>;
  return <DataTable caption={caption} {...table} />;
}
