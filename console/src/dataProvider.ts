import type { DataProvider, GetListParams, RaRecord } from 'react-admin';
import { api, query } from './api';

type Page = { data: RaRecord[]; take: number; page: number; total: number; totalPages: number };
type ListSpec = Readonly<{
  /** GET with the query string, or POST with a JSON body (bets, accounting transactions, users by body). */
  method: 'GET' | 'POST';
  path: string;
  /** react-admin sort field -> the API's `sortBy` enum value; unset: the API has no sortBy here. */
  sorts?: Readonly<Record<string, string>>;
  /** The console's filter form -> the API's fields (`where` objects included). */
  filters?: (filter: Record<string, unknown>) => Record<string, unknown>;
  /** Lists answered as a plain array or `{data}` without paging. */
  unpaged?: (json: unknown) => RaRecord[];
  take?: number;
  extra?: Record<string, unknown>;
  /** A filter the API requires: without it the list is empty (no call). */
  requires?: string;
  /** Filters typed as a name, an e-mail or an id (`user`, `admin`) -> the API's id filter they resolve to (`userId`). */
  byName?: Readonly<Record<string, string>>;
}>;

const clean = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && v !== null));
const num = (v: unknown): number | undefined => (v === undefined || v === '' || v === null ? undefined : Number(v));
const range = (f: Record<string, unknown>, from: string, to: string) =>
  f[from] || f[to]
    ? clean({
        gte: f[from] ? new Date(String(f[from])).toISOString() : undefined,
        lt: f[to] ? new Date(String(f[to])).toISOString() : undefined,
      })
    : undefined;

/** Every list of the API the console shows, with its exact parameters (docs/back-office.md). */
export const LISTS: Readonly<Record<string, ListSpec>> = {
  withdrawals: {
    method: 'GET',
    path: '/withdraw',
    sorts: { createdAt: 'CREATED_AT', usdAmount: 'USD_AMOUNT' },
    filters: (f) => clean({ status: f.status, userId: num(f.userId), username: f.username }),
    byName: { user: 'userId' },
  },
  deposits: {
    method: 'GET',
    path: '/deposit',
    sorts: { createdAt: 'CREATED_AT', usdAmount: 'USD_AMOUNT', completedAt: 'COMPLETED_AT', confirmedAt: 'CONFIRMED_AT' },
    filters: (f) => clean({ status: f.status, userId: num(f.userId) }),
    byName: { user: 'userId' },
  },
  bets: {
    method: 'POST',
    path: '/bets',
    sorts: { createdAt: 'CREATED_AT', multiplier: 'MULTIPLIER', usdAmount: 'USD_AMOUNT', usdPayout: 'USD_PAYOUT' },
    filters: (f) => ({
      where: clean({
        status: f.status,
        userId: num(f.userId),
        gameId: num(f.gameId),
        usdAmount: f.minUsdAmount ? { gte: String(f.minUsdAmount) } : undefined,
        gameIdentity: f.gameSlug ? { slug: { equals: f.gameSlug } } : undefined,
        createdAt: range(f, 'from', 'to'),
      }),
    }),
    byName: { user: 'userId' },
  },
  transactions: {
    method: 'POST',
    path: '/accounting/transactions',
    filters: (f) => ({
      where: clean({ userId: num(f.userId), currencyId: f.currencyId, type: f.type, createdAt: range(f, 'from', 'to') }),
    }),
    byName: { user: 'userId' },
  },
  'admin-tips': {
    method: 'GET',
    path: '/admin-tips',
    sorts: { amount: 'AMOUNT', createdAt: 'CREATED_AT', id: 'ID' },
    filters: (f) => clean({ recipientUserId: num(f.recipientUserId), senderUserId: num(f.senderUserId), search: f.q }),
    byName: { user: 'recipientUserId', admin: 'senderUserId' },
  },
  users: {
    method: 'GET',
    path: '/user/all',
    extra: { withBalance: true, withStatsUsd: true, withRoles: true },
    sorts: Object.fromEntries(
      ['id', 'username', 'email', 'createdAt', 'totalWagered', 'ggr', 'vipLevel', 'ltv', 'balance', 'lastLoginAt'].map((s) => [s, s]),
    ),
    filters: (f) =>
      clean({
        search: f.q,
        isBanned: f.isBanned,
        role: f.role,
        where: clean({
          vipLevel: f.vipLevel !== undefined && f.vipLevel !== '' ? { equals: Number(f.vipLevel) } : undefined,
          createdAt: range(f, 'from', 'to'),
        }),
      }),
  },
  'user-search': { method: 'GET', path: '/user/search', requires: 'q', filters: (f) => clean({ search: f.q }) },
  'admin-audit': {
    method: 'GET',
    path: '/admin-audit',
    filters: (f) =>
      clean({
        adminId: num(f.adminId),
        userId: num(f.userId),
        action: f.action,
        from: f.from ? new Date(String(f.from)).toISOString() : undefined,
        to: f.to ? new Date(String(f.to)).toISOString() : undefined,
      }),
    byName: { user: 'userId', admin: 'adminId' },
  },
  leaderboards: { method: 'GET', path: '/leaderboards', sorts: { createdAt: 'created' }, filters: (f) => clean({ status: f.status }) },
  schedules: {
    method: 'GET',
    path: '/leaderboards/schedule',
    unpaged: (j) => (Array.isArray(j) ? j : ((j as { data?: RaRecord[] }).data ?? [])),
  },
  faq: { method: 'GET', path: '/faq', unpaged: (j) => (j as { data: RaRecord[] }).data },
  'stats-deposits': {
    method: 'GET',
    path: '/user/stats/transactions',
    take: 30,
    extra: { transactionType: 'DEPOSIT' },
    sorts: { amount: 'amount' },
    filters: (f) => clean({ dataRange: f.dataRange }),
  },
  'stats-withdrawals': {
    method: 'GET',
    path: '/user/stats/transactions',
    take: 30,
    extra: { transactionType: 'WITHDRAW' },
    sorts: { amount: 'amount' },
    filters: (f) => clean({ dataRange: f.dataRange }),
  },
};

