import { Router } from 'express';
import { isLeft } from 'fp-ts/lib/Either.js';
import { authOf } from './auth.adapter.js';
import { chatPublisher } from '../commands/chat.js';
import { recordChatAdminAction, type ChatModeration } from '../commands/content.js';
import type { Logger } from '../infra/logger.js';
import type { ServerEventBus } from '../infra/bus.js';
import { guardedRoutes } from './access.js';
import type { AdminOperation } from './admin-operation.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { CHAT_ACTION_ARGS, ChatAdminActionBody } from './content.schemas.js';
import { chatErrorToHttp } from './errors.js';
import { parseBody, z } from './validate.js';
import { ChatModeration as ChatModerationSchema } from './openapi.schemas.js';

/**
 * The body checked in two steps: `action` first (an unknown action is reported as <root>.action), then
 * `args` narrowed by the action, so that a bad argument is reported as <root>.args.<field>.
 */
const ChatAdminActionCommand = ChatAdminActionBody.pipe(
  z.discriminatedUnion('action', [
    z.object({ action: z.literal('delete_message'), args: CHAT_ACTION_ARGS.delete_message }),
    z.object({ action: z.literal('set_rate_limit'), args: CHAT_ACTION_ARGS.set_rate_limit }),
  ]),
);

/** Without a bus (a back office with no gateway), a deletion applies but nothing is pushed. */
export type ChatAdminDeps = Readonly<{ pool: BackOfficeDeps['pool']; bus?: ServerEventBus | undefined; logger?: Logger | undefined }>;

/** POST /chat/admin-action and the ChatAdminAction event. */
export const chatAdminAction: AdminOperation<ChatAdminDeps, typeof ChatAdminActionCommand, ChatModeration> = {
  permission: 'chat.admin-action',
  schema: ChatAdminActionCommand,
  run: async ({ pool, bus, logger }, input, adminUserId) => {
    const done = await recordChatAdminAction(pool, input, adminUserId, bus && chatPublisher(bus, logger));
    if (isLeft(done)) throw chatErrorToHttp(done.left);
    return done.right;
  },
};

/** Chat moderation, applied at once: a deleted message is pushed to its room as ChatMessageUpdate. */
export const chatAdminRoutes = (deps: BackOfficeDeps & Omit<ChatAdminDeps, 'pool'>): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  route(
    'post',
    '/chat/admin-action',
    { kind: 'perm', permission: chatAdminAction.permission },
    {
      summary: 'A chat admin action',
      request: { body: ChatAdminActionBody },
      responses: { 201: { description: 'The applied action', schema: ChatModerationSchema } },
    },
    async (req, res) => {
      res.status(201).json(await chatAdminAction.run(deps, parseBody(chatAdminAction.schema, req), authOf(req).userId));
    },
  );
  return router;
};
