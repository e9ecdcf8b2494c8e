import fc from 'fast-check';
import { z } from 'zod';
import {
  AffiliateClaimBody,
  CreateDepositBody,
  CreateWithdrawalBody,
  DepositFailBody,
  DepositTxBody,
  WithdrawalCompleteBody,
  WithdrawalFailBody,
} from '../../src/http/internal.schemas.js';
import { ErrorBetBody, PlaceBetBody, RollbackBetBody, SettleBetBody } from '../../src/wallet/bets/bets.internal.js';

/**
 * Malformed requests for every operation of an OpenAPI document (and of the internal ledger API, which has no
 * document: its schemas are the routes' own zod schemas). Each request starts from a plausible one built from
 * the schemas and breaks one to three things in it: a value PostgreSQL cannot store, out of range, of the wrong
 * type, too long, too deep, an unknown key, a bad path segment or query value.
 */

type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type Operation = Readonly<{
  surface: 'public' | 'admin' | 'internal';
  method: string;
  path: string;
  params: readonly string[];
  query: ReadonlyArray<Readonly<{ name: string; schema: Schema }>>;
  body: Schema | undefined;
  components: Record<string, Schema>;
}>;
export type FuzzRequest = Readonly<{ op: Operation; method: string; path: string; body: string | undefined; label: string }>;

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of a served OpenAPI 3.1 document. */
export const operationsOf = (doc: Schema, surface: Operation['surface']): Operation[] => {
  const components = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Schema | undefined;
      if (!op) continue;
      const parameters = (op.parameters ?? []) as Schema[];
      out.push({
        surface,
        method: method.toUpperCase(),
        path,
        components,
        params: parameters.filter((p) => p.in === 'path').map((p) => String(p.name)),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: String(p.name), schema: (p.schema ?? {}) as Schema })),
        body: op.requestBody?.content?.['application/json']?.schema as Schema | undefined,
      });
    }
  }
  return out;
};

const INTERNAL: ReadonlyArray<readonly [string, z.ZodType | undefined]> = [
  ['POST /internal/deposits', CreateDepositBody],
  ['POST /internal/deposits/{id}/confirm', DepositTxBody],
  ['POST /internal/deposits/{id}/complete', DepositTxBody],
  ['POST /internal/deposits/{id}/fail', DepositFailBody],
  ['POST /internal/bets', PlaceBetBody],
  ['POST /internal/bets/{id}/settle', SettleBetBody],
  ['POST /internal/bets/{id}/rollback', RollbackBetBody],
  ['POST /internal/bets/{id}/error', ErrorBetBody],
  ['POST /internal/withdrawals', CreateWithdrawalBody],
  ['POST /internal/withdrawals/{id}/complete', WithdrawalCompleteBody],
  ['POST /internal/withdrawals/{id}/fail', WithdrawalFailBody],
  ['POST /internal/affiliate-claims', AffiliateClaimBody],
  ['GET /internal/wallets/{userId}/balances', undefined],
];

/** The internal ledger API's operations, their bodies from the routes' zod schemas. */
export const internalOperations = (): Operation[] =>
  INTERNAL.map(([route, schema]) => {
    const [method, path] = route.split(' ') as [string, string];
    const body = schema ? (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema) : undefined;
    return {
      surface: 'internal',
      method,
      path,
      params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
      query: [],
      body,
      components: {},
    };
  });

const resolve = (schema: Schema | undefined, components: Record<string, Schema>): Schema => {
  let s = schema ?? {};
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) s = components[String(s.$ref).split('/').pop()!] ?? {};
  const alternative = (s.anyOf ?? s.oneOf ?? s.allOf) as Schema[] | undefined;
  return alternative?.[0] ? resolve(alternative[0], components) : s;
};

/** A plausible value for a schema: what a careless but honest client would send. */
export const plausible = (schema: Schema | undefined, components: Record<string, Schema>, depth = 0): unknown => {
  const s = resolve(schema, components);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (depth > 6) return null;
  switch (type) {
    case 'string':
      return s.format === 'date-time'
        ? '2024-01-01T00:00:00Z'
        : /decimal|amount|balance/i.test(String(s.description ?? ''))
          ? '1'
          : 'fuzz1';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [plausible(s.items as Schema, components, depth + 1)];
    case 'object':
    default: {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(props).length === 0) return type === 'object' ? {} : '1';
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, plausible(v, components, depth + 1)]));
    }
  }
};

/**
 * JSON nested `levels` deep, as text: JSON.stringify itself recurses, so a deep value travels as a marker string
 * replaced by this text once the body is serialised.
 */
const deepText = (levels: number): string => `${'{"d":['.repeat(levels >> 1)}"deep"${']}'.repeat(levels >> 1)}`;
const DEEP = /"FUZZ_DEEP_(\d+)"/g;
const nest = (levels: number): string => `FUZZ_DEEP_${levels}`;
const serialise = (value: unknown): string => JSON.stringify(value).replace(DEEP, (_m, n: string) => deepText(Number(n)));

/** Strings a hostile caller sends: NUL, lone surrogates, dates PostgreSQL cannot store, huge or odd numbers, injections. */
export const hostileString = (maxLong: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      '\u0000',
      'a\u0000b',
      '\ud800',
      'x\udfffy',
      '',
      ' ',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59-23:59',
      '0001-01-01T00:00:00+00:01',
      '+275760-09-13T00:00:00.000Z',
      '-000001-01-01T00:00:00Z',
      '2024-02-30T25:61:00Z',
      '-1',
      '0',
      '-0',
      '1e309',
      '1e-400',
      'NaN',
      'Infinity',
      '0.0000000000000000000000001',
      '99999999999999999999999999999999',
      '__proto__',
      'constructor',
      "' OR 1=1 --",
      '%ZZ',
      '../../etc/passwd',
      'DBC',
      'BTC',
      'true',
      'null',
      '{}',
      '[]',
      '{"a":',
      '\\',
      '\u202e',
      '\ufeff',
    ),
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 10 }),
    fc.integer({ min: Math.min(65, maxLong), max: maxLong }).map((n) => '9'.repeat(n)),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  );

