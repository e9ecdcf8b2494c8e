import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, signIn } from '../support/auth-env.js';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
let viewerToken = '';
let plainAdminToken = '';
const ids: Record<string, number> = {};

beforeAll(async () => {
  w = await createListsEnv('users_search');
  for (const name of ['srchAlpha', 'srchBeta', 'srch_x']) ids[name] = (await w.env.makeUser({ username: name })).id;
  const viewer = await w.env.makeUser({ roles: ['User', 'Admin'], permissions: ['user.view'] });
  const plain = await w.env.makeUser({ roles: ['User', 'Admin'] });
  viewerToken = (await signIn(w.env, viewer)).accessToken;
  plainAdminToken = (await signIn(w.env, plain)).accessToken;
  await w.caughtUp();
}, 60_000);
afterAll(async () => {
  await w.env.close();
});

const search = (token: string, query: string) => call(w.env.adminUrl, 'GET', `/user/search?${query}`, { headers: bearer(token) });

describe('GET /user/search (Admin with user.view)', () => {
  it('when an Admin with user.view searches part of a name in another case, then the matching users come newest first with their short record', async () => {
    const reply = await search(viewerToken, 'search=SRCHa');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ page: 1, take: 20, total: 1, totalPages: 1 });
    expect(reply.body.data).toEqual([
      {
        id: ids.srchAlpha,
        username: 'srchAlpha',
        email: expect.stringContaining('@'),
        isBanned: false,
        roles: ['User'],
        createdAt: expect.any(String),
      },
    ]);
    const all = await search(viewerToken, 'search=srch');
    expect(all.body.data.map((u: { id: number }) => u.id)).toEqual([ids.srch_x, ids.srchBeta, ids.srchAlpha]);
  });

  it('when the search is an id, then that user is found; "_" is a literal character, not a wildcard', async () => {
    expect((await search(viewerToken, `search=${ids.srchBeta}`)).body.data.map((u: { id: number }) => u.id)).toContain(ids.srchBeta);
    expect((await search(viewerToken, 'search=srch_')).body.data.map((u: { username: string }) => u.username)).toEqual(['srch_x']);
  });

  it('when the search is missing, then 400 names query.search; without user.view, then 403', async () => {
    const missing = await search(viewerToken, '');
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([expect.objectContaining({ field: 'query.search' })]);
    const refused = await search(plainAdminToken, 'search=srch');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
  });
});
