/**
 * The load generator of bench:http, in a process of its own: autocannon posting bets of one unit, each with a
 * fresh id, spread over the players. argv[2]: JSON {url, token, connections, seconds, users}. Prints one JSON line.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

type Options = { url: string; token: string; connections: number; seconds: number; users: number[] };
const o = JSON.parse(process.argv[2]!) as Options;
const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };
let n = 0;
const statuses = new Map<number, number>();

const result = await autocannon({
  url: o.url,
  connections: o.connections,
  duration: o.seconds,
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-service-token': o.token },
  requests: [{
    setupRequest: (req) => {
      n += 1;
      const userId = o.users[n % o.users.length]!;
      return { ...req, body: JSON.stringify({ id: randomUUID(), userId, roundId: `r-${n}`, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '1' }) };
    },
    onResponse: (status) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    },
  }],
});

console.log(JSON.stringify({
  requestsPerSec: result.requests.average,
  total: result.requests.total,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
  statuses: Object.fromEntries(statuses),
}));