/** Who a typed name, e-mail or id is, asked once a minute at most (the lists then filter by id, on the API's indexes). */
const resolved = new Map<string, { at: number; id: Promise<number | undefined> }>();
export const resolveUser = (text: string): Promise<number | undefined> => {
  const typed = text.trim();
  if (/^#?\d+$/.test(typed)) return Promise.resolve(Number(typed.replace('#', '')));
  const key = typed.toLowerCase();
  const cached = resolved.get(key);
  if (cached && Date.now() - cached.at < 60_000) return cached.id;
  const id = api<{ data: { id: number; username: string | null; email: string | null }[] }>(
    'GET',
    `/user/search${query({ search: typed, page: 1, take: 20 })}`,
  ).then(({ json }) => {
    // The exact name or e-mail first; otherwise the only user whose name or e-mail holds the text.
    const exact = json.data.find((u) => u.username?.toLowerCase() === key || u.email?.toLowerCase() === key);
    return exact?.id ?? (json.data.length === 1 ? json.data[0]!.id : undefined);
  });
  id.catch(() => resolved.delete(key));
  resolved.set(key, { at: Date.now(), id });
  return id;
};
const resolveNames = async (filter: Record<string, unknown>, byName: Readonly<Record<string, string>>) => {
  const out: Record<string, unknown> = { ...filter };
  for (const [typed, idField] of Object.entries(byName)) {
    if (!filter[typed]) continue;
    const id = await resolveUser(String(filter[typed]));
    if (id === undefined) return undefined;
    delete out[typed];
    out[idField] = id;
  }
  return out;
};

/** Records without an id of their own get one (stats buckets by period). */
const withIds = (rows: RaRecord[]): RaRecord[] =>
  rows.map((r, i) => (r.id === undefined ? { ...r, id: (r as { period?: string }).period ?? i } : r));

/** The API's pages of `take` rows that hold rows [offset, offset + count): the console's page need not be one of the API's. */
export const apiPagesFor = (offset: number, count: number, take: number): { pages: number[]; skip: number } => {
  const first = Math.floor(offset / take) + 1;
  const last = Math.floor((offset + count - 1) / take) + 1;
  return { pages: Array.from({ length: last - first + 1 }, (_, i) => first + i), skip: offset - (first - 1) * take };
};

export const fetchList = async (resource: string, params: Partial<GetListParams>): Promise<{ data: RaRecord[]; total: number }> => {
  const spec = LISTS[resource];
  if (!spec) throw new Error(`No list for ${resource}`);
  if (spec.requires && !params.filter?.[spec.requires]) return { data: [], total: 0 };
  if (spec.byName && params.filter && Object.keys(spec.byName).some((k) => params.filter?.[k])) {
    const filter = await resolveNames(params.filter, spec.byName);
    // A name that matches no user: nothing to list (the API is not asked for everyone instead).
    if (!filter) return { data: [], total: 0 };
    return fetchList(resource, { ...params, filter });
  }
  const { page = 1, perPage = 20 } = params.pagination ?? {};
  const maxTake = spec.take ?? 20;
  // A page the API can answer at once is asked at once; a longer one (25 rows of a list paged by 20) joins the API's pages.
  if (!spec.unpaged && perPage > maxTake) {
    const { pages, skip } = apiPagesFor((page - 1) * perPage, perPage, maxTake);
    const answers = await Promise.all(pages.map((p) => fetchList(resource, { ...params, pagination: { page: p, perPage: maxTake } })));
    return { data: answers.flatMap((a) => a.data).slice(skip, skip + perPage), total: answers[answers.length - 1]!.total };
  }
  const sort = params.sort;
  const sortBy = sort && spec.sorts ? spec.sorts[sort.field] : undefined;
  const fields = clean({
    page,
    take: Math.min(perPage, maxTake),
    ...spec.extra,
    ...(spec.sorts ? { sortBy: sortBy ?? Object.values(spec.sorts)[0], sortOrder: sort?.order === 'ASC' ? 'asc' : 'desc' } : {}),
    ...(spec.method === 'POST' && !spec.sorts ? { sortOrder: sort?.order === 'ASC' ? 'asc' : 'desc' } : {}),
    ...(spec.filters ? spec.filters(params.filter ?? {}) : {}),
  });
  if (fields.where && Object.keys(fields.where as object).length === 0) delete fields.where;
  const answer =
    spec.method === 'GET' ? await api<unknown>('GET', `${spec.path}${query(fields)}`) : await api<unknown>('POST', spec.path, fields);
  if (spec.unpaged) {
    const rows = withIds(spec.unpaged(answer.json));
    return { data: rows, total: rows.length };
  }
  const json = answer.json as Page;
  return { data: withIds(json.data), total: json.total };
};

const ONE: Readonly<Record<string, (id: string) => string>> = {
  users: (id) => `/user/${encodeURIComponent(id)}`,
  'user-search': (id) => `/user/${encodeURIComponent(id)}`,
  leaderboards: (id) => `/leaderboards/${encodeURIComponent(id)}`,
  schedules: (id) => `/leaderboards/schedule/${encodeURIComponent(id)}`,
};

/** react-admin's provider over the API as it is: lists by `page`/`take` and sort enums; commands (not CRUD) come from the screens. */
export const dataProvider: DataProvider = {
  getList: (resource, params) => fetchList(resource, params) as never,
  getOne: async (resource, params) => {
    const one = ONE[resource];
    if (one) return { data: (await api<RaRecord>('GET', one(String(params.id)))).json } as never;
    // Lists without a GET by id: the row from the list (withdrawals by id, FAQ).
    const { data } = await fetchList(resource, { pagination: { page: 1, perPage: 20 }, filter: { id: params.id } });
    const found = data.find((r) => String(r.id) === String(params.id));
    if (!found) throw new Error('Not found');
    return { data: found } as never;
  },
  getMany: async (resource, params) =>
    ({ data: await Promise.all(params.ids.map(async (id) => (await dataProvider.getOne(resource, { id })).data)) }) as never,
  getManyReference: (resource, params) =>
    fetchList(resource, { ...params, filter: { ...params.filter, [params.target]: params.id } }) as never,
  create: async () => {
    throw new Error("Use the screen's action");
  },
  update: async () => {
    throw new Error("Use the screen's action");
  },
  updateMany: async () => {
    throw new Error("Use the screen's action");
  },
  delete: async () => {
    throw new Error("Use the screen's action");
  },
  deleteMany: async () => {
    throw new Error("Use the screen's action");
  },
};
