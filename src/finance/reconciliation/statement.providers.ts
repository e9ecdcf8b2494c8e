/**
 * How each payment provider's statement CSV reads (docs/reconciliation.md, "Providers"): which column holds each field
 * of a statement line, and what its type and status words mean in the ledger's terms. A provider is named by the
 * ledger's provider id (deposits' and withdrawals' `providerId`); adding one is adding an entry here.
 */

/** The fields of a statement line, each read from one column. */
export const STATEMENT_FIELDS = ['reference', 'type', 'externalId', 'txHash', 'currency', 'amount', 'status', 'occurredAt'] as const;
export type StatementField = (typeof STATEMENT_FIELDS)[number];

export type Direction = 'deposit' | 'withdrawal';
/** A statement status as the ledger compares it: settled, still in flight, or failed/refused. */
export type StatementStatus = 'COMPLETE' | 'PENDING' | 'FAILED';

export type ProviderMapping = Readonly<{
  /** The header of each field's column (every one must be in the file's header row, no other column may be). */
  columns: Readonly<Record<StatementField, string>>;
  /** The type column's words (case-insensitive). */
  types: Readonly<Record<string, Direction>>;
  /** The status column's words (case-insensitive). */
  statuses: Readonly<Record<string, StatementStatus>>;
}>;

export const PROVIDERS: Readonly<Record<string, ProviderMapping>> = {
  /** The test provider; its sample statement is docs/samples/statement-TEST.csv. */
  TEST: {
    columns: {
      reference: 'Transaction ID',
      type: 'Type',
      externalId: 'Merchant Reference',
      txHash: 'Tx Hash',
      currency: 'Currency',
      amount: 'Amount',
      status: 'Status',
      occurredAt: 'Date',
    },
    types: { deposit: 'deposit', payout: 'withdrawal' },
    statuses: { success: 'COMPLETE', pending: 'PENDING', failed: 'FAILED', rejected: 'FAILED' },
  },
};

export const providerMapping = (providerId: string): ProviderMapping | undefined =>
  Object.hasOwn(PROVIDERS, providerId) ? PROVIDERS[providerId] : undefined;
