import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
let editor = '';
let reader = '';
const fieldsOf = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);
const send = (method: string, body?: unknown, token = editor) =>
  call(env.adminUrl, method, '/faq', { headers: bearer(token), ...(body === undefined ? {} : { body }) });
const titles = async () =>
  ((await send('GET', undefined, reader)).body.data as { title: string; order: number }[]).map((f) => `${f.order}:${f.title}`);

beforeAll(async () => {
  env = await createAuthEnv('faq');
  editor = (await signIn(env, await env.makeUser({ roles: ['User', 'Admin'], permissions: ['faq.edit'] }))).accessToken;
  reader = (await signIn(env, await env.makeUser({ roles: ['User', 'Admin'] }))).accessToken;
});
beforeEach(async () => {
  await env.pool.query('TRUNCATE faq RESTART IDENTITY');
});
afterAll(async () => {
  await env?.close();
});

const seed = async (...names: string[]) => {
  const ids: number[] = [];
  for (const title of names) ids.push((await send('POST', { title, text: `${title} text` })).body.id);
  return ids;
};

describe('POST /faq', () => {
  it('when an editor creates FAQs, then 201 with id, title, text and the next order', async () => {
    const first = await send('POST', { title: 'Deposits', text: 'How to deposit' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(Number), title: 'Deposits', text: 'How to deposit', order: 1 });
    expect((await send('POST', { title: 'Withdrawals', text: 'How to withdraw' })).body.order).toBe(2);
  });

  it.each([
    ['a missing title', { text: 't' }, 'body.title'],
    ['an empty text', { title: 't', text: '' }, 'body.text'],
    ['a numeric title', { title: 5, text: 't' }, 'body.title'],
  ])('when %s, then 400 VALIDATION_FAILED and nothing is created', async (_name, body, field) => {
    const reply = await send('POST', body);
    expect(reply.status).toBe(400);
    expect(fieldsOf(reply.body)).toContain(field);
    expect(await titles()).toEqual([]);
  });

  it('when an Admin without faq.edit writes, then 403; any Admin may read', async () => {
    expect((await send('POST', { title: 't', text: 't' }, reader)).status).toBe(403);
    expect((await send('GET', undefined, reader)).status).toBe(200);
  });
});

describe('GET /faq', () => {
  it('when FAQs exist, then 200 {data} ordered by order', async () => {
    await seed('a', 'b', 'c');
    const reply = await send('GET', undefined, reader);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((f: { title: string }) => f.title)).toEqual(['a', 'b', 'c']);
  });
});

describe('PUT /faq', () => {
  it('when the title and text change, then 200 with the FAQ and the order kept', async () => {
    const [, id] = await seed('a', 'b');
    const reply = await send('PUT', { id, title: 'B', text: 'new' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id, title: 'B', text: 'new', order: 2 });
  });

  it('when an FAQ moves up or down, then the others shift so that orders stay 1..n', async () => {
    const [a, , , d] = await seed('a', 'b', 'c', 'd');
    await send('PUT', { id: d, order: 1 });
    expect(await titles()).toEqual(['1:d', '2:a', '3:b', '4:c']);
    await send('PUT', { id: a, order: 4 });
    expect(await titles()).toEqual(['1:d', '2:b', '3:c', '4:a']);
    await send('PUT', { id: a, order: 99 });
    expect(await titles()).toEqual(['1:d', '2:b', '3:c', '4:a']);
  });

  it('when the id is unknown, then 404 FAQ_NOT_FOUND; a bad order is 400 and nothing changes', async () => {
    const [id] = await seed('a', 'b');
    expect((await send('PUT', { id: 999, title: 'x' })).body.code).toBe('FAQ_NOT_FOUND');
    const bad = await send('PUT', { id, order: 0, title: 'changed' });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('body.order');
    expect(await titles()).toEqual(['1:a', '2:b']);
  });
});

describe('DELETE /faq', () => {
  it('when an FAQ is deleted, then 200 with it and the later ones move up', async () => {
    const [, b] = await seed('a', 'b', 'c');
    const reply = await send('DELETE', { id: b });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: b, title: 'b', text: 'b text', order: 2 });
    expect(await titles()).toEqual(['1:a', '2:c']);
  });

  it('when the id is unknown, then 404; a missing id is 400', async () => {
    expect((await send('DELETE', { id: 12345 })).status).toBe(404);
    const bad = await send('DELETE', {});
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('body.id');
  });
});
