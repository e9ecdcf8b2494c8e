import type pg from 'pg';
import {
  AppendRefused,
  DuplicateEventId,
  GuardRefused,
  KeyOwnedElsewhere,
  WrongExpectedRevision,
  type AppendOutcome,
  type AppendGuardRule,
  type AppendRequest,
  type AppendResult,
  figuresLiteral,
} from '../event-store.port.js';

import { appendStatement, leanAppendStatement, soloAppendStatement } from './postgres.append.sql.js';

type Statement = Readonly<{ name: string; text: string; params: number }>;

/** Named, so each writer connection plans them once; the parameters a variant does not use are not sent (they have no type). */
export const STATEMENTS = {
  plain: { name: 'ledger-append', text: appendStatement(false, undefined), params: 10 },
  claims: { name: 'ledger-append-claims', text: appendStatement(true, undefined), params: 15 },
  leanPlain: { name: 'ledger-append-lean', text: leanAppendStatement(false, undefined), params: 10 },
  leanClaims: { name: 'ledger-append-lean-claims', text: leanAppendStatement(true, undefined), params: 15 },
} as const;

export const SOLO_STATEMENTS = {
  solo: { name: 'ledger-append-solo', text: soloAppendStatement(false, undefined), params: 6 },
  soloClaims: { name: 'ledger-append-solo-claims', text: soloAppendStatement(true, undefined), params: 9 },
} as const;

/** The variants that run a guard rule: built once per rule the application hands over, named after it. */
export type GuardStatements = Readonly<{ full: Statement; lean: Statement; solo: Statement }>;
const guardStatementsByRule = new Map<string, GuardStatements>();
export const guardStatements = (rule: AppendGuardRule): GuardStatements => {
  let built = guardStatementsByRule.get(rule.name);
  if (!built) {
    built = {
      full: { name: `ledger-append-${rule.name}`, text: appendStatement(true, rule.refusalSql), params: 20 },
      lean: { name: `ledger-append-lean-${rule.name}`, text: leanAppendStatement(true, rule.refusalSql), params: 20 },
      solo: { name: `ledger-append-solo-${rule.name}`, text: soloAppendStatement(true, rule.refusalSql), params: 13 },
    };
    guardStatementsByRule.set(rule.name, built);
  }
  return built;
};

/** The one guard rule of a batch (a batch mixing rules is a caller's mistake). */
const ruleOf = (requests: readonly AppendRequest[]): AppendGuardRule | undefined => {
  const rules = new Set(requests.flatMap((r) => (r.guards ?? []).map((g) => g.rule)));
  if (rules.size > 1) throw new TypeError('appendMany: one batch carries guards of different rules');
  return rules.values().next().value;
};

const fitsSolo = (requests: readonly AppendRequest[]): boolean => {
  const r = requests.length === 1 ? requests[0]! : undefined;
  return r !== undefined && r.events.length === 1 && (r.claims?.length ?? 0) <= 1 && (r.guards?.length ?? 0) <= 1;
};

const soloQuery = (r: AppendRequest, texts: Serialised): pg.QueryConfig => {
  const [event, [data, metadata], claim, guard] = [r.events[0]!, texts[0]!, r.claims?.[0], r.guards?.[0]];
  const statement = guard ? guardStatements(guard.rule).solo : SOLO_STATEMENTS[claim ? 'soloClaims' : 'solo'];
  const values = [r.streamId, String(r.expectedRevision), event.id, event.type, data, metadata, claim?.kind, claim?.key, claim?.owner];
  const guarded = guard ? [guard.userId, guard.usdAmount, guard.at.toISOString(), figuresLiteral(guard.figures)] : [];
  return { name: statement.name, text: statement.text, values: [...values, ...guarded].map((v) => v ?? null).slice(0, statement.params) };
};

