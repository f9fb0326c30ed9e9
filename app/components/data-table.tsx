import { type ReactNode } from 'react'

export type Column<Row> = { header: ReactNode; cell: (row: Row) => ReactNode }

/**
 * The admin pages' tables: one header row of column headings, one row per record keyed by its id, and a sentence
 * instead of an empty table. A wide table's sideways scroll stays with the caller (TableScroll), which wraps the
 * sentence too.
 */
export function DataTable<Row extends { id: string | number }>({
  rows,
  columns,
  empty,
  caption,
  className = 'admin-table',
}: {
  rows: readonly Row[]
  columns: readonly Column<Row>[]
  /** Shown instead of the table when there are no rows. */
  empty: ReactNode
  /** Visually hidden; names the table for screen readers. */
  caption?: string
  className?: string
}) {
  if (!rows.length) return <>{empty}</>
  return (
    <table className={className}>
      {caption ? <caption className="visually-hidden">{caption}</caption> : null}
      <thead>
        <tr>
          {columns.map((column, index) => (
            <th key={index} scope="col">
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            {columns.map((column, index) => (
              <td key={index}>{column.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}
