import { Paginated } from '../../http/openapi.schemas.js';
import { input, page, perm, read } from '../../http/read-route.js';
import { listDeposits } from './deposits.queries.js';
import { DepositsQuery } from './deposits.schemas.js';

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
