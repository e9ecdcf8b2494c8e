import { runLeaderboardTick } from '../../src/leaderboards/leaderboard.scheduler.js';
import { createListsEnv } from './lists-seed.js';

export const DAY = '2031-03-10';
export const PRIZES = [
  { position: 1, usdPrize: 100 },
  { position: 2, usdPrize: 50 },
  { position: 3, usdPrize: 25 },
];

/**
 * The lists world plus leaderboards: the DAILY schedule enabled with PRIZES, a scheduler tick at any
 * instant (the injected clock), and bets settled at known times through the real ledger.
 */
export const createLeaderboardsEnv = async (label: string) => {
  const w = await createListsEnv(label);
  const schedules = (await w.get('/leaderboards/schedule')).body as { id: string; config: { type: string } }[];
  const scheduleId = (type: string) => schedules.find((s) => s.config.type === type)!.id;
  const enable = async (type: 'DAILY' | 'WEEKLY' | 'MONTHLY', prizes = PRIZES) => {
    const reply = await w.post(`/leaderboards/schedule/${scheduleId(type)}`, {
      enabled: true,
      name: `${type} race`,
      description: 'test',
      prizes,
    });
    if (reply.status !== 201) throw new Error(`enable failed: ${JSON.stringify(reply.body)}`);
  };
  const tick = (iso: string) => runLeaderboardTick({ pool: w.env.pool, ledger: w.ledger, now: new Date(iso), settlementDelayMs: 60_000 });
  /** A user with a username who wagered these DBC amounts (1 DBC = 1 USD), each bet settled at `iso`. */
  const player = async (wagers: readonly string[], iso = `${DAY}T08:00:00.000Z`) => {
    const user = await w.env.makeUser();
    w.at(iso);
    await w.deposit(user.id, '100000');
    for (const amount of wagers) await w.bet(user.id, amount);
    return user;
  };
  const boards = async (query = '') =>
    (await w.get(`/leaderboards${query}`)).body as { data: { id: string; status: string; type: string }[]; total: number };
  return { ...w, scheduleId, enable, tick, player, boards };
};
export type LeaderboardsEnv = Awaited<ReturnType<typeof createLeaderboardsEnv>>;
