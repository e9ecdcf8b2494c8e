/** Request bodies of the internal ledger API, each with fresh ids; `over` replaces any field. */
let nextId = 0;
export const uid = (prefix: string): string => `${prefix}-${Date.now()}-${++nextId}`;

type Over = Record<string, unknown>;

export const depositBody = (userId: number, over: Over = {}) => ({
  externalId: uid('ext'),
  userId,
  providerId: 'PROVIDER_A',
  networkId: 'BTC',
  currencyId: 'BTC',
  amount: '1.5',
  ...over,
});
export const betBody = (userId: number, over: Over = {}) => ({
  id: uid('bet'),
  userId,
  roundId: uid('round'),
  gameId: 7,
  gameIdentity: { name: 'Dice', slug: 'dice', type: 'original', provider: { name: 'House' } },
  currencyId: 'BTC',
  amount: '0.1',
  ...over,
});
export const withdrawalBody = (userId: number, over: Over = {}) => ({
  userId,
  currencyId: 'BTC',
  networkId: 'BTC',
  providerId: 'PROVIDER_B',
  amount: '0.25',
  recipientAddress: 'bc1qexample',
  ...over,
});