const statementFor = (requests: readonly AppendRequest[], lean: boolean): Statement => {
  const rule = ruleOf(requests);
  if (rule) return guardStatements(rule)[lean ? 'lean' : 'full'];
  return requests.some((r) => (r.claims?.length ?? 0) > 0)
    ? STATEMENTS[lean ? 'leanClaims' : 'claims']
    : STATEMENTS[lean ? 'leanPlain' : 'plain'];
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const validate = (requests: readonly AppendRequest[]): void => {
  const streams = new Set<string>();
  for (const r of requests) {
    if (streams.has(r.streamId)) throw new TypeError(`appendMany: stream ${r.streamId} appears twice`);
    streams.add(r.streamId);
    if (r.events.length === 0) throw new TypeError(`append to ${r.streamId}: no events`);
    const ids = new Set(r.events.map((e) => e.id.toLowerCase()));
    if (ids.size !== r.events.length) throw new TypeError(`append to ${r.streamId}: an event id appears twice`);
    const bad = r.events.find((e) => !UUID.test(e.id));
    if (bad) throw new TypeError(`append to ${r.streamId}: event id ${bad.id} is not a uuid`);
    if (typeof r.expectedRevision === 'bigint' && r.expectedRevision < 0n) {
      throw new TypeError(`append to ${r.streamId}: expected revision ${r.expectedRevision} is negative`);
    }
  }
};

/** JSON.stringify escapes every control character: U+0001 separates documents in one text, unescaped, unlike a text[] literal. */
const DOCUMENTS = '\u0001';

type Serialised = readonly (readonly [string, string])[];
const serialise = (r: AppendRequest): Serialised =>
  r.events.map((ev) => [JSON.stringify(ev.data), JSON.stringify(ev.metadata ?? {})] as const);

const params = (requests: readonly AppendRequest[], texts: readonly Serialised[]): unknown[] => {
  const p: [string[], string[], (string | null)[], number[], number[], number[], string[], string[], string[], string[]] = [
    [],
    [],
    [],
    [],
    [],
    [],
    [],
    [],
    [],
    [],
  ];
  const c: [number[], string[], string[], string[], boolean[]] = [[], [], [], [], []];
  const g: [number[], string[], (string | null)[], string[], string[]] = [[], [], [], [], []];
  requests.forEach((r, i) => {
    for (const guard of r.guards ?? []) {
      g[0].push(i + 1);
      g[1].push(String(guard.userId));
      g[2].push(guard.usdAmount);
      g[3].push(guard.at.toISOString());
      g[4].push(figuresLiteral(guard.figures));
    }
    for (const claim of r.claims ?? []) {
      c[0].push(i + 1);
      c[1].push(claim.kind);
      c[2].push(claim.key);
      c[3].push(String(claim.owner));
      c[4].push(claim.fresh === true);
    }
    const e = r.expectedRevision;
    p[0].push(r.streamId);
    p[1].push(typeof e === 'bigint' ? 'exact' : e);
    p[2].push(typeof e === 'bigint' ? e.toString() : null);
    p[3].push(r.events.length);
    r.events.forEach((ev, j) => {
      p[4].push(i + 1);
      p[5].push(j + 1);
      p[6].push(ev.id);
      p[7].push(ev.type);
      p[8].push(texts[i]![j]![0]);
      p[9].push(texts[i]![j]![1]);
    });
  });
  const [streams, kinds, expected, counts, reqs, idxs, ids, types, data, meta] = p;
  return [streams, kinds, expected, counts, reqs, idxs, ids, types, data.join(DOCUMENTS), meta.join(DOCUMENTS), ...c, ...g];
};

type WinnerRow = {
  stream_id: string;
  revision: string | null;
  global_position: string | null;
  transaction_id: string | null;
  /** 'key', or 'guard:' and what the guard yielded; null when written. */
  refused: string | null;
};
type StoredRow = { event_id: string; stream_id: string; stream_revision: string; global_position: string; transaction_id: string };

const resolveLosers = async (pool: pg.Pool, losers: readonly AppendRequest[]): Promise<Map<AppendRequest, AppendOutcome>> => {
  const [stored, heads] = await Promise.all([
    pool.query<StoredRow>(
      `SELECT event_id::text AS event_id, stream_id, stream_revision, global_position, transaction_id::text AS transaction_id
       FROM events WHERE event_id = ANY($1::uuid[])`,
      [losers.flatMap((r) => r.events.map((e) => e.id))],
    ),
    pool.query<{ stream_id: string; revision: string }>(`SELECT stream_id, revision FROM streams WHERE stream_id = ANY($1::text[])`, [
      losers.map((r) => r.streamId),
    ]),
  ]);
  const byId = new Map(stored.rows.map((row) => [row.event_id, row]));
  const headOf = new Map(heads.rows.map((row) => [row.stream_id, BigInt(row.revision)]));
  const outcomes = new Map<AppendRequest, AppendOutcome>();
  for (const r of losers) {
    const found = r.events.flatMap((e) => byId.get(e.id.toLowerCase()) ?? []);
    if (found.length === 0) {
      outcomes.set(r, new WrongExpectedRevision(r.streamId, r.expectedRevision, headOf.get(r.streamId) ?? 'no_stream'));
    } else if (found.length === r.events.length && found.every((row) => row.stream_id === r.streamId)) {
      const last = found.reduce((a, b) => (BigInt(b.stream_revision) > BigInt(a.stream_revision) ? b : a));
      outcomes.set(r, {
        streamId: r.streamId,
        nextExpectedRevision: BigInt(last.stream_revision),
        position: { commit: BigInt(last.transaction_id), prepare: BigInt(last.global_position) },
        idempotent: true,
      });
    } else {
      outcomes.set(
        r,
        new DuplicateEventId(
          r.streamId,
          found.map((row) => row.event_id),
        ),
      );
    }
  }
  return outcomes;
};

/** Requests left out for a key: who owns each key now (a fresh snapshot sees writers the statement could not); a fresh
 * claim whose key the claimant already holds is named with the claimant as owner (the caller looks the key's item up). */
const resolveClashes = async (pool: pg.Pool, clashes: readonly AppendRequest[]): Promise<Map<AppendRequest, AppendOutcome>> => {
  const claims = clashes.flatMap((r) => r.claims ?? []);
  const { rows } = await pool.query<{ kind: string; key: string; user_id: string }>(
    'SELECT kind, key, user_id FROM ledger_keys WHERE (kind, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
    [claims.map((c) => c.kind), claims.map((c) => c.key)],
  );
  const owners = new Map(rows.map((r) => [`${r.kind}:${r.key}`, Number(r.user_id)]));
  const outcomes = new Map<AppendRequest, AppendOutcome>();
  for (const r of clashes) {
    const taken = (r.claims ?? []).flatMap((c) => {
      const owner = owners.get(`${c.kind}:${c.key}`);
      return owner !== undefined && (owner !== c.owner || c.fresh === true) ? [{ kind: c.kind, key: c.key, owner }] : [];
    });
    // Every key turned out to be free or the claimant's (a concurrent writer's claim): a lost race, decided again.
    outcomes.set(
      r,
      taken.length > 0 ? new KeyOwnedElsewhere(r.streamId, taken) : new WrongExpectedRevision(r.streamId, r.expectedRevision, 'no_stream'),
    );
  }
  return outcomes;
};

const queryFor = (requests: readonly AppendRequest[], texts: readonly Serialised[], lean: boolean): pg.QueryConfig => {
  if (lean && fitsSolo(requests)) return soloQuery(requests[0]!, texts[0]!);
  const statement = statementFor(requests, lean);
  return { name: statement.name, text: statement.text, values: params(requests, texts).slice(0, statement.params) };
};

const runStatement = async (
  pool: pg.Pool,
  requests: readonly AppendRequest[],
  texts: readonly Serialised[],
  lean = false,
): Promise<AppendOutcome[]> => {
  const { rows } = await pool.query<WinnerRow>(queryFor(requests, texts, lean));
  const won = new Map(rows.filter((row) => row.refused === null).map((row) => [row.stream_id, row]));
  const clashed = new Set(rows.filter((row) => row.refused === 'key').map((row) => row.stream_id));
  const guarded = new Map(
    rows.flatMap((row) => (row.refused?.startsWith('guard:') ? [[row.stream_id, row.refused.slice('guard:'.length)] as const] : [])),
  );
  const clashes = requests.filter((r) => clashed.has(r.streamId));
  const losers = requests.filter((r) => !won.has(r.streamId) && !clashed.has(r.streamId) && !guarded.has(r.streamId));
  const [lost, clashOutcomes] = await Promise.all([
    losers.length > 0 ? resolveLosers(pool, losers) : new Map<AppendRequest, AppendOutcome>(),
    clashes.length > 0 ? resolveClashes(pool, clashes) : new Map<AppendRequest, AppendOutcome>(),
  ]);
  return requests.map((r): AppendOutcome => {
    const row = won.get(r.streamId);
    const refusals = guarded.get(r.streamId);
    if (refusals !== undefined)
      return new GuardRefused(
        r.streamId,
        refusals.split('\u0001').map((x) => x || null),
      );
    if (!row) return lost.get(r) ?? clashOutcomes.get(r)!;
    const result: AppendResult = {
      streamId: r.streamId,
      nextExpectedRevision: BigInt(row.revision!),
      position: { commit: BigInt(row.transaction_id!), prepare: BigInt(row.global_position!) },
      idempotent: false,
    };
    return result;
  });
};

const sqlState = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;
const UNIQUE_VIOLATION = '23505';
const DEADLOCK = '40P01';

/** One request's data failures (22xxx, 23xxx, 54xxx, deadlock 40P01); a connection or server failure fails the whole batch. */
const belongsToOneRequest = (error: unknown): boolean => {
  const state = sqlState(error);
  return state !== undefined && (state.startsWith('22') || state.startsWith('23') || state.startsWith('54') || state === DEADLOCK);
};

const appendOne = async (pool: pg.Pool, request: AppendRequest, texts: Serialised, attempt = 1): Promise<AppendOutcome> => {
  try {
    return (await runStatement(pool, [request], [texts]))[0]!;
  } catch (error) {
    // A concurrent writer committed one of these ids while we ran: resolve like a lost race.
    if (sqlState(error) === UNIQUE_VIOLATION) {
      const outcome = (await resolveLosers(pool, [request])).get(request)!;
      // No id of ours is stored: the unique violation came from elsewhere (a constraint on our data).
      if (!(outcome instanceof WrongExpectedRevision)) return outcome;
    }
    if (sqlState(error) === DEADLOCK && attempt < 3) return appendOne(pool, request, texts, attempt + 1);
    if (belongsToOneRequest(error)) return new AppendRefused(request.streamId, sqlState(error), { cause: error });
    throw error;
  }
};

/** Splits a failed batch in halves until the requests that fail on their own are found; the others are written. */
const isolate = async (pool: pg.Pool, requests: readonly AppendRequest[], texts: readonly Serialised[]): Promise<AppendOutcome[]> => {
  if (requests.length === 1) return [await appendOne(pool, requests[0]!, texts[0]!)];
  try {
    return await runStatement(pool, requests, texts);
  } catch (error) {
    if (!belongsToOneRequest(error)) throw error;
    const mid = Math.ceil(requests.length / 2);
    const head = await isolate(pool, requests.slice(0, mid), texts.slice(0, mid));
    return [...head, ...(await isolate(pool, requests.slice(mid), texts.slice(mid)))];
  }
};

/** Lean (or solo) first when every revision is exact; a batch it cannot settle goes through the full statement. */
const appendReady = async (pool: pg.Pool, requests: readonly AppendRequest[], texts: readonly Serialised[]): Promise<AppendOutcome[]> => {
  if (!requests.every((r) => typeof r.expectedRevision === 'bigint')) return isolate(pool, requests, texts);
  try {
    return await runStatement(pool, requests, texts, true);
  } catch (error) {
    if (!belongsToOneRequest(error)) throw error;
    return isolate(pool, requests, texts);
  }
};

export const appendOutcomes = async (pool: pg.Pool, requests: readonly AppendRequest[]): Promise<AppendOutcome[]> => {
  validate(requests);
  if (requests.length === 0) return [];
  // A value JSON cannot carry (a BigInt, a cycle) is the request's own failure.
  const outcomes: (AppendOutcome | undefined)[] = [];
  const texts: Serialised[] = [];
  const ready: AppendRequest[] = [];
  for (const r of requests) {
    try {
      texts.push(serialise(r));
      ready.push(r);
      outcomes.push(undefined);
    } catch (error) {
      outcomes.push(new AppendRefused(r.streamId, undefined, { cause: error }));
    }
  }
  const written = ready.length === 0 ? [] : await appendReady(pool, ready, texts);
  let next = 0;
  return outcomes.map((o) => o ?? written[next++]!);
};
