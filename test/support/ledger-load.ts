import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** One command the ledger answered 2xx: the event it promised must be in the store afterwards. */
export type Acknowledged = Readonly<{ type: 'DepositRequested' | 'DepositCompleted' | 'BetPlaced'; field: string; value: string }>;

export type LoadTally = {
  /** Commands sent, by outcome: 2xx, 503 (with its code), any other status, network error. */
  sent: number;
  ok: number;
  unavailable: number;
  other: number;
  networkErrors: number;
  /** Status and code of each non-2xx answer, counted. */
  failures: Map<string, number>;
  /** Slowest command answer, ms (a hang would show here). */
  slowestMs: number;
  /** Time of every answer (ms since epoch) and whether it was 2xx, for the error window. */
  answers: { at: number; ok: boolean; status: number }[];
  acknowledged: Acknowledged[];
  queries: number;
  queriesOk: number;
};

export const newTally = (): LoadTally => ({
  sent: 0,
  ok: 0,
  unavailable: 0,
  other: 0,
  networkErrors: 0,
  failures: new Map(),
  slowestMs: 0,
  answers: [],
  acknowledged: [],
  queries: 0,
  queriesOk: 0,
});

const GAME = { name: 'Dice', slug: 'dice', type: 'original', provider: { name: 'House' } };

export type LoadOptions = Readonly<{
  /** Admin (back-office) base URLs, used in turn. */
  adminUrls: readonly string[];
  serviceToken: string;
  userIds: readonly number[];
  workers: number;
  /** Pause between one worker's commands, ms (steady load, not saturation). */
  pauseMs: number;
  /** Per-command client timeout: an answer later than this counts as a hang. */
  timeoutMs?: number;
}>;

/**
 * Steady ledger load through the internal API: each worker requests a deposit, completes it, places a bet,
 * and reads the wallet's balances, over and over, until stopped. Every 2xx command is remembered.
 */
export const startLedgerLoad = (o: LoadOptions): { tally: LoadTally; stop: () => Promise<LoadTally> } => {
  const tally = newTally();
  let stopped = false;
  let turn = 0;
  const base = (): string => o.adminUrls[turn++ % o.adminUrls.length]!;

  const command = async (path: string, body: unknown, ack?: Acknowledged): Promise<Record<string, unknown> | undefined> => {
    const started = Date.now();
    tally.sent += 1;
    try {
      const res = await fetch(`${base()}/internal${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-token': o.serviceToken },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
      });
      const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      const at = Date.now();
      tally.slowestMs = Math.max(tally.slowestMs, at - started);
      tally.answers.push({ at, ok: res.ok, status: res.status });
      if (res.ok) {
        tally.ok += 1;
        if (ack) tally.acknowledged.push(ack);
        return answer;
      }
      const key = `${res.status} ${String(answer.code)}`;
      tally.failures.set(key, (tally.failures.get(key) ?? 0) + 1);
      if (res.status === 503) tally.unavailable += 1;
      else tally.other += 1;
      return undefined;
    } catch (error) {
      tally.networkErrors += 1;
      tally.answers.push({ at: Date.now(), ok: false, status: 0 });
      const key = `network ${(error as Error).name}`;
      tally.failures.set(key, (tally.failures.get(key) ?? 0) + 1);
      return undefined;
    }
  };

  const query = async (userId: number): Promise<void> => {
    tally.queries += 1;
    const res = await fetch(`${base()}/internal/wallets/${userId}/balances`, {
      headers: { 'x-service-token': o.serviceToken },
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
    }).catch(() => undefined);
    await res?.arrayBuffer().catch(() => undefined);
    if (res?.ok) tally.queriesOk += 1;
  };

  const worker = async (w: number): Promise<void> => {
    for (let i = 0; !stopped; i += 1) {
      const userId = o.userIds[(w + i) % o.userIds.length]!;
      const externalId = `ext-${randomUUID()}`;
      const deposit = await command(
        '/deposits',
        {
          externalId,
          userId,
          providerId: 'TEST',
          networkId: 'ETH',
          currencyId: 'USDT',
          amount: '1',
        },
        { type: 'DepositRequested', field: 'externalId', value: externalId },
      );
      const depositId = typeof deposit?.id === 'string' ? deposit.id : undefined;
      const credited =
        depositId && !stopped
          ? await command(
              `/deposits/${depositId}/complete`,
              { txHash: `0x${w}${i}` },
              { type: 'DepositCompleted', field: 'depositId', value: depositId },
            )
          : undefined;
      // A bet only on a credited deposit: every refusal left is then the outage's, not the wallet's.
      if (credited && !stopped) {
        const betId = `bet-${randomUUID()}`;
        await command(
          '/bets',
          { id: betId, userId, roundId: `r-${betId}`, gameId: 1, gameIdentity: GAME, currencyId: 'USDT', amount: '0.01' },
          { type: 'BetPlaced', field: 'betId', value: betId },
        );
      }
      if (!stopped) await query(userId);
      if (o.pauseMs > 0) await new Promise((r) => setTimeout(r, o.pauseMs));
    }
  };

  const running = Array.from({ length: o.workers }, (_, w) => worker(w));
  return {
    tally,
    stop: async () => {
      stopped = true;
      await Promise.all(running);
      return tally;
    },
  };
};

/** How many acknowledged commands have their event in the store (PostgreSQL event store). */
export const countFound = async (databaseUrl: string, acknowledged: readonly Acknowledged[]): Promise<number> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let found = 0;
    for (const type of ['DepositRequested', 'DepositCompleted', 'BetPlaced'] as const) {
      const mine = acknowledged.filter((a) => a.type === type);
      if (mine.length === 0) continue;
      const field = mine[0]!.field;
      const { rows } = await client.query<{ n: string }>(
        'SELECT count(DISTINCT data->>$2)::text AS n FROM events WHERE type = $1 AND data->>$2 = ANY($3::text[])',
        [type, field, mine.map((a) => a.value)],
      );
      found += Number(rows[0]!.n);
    }
    return found;
  } finally {
    await client.end();
  }
};

/** The first and last failed answer in the tally: the ledger's error window, ms (0 when nothing failed). */
export const errorWindow = (tally: LoadTally): { from?: number; to?: number; ms: number } => {
  const failed = tally.answers.filter((a) => !a.ok);
  if (failed.length === 0) return { ms: 0 };
  const from = failed[0]!.at;
  const to = failed.at(-1)!.at;
  return { from, to, ms: to - from };
};
