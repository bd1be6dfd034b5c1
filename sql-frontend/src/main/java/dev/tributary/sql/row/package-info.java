/**
 * Rows: SQL values encoded so their bytes sort in SQL order ({@link dev.tributary.sql.row.Row},
 * {@link dev.tributary.sql.row.RowCodec}), and their data type for dataflows and arrangements
 * ({@link dev.tributary.sql.row.RowDataType}).
 */
package dev.tributary.sql.row;
