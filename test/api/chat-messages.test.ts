import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChat } from '../../src/commands/chat.js';
import { bearer, call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';
import { eventually } from '../support/eventually.js';

let env: AuthEnv;
let moderator = '';
const list = (query: string, token = moderator) => call(env.adminUrl, 'GET', `/chat/messages${query}`, { headers: bearer(token) });

beforeAll(async () => {
  env = await createAuthEnv('chat_messages');
  env.startProjector(); // the users read model, where the sender's chat flag is read
  moderator = (await signIn(env, await env.makeUser({ roles: ['User', 'Admin'], permissions: ['chat.admin-action'] }))).accessToken;
});
afterAll(async () => {
  await env?.close();
});

describe('GET /chat/messages', () => {
  it("when a room is read, then its visible messages newest first with each sender's chat flag; deleted ones and other rooms left out", async () => {
    const chat = createChat({ pool: env.pool, publish: async () => undefined });
    const [ana, ben] = [await env.makeUser(), await env.makeUser()];
    const send = async (roomId: string, userId: number, text: string) => {
      const sent = await chat.send({ roomId, userId, text });
      if (sent._tag === 'Left') throw new Error(sent.left._tag);
      return sent.right.id;
    };
    await send('en', ana.id, 'hello all');
    const spam = await send('en', ben.id, 'buy now');
    await send('es', ben.id, 'hola');
    await send('en', ben.id, 'sorry');
    const muted = await env.users.execute(ben.id, { type: 'UpdateProfile', data: { changes: { canUseChat: false } } }, null);
    expect(muted._tag).toBe('Right');
    await env.pool.query('UPDATE chat_messages SET deleted_at = now() WHERE id = $1', [spam]);

    await eventually(async () => {
      const reply = await list('?roomId=en');
      expect(reply.status).toBe(200);
      expect(
        reply.body.map((m: { text: string; username: string; senderCanUseChat: boolean }) => [m.text, m.username, m.senderCanUseChat]),
      ).toEqual([
        ['sorry', ben.username, false],
        ['hello all', ana.username, true],
      ]);
    });
    expect((await list('?roomId=en&take=1')).body).toHaveLength(1);
  });

  it('when the room is missing or take is out of range, then 400 naming the field; without chat.admin-action, 403', async () => {
    expect(await list('')).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(await list('?roomId=en&take=101')).toMatchObject({ status: 400, body: { details: [{ field: 'query.take' }] } });
    const plain = (await signIn(env, await env.makeUser({ roles: ['User', 'Admin'], permissions: ['user.view'] }))).accessToken;
    expect((await list('?roomId=en', plain)).status).toBe(403);
  });
});
