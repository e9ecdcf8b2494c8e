import type { HeldDepositView } from '../../commands/ledger.types.js';
import { orThrow } from '../../commands/errors.js';
import { authOf } from '../../http/auth.adapter.js';
import type { BackOfficeDeps } from '../../http/back-office.deps.js';
import { Paginated } from '../../http/openapi.schemas.js';
import { input, page, perm, read, type Route } from '../../http/read-route.js';
import { parseBody, parseParams } from '../../http/validate.js';
import { listDeposits } from './deposits.queries.js';
import { DepositIdParams, DepositsQuery, HeldDepositDecisionBody, HeldDepositRecord } from './deposits.schemas.js';

export const depositsListRoute = read(
  'get',
  '/deposit',
  perm('deposits.view'),
  ['deposits', 'users'],
  input('query', DepositsQuery),
  listDeposits,
  {
    summary: 'List deposits',
    output: page('Paginated deposits', Paginated('PaginatedDeposits')),
  },
);

const DECISION_RULES =
  'Only for a COMPLETE deposit that completed held (past the deposit limit) and was neither released nor returned ' +
  '(409 DEPOSIT_NOT_HELD otherwise). The deposit id is the idempotency key: the same decision again answers the first ' +
  'outcome with no second posting (whatever its reason); the other decision is refused (409 DEPOSIT_ALREADY_SETTLED). ' +
  'Needs `user-limit.edit`: the money is held by the deposit limit, which that permission may change. The admin and ' +
  'the reason are recorded on the event and in the admin audit log.';

/** The back office's decision on a held deposit: release it to the player, or return it to its payer. */
export const depositsRoutes = (route: Route, deps: BackOfficeDeps): void => {
  const decision = (path: string, summary: string, description: string, command: 'releaseDeposit' | 'returnDeposit'): void =>
    route(
      'post',
      path,
      { kind: 'perm', permission: 'user-limit.edit' },
      {
        summary,
        description: `${description} ${DECISION_RULES}`,
        addition: true,
        request: { params: DepositIdParams, body: HeldDepositDecisionBody },
        responses: { 201: { description: 'The deposit and its hold', schema: HeldDepositRecord } },
        errors: { 404: ['DEPOSIT_NOT_FOUND'], 409: ['DEPOSIT_NOT_HELD', 'DEPOSIT_ALREADY_SETTLED'] },
      },
      async (req, res) => {
        const { id } = parseParams(DepositIdParams, req);
        const { reason } = parseBody(HeldDepositDecisionBody, req);
        const answer: HeldDepositView = orThrow(await deps.ledger[command](id, { adminUserId: authOf(req).userId, reason }));
        res.status(201).json(answer);
      },
    );
  decision(
    '/deposit/:id/release',
    "Release a held deposit to the player's balance",
    'Moves the deposit house:deposits-held -> user: the playable balance rises by exactly its amount. The deposit limit ' +
      "is not checked again: the release is the admin's explicit decision.",
    'releaseDeposit',
  );
  decision(
    '/deposit/:id/return',
    'Return a held deposit to its payer',
    'Moves the deposit house:deposits-held -> house:deposits-returned: the money goes back to the payer outside the ' +
      "ledger and the player's balance does not move.",
    'returnDeposit',
  );
};
