import { Paginated } from '../../http/openapi.schemas.js';
import { input, nested, page, perm, read } from '../../http/read-route.js';
import { listBets } from './bets.queries.js';
import { BetRecord, BetsBody, BetsQuery } from './bets.schemas.js';

const PaginatedBets = Paginated('PaginatedBets', BetRecord);

/** GET /bets (the filter in the query string) and POST /bets (in the body): the bets read model. */
export const betsListRoutes = [
  read('get', '/bets', perm('user.bets.view'), ['bets', 'users'], nested(BetsQuery), listBets, {
    summary: 'List bets',
    output: page('Paginated bets', PaginatedBets),
  }),
  read('post', '/bets', perm('user.bets.view'), ['bets', 'users'], input('body', BetsBody), listBets, {
    summary: 'List bets (filter in the body)',
    output: page('Paginated bets', PaginatedBets, true),
  }),
] as const;
