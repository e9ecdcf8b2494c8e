/** Per export kind: table, columns (back-office names), order and SELECT; values go out as PostgreSQL prints them. */

export const EXPORT_KINDS = ['transactions', 'deposits', 'withdrawals', 'bets', 'tips'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** NDJSON writes `int` as a JSON number (digits verbatim, never through a JS number), everything else as a string. */
export type ColumnType = 'text' | 'int' | 'decimal' | 'timestamp';
export type ExportColumn = Readonly<{ name: string; sql: string; type: ColumnType }>;

/** `orderBy` follows business time (effective_at), then the order the rows were recorded in. */
type KindSpec = Readonly<{ table: string; columns: readonly ExportColumn[]; orderBy: string }>;

const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const TYPES: readonly ColumnType[] = ['text', 'int', 'decimal', 'timestamp'];

/** `column[:type]` words in export order (type text unless given); each is exported under its column's camelCase name. */
const columns = (...lines: readonly string[]): readonly ExportColumn[] =>
  lines
    .flatMap((line) => line.split(' '))
    .map((word) => {
      const [column = '', type = 'text'] = word.split(':');
      if (!TYPES.includes(type as ColumnType)) throw new TypeError(`unknown export column type: ${word}`);
      return {
        name: column.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
        type: type as ColumnType,
        sql: type === 'timestamp' ? `to_char(${column} AT TIME ZONE 'UTC', ${ISO_UTC})` : column,
      };
    });

const KINDS: Readonly<Record<ExportKind, KindSpec>> = {
  transactions: {
    table: 'transactions',
    columns: columns(
      'id user_id:int currency_id type amount:decimal before_balance:decimal after_balance:decimal usd_amount:decimal original_id',
      'admin_user_id:int reference_id event_id position created_at:timestamp updated_at:timestamp effective_at:timestamp',
    ),
    orderBy: 'effective_at, position_commit, position_prepare',
  },
  deposits: {
    table: 'deposits',
    columns: columns(
      'id user_id:int external_id provider_id network_id currency_id amount:decimal usd_amount:decimal status tx_hash pay_address',
      'pay_memo transaction_id failed_reason affiliate_amount:decimal deposit_bonus:decimal affiliate_code_id created_at:timestamp',
      'updated_at:timestamp confirmed_at:timestamp completed_at:timestamp effective_at:timestamp',
    ),
    orderBy: 'effective_at, created_at, id',
  },
  withdrawals: {
    table: 'withdrawals',
    columns: columns(
      'id user_id:int currency_id network_id provider_id amount:decimal usd_amount:decimal status recipient_address recipient_memo',
      'transaction_id tx_hash reject_reason failed_reason confirmations:int confirmed_by_user_id:int confirmed_at:timestamp',
      'created_at:timestamp updated_at:timestamp completed_at:timestamp effective_at:timestamp',
    ),
    orderBy: 'effective_at, created_at, id',
  },
  bets: {
    table: 'bets',
    columns: columns(
      'id user_id:int round_id game_id:int game_name game_slug game_type game_provider currency_id amount:decimal usd_amount:decimal',
      'payout:decimal usd_payout:decimal multiplier:decimal status error_details transaction_id created_at:timestamp updated_at:timestamp',
      'settled_at:timestamp effective_at:timestamp',
    ),
    orderBy: 'effective_at, created_at, id',
  },
  tips: {
    table: 'admin_tips',
    columns: columns(
      'id:int type currency_id amount:decimal usd_amount:decimal tag notes sender_user_id:int recipient_user_id:int transaction_id',
      'created_at:timestamp effective_at:timestamp',
    ),
    orderBy: 'effective_at, created_at, id',
  },
};

export const exportColumns = (kind: ExportKind): readonly ExportColumn[] => KINDS[kind].columns;

/**
 * Half-open ranges, either end open: [from, to) on business time (effective_at), [knownFrom, knownTo) on recording time
 * (created_at). Both may be combined: what belongs to a month, as the ledger knew it at a date.
 */
export type ExportRange = Readonly<{
  from?: Date | undefined;
  to?: Date | undefined;
  knownFrom?: Date | undefined;
  knownTo?: Date | undefined;
}>;

/** The column each end of a range filters: business time for from/to, recording time for knownFrom/knownTo. */
export const EXPORT_RANGE_COLUMNS = {
  from: ['effective_at', '>='],
  to: ['effective_at', '<'],
  knownFrom: ['created_at', '>='],
  knownTo: ['created_at', '<'],
} as const satisfies Record<keyof ExportRange, readonly [string, string]>;

export const exportQuery = (kind: ExportKind, range: ExportRange = {}): Readonly<{ text: string; values: string[] }> => {
  const spec = KINDS[kind];
  const values: string[] = [];
  const where: string[] = [];
  for (const [end, [column, op]] of Object.entries(EXPORT_RANGE_COLUMNS)) {
    const at = range[end as keyof ExportRange];
    if (at) where.push(`${column} ${op} $${values.push(at.toISOString())}::timestamptz`);
  }
  // Aliased to the export's names, so that COPY ... (HEADER) writes the same header row.
  const text =
    `SELECT ${spec.columns.map((col) => `${col.sql} AS "${col.name}"`).join(', ')} FROM ${spec.table}` +
    `${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${spec.orderBy}`;
  return { text, values };
};
