import type { HouseBalances, UserReplay } from '../balance-replay.js';
import { formatDifference, type VerifyReport } from '../verify.js';

export const table = (rows: readonly (readonly string[])[]): string[] => {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
};

/** A point names its axis: a time is business time, a position recording order; known-at cuts the recording time. */
const pointText = (at: string | null, knownAt: string | null = null): string =>
  `${at === null ? 'now' : at.includes('/') ? `position ${at}` : `${at} (business time)`}${
    knownAt === null ? '' : `, as known at ${knownAt} (recording time)`
  }`;

export const replayText = (r: UserReplay): string[] => [
  `user ${r.userId} at ${pointText(r.at, r.knownAt)}: ${r.events} wallet events${r.position ? `, the last at position ${r.position}` : ''}`,
  '',
  'movements',
  ...(r.movements.length === 0
    ? ['  (none)']
    : table([
        ['position', 'rev', 'recorded at', 'business time', 'type', 'transaction', 'currency', 'amount', 'balance'],
        ...r.movements.map((m) => [
          m.position,
          m.revision,
          m.recordedAt,
          m.effectiveAt ?? '-',
          m.type,
          m.transactionId ?? '-',
          m.currencyId,
          m.amount,
          m.balance,
        ]),
      ]).map((l) => `  ${l}`)),
  '',
  'balances',
  ...(r.balances.length === 0 ? ['  (none)'] : table(r.balances.map((b) => [b.currencyId, b.amount])).map((l) => `  ${l}`)),
];

export const houseText = (h: HouseBalances): string[] => [
  `house at ${pointText(h.at, h.knownAt)}: ${h.events} events with postings${h.position ? `, the last at position ${h.position}` : ''}`,
  '',
  'accounts',
  ...(h.accounts.length === 0
    ? ['  (none)']
    : table([['account', 'currency', 'balance'], ...h.accounts.map((a) => [a.account, a.currencyId, a.balance])]).map((l) => `  ${l}`)),
  '',
  'trial balance (every currency must sum to zero)',
  ...(h.trial.length === 0
    ? ['  (none)']
    : table(h.trial.map((t) => [t.currencyId, t.amount, t.amount === '0' ? 'ok' : '<<< NOT ZERO'])).map((l) => `  ${l}`)),
  ...(h.problems.length === 0 ? [] : ['', 'unreadable postings (left out above)', ...h.problems.map((p) => `  ${p}`)]),
];

/** "read models at 12/34" when every checkpoint is the same, else each one. */
const checkpointsText = (readModels: Readonly<Record<string, string>>): string => {
  const at = new Set(Object.values(readModels));
  return at.size === 1
    ? `read models compared at their checkpoint ${[...at][0]!}`
    : `read models compared at their checkpoints (${Object.entries(readModels)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})`;
};

export const verifyText = (r: VerifyReport): string[] => [
  ...r.differences.map(formatDifference),
  `verified ${r.events} events in ${r.streams} streams up to position ${r.head}; ${checkpointsText(r.readModels)}; seals ${
    r.sealsChecked ? 'checked' : 'NOT checked (--no-seals)'
  }`,
  r.ok ? 'OK: no differences' : `FAILED: ${r.differences.length} difference${r.differences.length === 1 ? '' : 's'}`,
];
