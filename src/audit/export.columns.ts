/** Per export kind: table, columns (back-office names), order and SELECT; values go out as PostgreSQL prints them. */

export const EXPORT_KINDS = ['transactions', 'deposits', 'withdrawals', 'bets', 'tips'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** NDJSON writes `int` as a JSON number (digits verbatim, never through a JS number), everything else as a string. */
export type ColumnType = 'text' | 'int' | 'decimal' | 'timestamp';
export type ExportColumn = Readonly<{ name: string; sql: string; type: ColumnType }>;

type KindSpec = Readonly<{ table: string; columns: readonly ExportColumn[]; orderBy: string }>;

const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const c = (name: string, column: string, type: ColumnType = 'text'): ExportColumn => ({
  name,
  type,
  sql: type === 'timestamp' ? `to_char(${column} AT TIME ZONE 'UTC', ${ISO_UTC})` : column,
});

const KINDS: Readonly<Record<ExportKind, KindSpec>> = {
  transactions: {
    table: 'transactions',
    columns: [
      c('id', 'id'),
      c('userId', 'user_id', 'int'),
      c('currencyId', 'currency_id'),
      c('type', 'type'),
      c('amount', 'amount', 'decimal'),
      c('beforeBalance', 'before_balance', 'decimal'),
      c('afterBalance', 'after_balance', 'decimal'),
      c('usdAmount', 'usd_amount', 'decimal'),
      c('originalId', 'original_id'),
      c('adminUserId', 'admin_user_id', 'int'),
      c('referenceId', 'reference_id'),
      c('eventId', 'event_id'),
      c('position', 'position'),
      c('createdAt', 'created_at', 'timestamp'),
      c('updatedAt', 'updated_at', 'timestamp'),
    ],
    orderBy: 'created_at, position_commit, position_prepare',
  },
  deposits: {
    table: 'deposits',
    columns: [
      c('id', 'id'),
      c('userId', 'user_id', 'int'),
      c('externalId', 'external_id'),
      c('providerId', 'provider_id'),
      c('networkId', 'network_id'),
      c('currencyId', 'currency_id'),
      c('amount', 'amount', 'decimal'),
      c('usdAmount', 'usd_amount', 'decimal'),
      c('status', 'status'),
      c('txHash', 'tx_hash'),
      c('payAddress', 'pay_address'),
      c('payMemo', 'pay_memo'),
      c('transactionId', 'transaction_id'),
      c('failedReason', 'failed_reason'),
      c('affiliateAmount', 'affiliate_amount', 'decimal'),
      c('depositBonus', 'deposit_bonus', 'decimal'),
      c('affiliateCodeId', 'affiliate_code_id'),
      c('createdAt', 'created_at', 'timestamp'),
      c('updatedAt', 'updated_at', 'timestamp'),
      c('confirmedAt', 'confirmed_at', 'timestamp'),
      c('completedAt', 'completed_at', 'timestamp'),
    ],
    orderBy: 'created_at, id',
  },
  withdrawals: {
    table: 'withdrawals',
    columns: [
      c('id', 'id'),
      c('userId', 'user_id', 'int'),
      c('currencyId', 'currency_id'),
      c('networkId', 'network_id'),
      c('providerId', 'provider_id'),
      c('amount', 'amount', 'decimal'),
      c('usdAmount', 'usd_amount', 'decimal'),
      c('status', 'status'),
      c('recipientAddress', 'recipient_address'),
      c('recipientMemo', 'recipient_memo'),
      c('transactionId', 'transaction_id'),
      c('txHash', 'tx_hash'),
      c('rejectReason', 'reject_reason'),
      c('failedReason', 'failed_reason'),
      c('confirmations', 'confirmations', 'int'),
      c('confirmedByUserId', 'confirmed_by_user_id', 'int'),
      c('confirmedAt', 'confirmed_at', 'timestamp'),
      c('createdAt', 'created_at', 'timestamp'),
      c('updatedAt', 'updated_at', 'timestamp'),
      c('completedAt', 'completed_at', 'timestamp'),
    ],
    orderBy: 'created_at, id',
  },
  bets: {
    table: 'bets',
    columns: [
      c('id', 'id'),
      c('userId', 'user_id', 'int'),
      c('roundId', 'round_id'),
      c('gameId', 'game_id', 'int'),
      c('gameName', 'game_name'),
      c('gameSlug', 'game_slug'),
      c('gameType', 'game_type'),
      c('gameProvider', 'game_provider'),
      c('currencyId', 'currency_id'),
      c('amount', 'amount', 'decimal'),
      c('usdAmount', 'usd_amount', 'decimal'),
      c('payout', 'payout', 'decimal'),
      c('usdPayout', 'usd_payout', 'decimal'),
      c('multiplier', 'multiplier', 'decimal'),
      c('status', 'status'),
      c('errorDetails', 'error_details'),
      c('transactionId', 'transaction_id'),
      c('createdAt', 'created_at', 'timestamp'),
      c('updatedAt', 'updated_at', 'timestamp'),
      c('settledAt', 'settled_at', 'timestamp'),
    ],
    orderBy: 'created_at, id',
  },
  tips: {
    table: 'admin_tips',
    columns: [
      c('id', 'id', 'int'),
      c('type', 'type'),
      c('currencyId', 'currency_id'),
      c('amount', 'amount', 'decimal'),
      c('usdAmount', 'usd_amount', 'decimal'),
      c('tag', 'tag'),
      c('notes', 'notes'),
      c('senderUserId', 'sender_user_id', 'int'),
      c('recipientUserId', 'recipient_user_id', 'int'),
      c('transactionId', 'transaction_id'),
      c('createdAt', 'created_at', 'timestamp'),
    ],
    orderBy: 'created_at, id',
  },
};

export const exportColumns = (kind: ExportKind): readonly ExportColumn[] => KINDS[kind].columns;

/** Half-open [from, to) on created_at; either end may be open. */
export type ExportRange = Readonly<{ from?: Date | undefined; to?: Date | undefined }>;

export const exportQuery = (kind: ExportKind, range: ExportRange = {}): Readonly<{ text: string; values: string[] }> => {
  const spec = KINDS[kind];
  const values: string[] = [];
  const where: string[] = [];
  if (range.from) where.push(`created_at >= $${values.push(range.from.toISOString())}::timestamptz`);
  if (range.to) where.push(`created_at < $${values.push(range.to.toISOString())}::timestamptz`);
  // Aliased to the export's names, so that COPY ... (HEADER) writes the same header row.
  const text =
    `SELECT ${spec.columns.map((col) => `${col.sql} AS "${col.name}"`).join(', ')} FROM ${spec.table}` +
    `${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${spec.orderBy}`;
  return { text, values };
};