const hostileValue = (maxLong: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: hostileString(maxLong), weight: 6 },
    {
      arbitrary: fc.oneof(
        fc.constantFrom(-1, 0, 1.5, -0.5, 2 ** 31, 2 ** 53 + 2, 2 ** 64, 1e308, -1e308, 5e-324),
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
      ),
      weight: 3,
    },
    { arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { __proto__: { admin: true } }), weight: 2 },
    { arbitrary: fc.constantFrom(40, 300, 3_000, 12_000).map(nest), weight: 1 },
  );

const hostileSegment = fc.oneof(
  fc.constantFrom(
    '%ZZ',
    '%00',
    '%ED%A0%80',
    '%',
    '-1',
    '0',
    '1.5',
    '99999999999999999999999',
    'null',
    '%2e%2e',
    'x'.repeat(300),
    '1%00',
    '%C0%AF',
  ),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 6 }).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))),
  fc.integer().map(String),
);

/** The leaves (and objects) of a plausible body, as key paths. */
export const pathsOf = (value: unknown, prefix: string[] = [], out: string[][] = []): string[][] => {
  out.push(prefix);
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  }
  return out;
};

export const setAt = (root: unknown, path: readonly string[], value: unknown): unknown => {
  if (path.length === 0) return value;
  const copy: Record<string, unknown> = Array.isArray(root)
    ? ([...(root as unknown[])] as never)
    : { ...(root as Record<string, unknown>) };
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), value);
  return copy;
};

const encodeQuery = (value: unknown): string =>
  encodeURIComponent(
    typeof value === 'string'
      ? value.replace(/^FUZZ_DEEP_\d+$/, deepText(300)).replace(/[\ud800-\udfff]/g, '\ufffd')
      : (serialise(value) ?? ''),
  );

/** One malformed request for an operation. `idFor` gives a plausible value for a path parameter (an existing user, say). */
export const requestArb = (op: Operation, idFor: (param: string) => string): fc.Arbitrary<FuzzRequest> => {
  const base = op.body === undefined ? undefined : plausible(op.body, op.components);
  const targets = base === undefined ? [[]] : pathsOf(base);
  const mutation = fc.record({
    segments: fc.array(fc.option(hostileSegment, { freq: 2 }), { minLength: op.params.length, maxLength: op.params.length }),
    queries: fc.array(fc.tuple(fc.nat(), fc.option(hostileValue(2_000), { freq: 3 })), { maxLength: Math.max(1, op.query.length) }),
    filter: fc.option(
      fc.tuple(
        fc.constantFrom('createdAt', 'usdAmount', 'amount', 'vipLevel', 'multiplier', 'status', 'userId'),
        fc.constantFrom('lt', 'gte', 'equals', 'in', 'contains', 'x'),
        hostileString(3_000),
      ),
      { freq: 3 },
    ),
    edits: fc.array(fc.tuple(fc.nat(), hostileValue(20_000)), { minLength: op.body === undefined ? 0 : 1, maxLength: 3 }),
    extraKey: fc.option(fc.tuple(hostileString(50), hostileValue(100)), { freq: 4 }),
    rawBody: fc.option(fc.constantFrom('{', '[1,', '"\\ud800"', '{"a":1,"a":2}', 'null', '1e999', '\u0000'), { freq: 20 }),
  });
  return mutation.map((m) => {
    let path = op.path;
    op.params.forEach((name, i) => {
      path = path.replace(`{${name}}`, m.segments[i] ?? encodeURIComponent(idFor(name)));
    });
    const query: string[] = [];
    for (const [i, value] of m.queries) {
      const q = op.query[i % Math.max(1, op.query.length)];
      if (!q) continue;
      query.push(`${encodeURIComponent(q.name)}=${encodeQuery(value ?? plausible(q.schema, op.components))}`);
    }
    if (m.filter && op.method === 'GET') query.push(`where[${m.filter[0]}][${m.filter[1]}]=${encodeQuery(m.filter[2])}`);
    let body: unknown = base;
    for (const [i, value] of m.edits) body = setAt(body, targets[i % targets.length]!, value);
    if (m.extraKey && body !== null && typeof body === 'object' && !Array.isArray(body)) body = { ...body, [m.extraKey[0]]: m.extraKey[1] };
    const text = op.method === 'GET' ? undefined : (m.rawBody ?? (body === undefined ? undefined : serialise(body)));
    const url = `${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
    return { op, method: op.method, path: url, body: text, label: `${op.surface} ${op.method} ${op.path}` };
  });
};

/** An answer that shows internals: a stack frame, SQL, a PostgreSQL message, a file path. */
export const LEAK = [
  /\n\s+at \S+ \(?[^\n]*:\d+:\d+\)?/,
  /\bnode_modules\b/,
  /\/src\/\w+/,
  /\b(SELECT|INSERT INTO|UPDATE|DELETE FROM)\b[\s\S]*\b(FROM|VALUES|SET|WHERE)\b/,
  /duplicate key|violates .* constraint|syntax error at|invalid input syntax|out of range for type/i,
  /relation "|column "|unterminated|pg_catalog/i,
  /ECONNREFUSED|ETIMEDOUT|TypeError|ReferenceError|RangeError: Maximum call stack/,
];
export const leakIn = (text: string): string | undefined => LEAK.find((re) => re.test(text))?.source;
