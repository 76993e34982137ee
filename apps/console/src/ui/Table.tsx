/** Tables of both consoles: columns described once, rows drawn from them. */
import type { ReactNode } from "react";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  numeric?: boolean;
  /** A test id for this column's cell in each row. */
  cellTestId?: (row: Row) => string;
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
              <th key={column.header} scope="col" className={column.numeric ? "num" : undefined}>
                {column.header}
              </th>
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
