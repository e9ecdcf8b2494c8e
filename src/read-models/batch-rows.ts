import type { RecordedEvent } from '../infra/event-store/event-store.port.js';
import type { WalletEvent } from '../domain/wallet/wallet.events.js';
import { walletRecords, type Row, type Sql } from '../projections/projection.js';

type SettledBet = Extract<WalletEvent, { type: 'BetSettled' }>['data'];

/** The batch's settled bets, each as the row `pick` makes of it with its user. */
export const settledBets = (events: readonly RecordedEvent[], pick: (userId: number, bet: SettledBet) => Row): Row[] =>
  walletRecords(events, ['BetSettled']).flatMap(({ userId, event }) => (event.type === 'BetSettled' ? [pick(userId, event.data)] : []));

/** One set-based statement over the batch's rows (a JSON array in $1, then `values`); none without rows. */
export const overRows = (text: string, rows: readonly Row[], ...values: readonly unknown[]): Sql[] =>
  rows.length === 0 ? [] : [{ text, values: [JSON.stringify(rows), ...values] }];
