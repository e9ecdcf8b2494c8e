/**
 * The load generator of bench:http, in a process of its own: `connections` keep-alive connections, each posting bets
 * of one unit (a fresh id each) back to back for `seconds`, spread over the players; latency from the request to
 * the end of the answer, in microseconds. argv[2]: JSON {url, token, connections, seconds, users}. Prints one JSON line.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { game } from './lib/game.js';

type Options = { url: string; token: string; connections: number; seconds: number; users: number[] };
const o = JSON.parse(process.argv[2]!) as Options;
const url = new URL(o.url);
const agent = new Agent({ keepAlive: true, maxSockets: o.connections });
const statuses = new Map<number, number>();
const latencies: number[] = [];
let n = 0;
let errors = 0;

const post = (body: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-service-token': o.token },
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const deadline = performance.now() + o.seconds * 1000;
const started = performance.now();
const cpuAtStart = process.cpuUsage();
await Promise.all(
  Array.from({ length: o.connections }, async () => {
    while (performance.now() < deadline) {
      n += 1;
      const body = JSON.stringify({
        id: randomUUID(),
        userId: o.users[n % o.users.length],
        roundId: `r-${n}`,
        gameId: 7,
        gameIdentity: game,
        currencyId: 'USDT',
        amount: '1',
      });
      const t0 = performance.now();
      try {
        const status = await post(body);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        latencies.push(performance.now() - t0);
      } catch {
        errors += 1;
      }
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuAtStart);
latencies.sort((a, b) => a - b);
const at = (p: number): number =>
  Math.round((latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? NaN) * 100) / 100;
const ok = [...statuses].filter(([s]) => s >= 200 && s < 300).reduce((a, [, c]) => a + c, 0);
agent.destroy();
console.log(
  JSON.stringify({
    requestsPerSec: latencies.length / elapsed,
    total: latencies.length,
    p50Ms: at(50),
    p99Ms: at(99),
    non2xx: latencies.length - ok,
    errors,
    statuses: Object.fromEntries(statuses),
    cpuMs: (cpu.user + cpu.system) / 1000,
  }),
);
