/**
 * node dist/scripts/healthcheck.js: the image's HEALTHCHECK. Asks this process's own GET /health (ADMIN_PORT with the
 * admin-api role, else METRICS_PORT, else PUBLIC_PORT with the public-api role); a process with none of them (a gateway
 * or projector without METRICS_PORT) is checked by a TCP connect to WS_PORT, or counts as healthy while it runs.
 * Exit 0 = healthy, 1 = not.
 */
import { connect } from 'node:net';

const env = process.env;
const roles = new Set((env.ROLES || 'public-api,admin-api,gateway,projector,scheduler').split(',').map((r) => r.trim()));
const port = roles.has('admin-api')
  ? env.ADMIN_PORT || '3001'
  : env.METRICS_PORT
    ? env.METRICS_PORT
    : roles.has('public-api')
      ? env.PUBLIC_PORT || '3000'
      : undefined;

const fail = (why: string): void => {
  process.stderr.write(`unhealthy: ${why}\n`);
  process.exitCode = 1;
};

if (port !== undefined) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(4_000) });
    if (!res.ok) fail(`GET /health answered ${res.status}: ${await res.text()}`);
  } catch (error) {
    fail((error as Error).message);
  }
} else if (roles.has('gateway')) {
  await new Promise<void>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(env.WS_PORT || '3002') });
    socket.setTimeout(4_000, () => {
      socket.destroy();
      fail('gateway port timed out');
      resolve();
    });
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('error', (error) => {
      fail(error.message);
      resolve();
    });
  });
}
