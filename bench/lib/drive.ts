import { monitorEventLoopDelay } from 'node:perf_hooks';
import { postgresCpuMs, postgresCpuSpent } from './cpu.js';
import { percentile, round } from './stats.js';

/** Runs `worker` on `concurrency` loops for `seconds`; returns ops/s, latency percentiles in ms, and CPU µs per op here and in PostgreSQL. */
export const drive = async (concurrency: number, seconds: number, worker: (client: number, i: number) => Promise<number>) => {
  const deadline = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let ops = 0;
  const pgBefore = await postgresCpuMs();
  const cpuBefore = process.cpuUsage();
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      for (let i = 0; performance.now() < deadline; i += 1) {
        const t0 = performance.now();
        const done = await worker(client, i); // not `ops += await ...`: that reads ops before awaiting
        ops += done;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  loopDelay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const pgSpent = postgresCpuSpent(pgBefore, await postgresCpuMs());
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    opsPerSec: round(ops / elapsed, 0),
    p50Ms: round(percentile(latencies, 50), 3),
    p99Ms: round(percentile(latencies, 99), 3),
    nodeCpuUsPerOp: round((cpu.user + cpu.system) / Math.max(1, ops), 0),
    postgresCpuUsPerOp: pgSpent === undefined ? undefined : round((pgSpent * 1000) / Math.max(1, ops), 0),
    /** How long the loops' own thread was held up: what a request beside them would wait on top of its own work. */
    loopDelayP99Ms: round(loopDelay.percentile(99) / 1e6),
    loopDelayMaxMs: round(loopDelay.max / 1e6),
  };
};
export type Driven = Awaited<ReturnType<typeof drive>>;

/** "CPU per op: this process N µs, PostgreSQL P µs" for a drive() result (an op is an insert or a command). */
export const cpuLine = (r: { nodeCpuUsPerOp: number; postgresCpuUsPerOp: number | undefined }): string =>
  `CPU per op: this process ${r.nodeCpuUsPerOp} µs, PostgreSQL ${r.postgresCpuUsPerOp ?? '?'} µs`;
