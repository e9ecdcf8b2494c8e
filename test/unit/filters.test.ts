import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileString,
  compileWhere,
  DecimalFilter,
  escapeLike,
  nestedQuery,
  SqlParams,
  StringFilter,
  type FieldMap,
} from '../../src/http/filters.js';
import { BetsFilter } from '../../src/wallet/bets/bets.schemas.js';

const FIELDS: FieldMap = {
  userId: { kind: 'equals', column: 'b.user_id', cast: 'bigint' },
  usdAmount: { kind: 'decimal', column: 'b.usd_amount' },
  multiplier: { kind: 'number', column: 'b.multiplier' },
  createdAt: { kind: 'date', column: 'b.created_at' },
  game: { kind: 'nested', fields: { slug: { kind: 'string', column: 'b.game_slug' } } },
};

describe('filter compiler', () => {
  it('when a filter object is compiled, then every value is a bind parameter in order and columns come from the map', () => {
    const p = new SqlParams();
    const sql = compileWhere(
      FIELDS,
      {
        userId: 7,
        usdAmount: { gte: '10.5', lt: '20' },
        multiplier: { equals: 2 },
        createdAt: { gt: '2026-01-01T00:00:00Z' },
        game: { slug: { equals: 'dice' } },
        unknownColumn: { equals: 'x' },
      },
      p,
    );
    expect(sql).toEqual([
      'b.user_id = $1::bigint',
      'b.usd_amount < $2::numeric',
      'b.usd_amount >= $3::numeric',
      'b.multiplier = $4::numeric',
      'b.created_at > $5::timestamptz',
      'b.game_slug = $6',
    ]);
    expect(p.values).toEqual(['7', '20', '10.5', '2', '2026-01-01T00:00:00Z', 'dice']);
  });

  it('when a string filter is insensitive, then both sides are lower-cased and LIKE becomes ILIKE with wildcards escaped', () => {
    const p = new SqlParams();
    const sql = compileString('c', { mode: 'insensitive', equals: 'AbC', in: ['X', 'y'], contains: '50%_off\\', not: 'Q' }, p);
    expect(sql).toEqual([
      'lower(c) = lower($1)',
      'lower(c) = ANY($2::text[])',
      'lower(c) IS DISTINCT FROM lower($3)',
      "c ILIKE $4 ESCAPE '\\'",
    ]);
    expect(p.values).toEqual(['AbC', ['x', 'y'], 'Q', '%50\\%\\_off\\\\%']);
  });

  it('when a string filter uses every operator, then each becomes one condition', () => {
    const p = new SqlParams();
    const sql = compileString('c', { equals: 'a', lt: 'b', lte: 'c', gt: 'd', gte: 'e', notIn: ['f'], startsWith: 'g', endsWith: 'h' }, p);
    expect(sql).toEqual([
      'c < $1',
      'c <= $2',
      'c > $3',
      'c >= $4',
      'c = $5',
      'NOT (c = ANY($6::text[]))',
      "c LIKE $7 ESCAPE '\\'",
      "c LIKE $8 ESCAPE '\\'",
    ]);
    expect(p.values).toEqual(['b', 'c', 'd', 'e', 'a', ['f'], 'g%', '%h']);
  });

  it('when any text is sent in any string operator, then it never appears in the SQL text', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.constantFrom('equals', 'contains', 'startsWith', 'endsWith', 'not', 'lt', 'gte'),
        (s, op) => {
          const input = `zz${s}'--`;
          const p = new SqlParams();
          const sql = compileString('t.col', { [op]: input }, p).join(' AND ');
          expect(sql).not.toContain(input);
          expect(sql).not.toContain("'--");
        },
      ),
    );
  });

  it('when LIKE wildcards are escaped, then %, _ and backslash are literal', () => {
    expect(escapeLike('a%b_c\\d')).toBe('a\\%b\\_c\\\\d');
  });
});

describe('filter schemas', () => {
  it('when a DecimalFilter holds a malformed decimal, then it is refused', () => {
    expect(DecimalFilter.safeParse({ gte: '1e5' }).success).toBe(false);
    expect(DecimalFilter.safeParse({ gte: 'ten' }).success).toBe(false);
    expect(DecimalFilter.safeParse({ gte: '10.25', lt: '-3' }).success).toBe(true);
  });

  it('when a StringFilter has an unknown mode or key, then it is refused; a single `in` value becomes a list', () => {
    expect(StringFilter.safeParse({ mode: 'fuzzy' }).success).toBe(false);
    expect(StringFilter.safeParse({ like: 'x' }).success).toBe(false);
    expect(StringFilter.parse({ in: 'one' })).toEqual({ in: ['one'] });
  });

  it('when a BetsFilter has no status, then SETTLED; currencyId other than DBC and provider ids are refused', () => {
    expect(BetsFilter.parse({}).status).toBe('SETTLED');
    expect(BetsFilter.safeParse({ currencyId: 'BTC' }).success).toBe(false);
    expect(BetsFilter.safeParse({ gameIdentity: { providerId: { equals: 1 } } }).success).toBe(false);
    expect(BetsFilter.parse({ gameId: '12', multiplier: { gte: '1.5' } })).toMatchObject({ gameId: 12, multiplier: { gte: 1.5 } });
  });
});

describe('nested query strings', () => {
  it('when keys are bracketed, then they nest; repeated and [] keys become arrays', () => {
    expect(
      nestedQuery('/bets?sortBy=CREATED_AT&where[status]=SETTLED&where[usdAmount][gte]=10&where[g][in][]=a&where[g][in][]=b&x=1&x=2'),
    ).toEqual({ sortBy: 'CREATED_AT', where: { status: 'SETTLED', usdAmount: { gte: '10' }, g: { in: ['a', 'b'] } }, x: ['1', '2'] });
  });

  it('when a key would reach the prototype or nests too deep, then it is dropped', () => {
    const q = nestedQuery('/?__proto__[polluted]=1&where[constructor][prototype][x]=1&a[b][c][d][e][f][g]=1');
    expect(q).toEqual({});
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('when a value is percent-encoded JSON, then it arrives as one string', () => {
    expect(nestedQuery(`/bets?where=${encodeURIComponent('{"status":"ERROR"}')}`)).toEqual({ where: '{"status":"ERROR"}' });
  });
});
