import { readdir, readFile } from 'node:fs/promises';

/** CPU ms (user + system) a process has used so far, from /proc (Linux); undefined where unreadable. */
export const processCpuMs = async (pid: number | string): Promise<number | undefined> => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks (USER_HZ 100)
};

/** CPU ms of each PostgreSQL server process on this machine, by pid (the database must be local for this to mean anything). */
export const postgresCpuMs = async (): Promise<Map<string, number> | undefined> => {
  const pids = await readdir('/proc').catch(() => undefined);
  if (!pids) return undefined;
  const cpu = new Map<string, number>();
  for (const pid of pids.filter((d) => /^\d+$/.test(d))) {
    const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
    const ms = comm.trim() === 'postgres' ? await processCpuMs(pid) : undefined;
    if (ms !== undefined) cpu.set(pid, ms);
  }
  return cpu;
};

/** CPU PostgreSQL used between two readings: a process that ended in between is not counted (the benches keep their connections). */
export const postgresCpuSpent = (before: Map<string, number> | undefined, after: Map<string, number> | undefined): number | undefined =>
  before && after ? [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0) : undefined;

/** CPU ms of each thread of a process so far, by thread id (Linux); the main thread's id is the process id. */
export const threadCpuMs = async (pid: number): Promise<Map<string, number>> => {
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const cpu = new Map<string, number>();
  for (const tid of tids) {
    const ms = await processCpuMs(`${pid}/task/${tid}`);
    if (ms !== undefined) cpu.set(tid, ms);
  }
  return cpu;
};

/**
 * A process's CPU between two readings, split: its main thread, its busiest other thread (in the service with every
 * role, the followers' worker thread), and the rest (V8's garbage collector and compiler helpers, libuv's pool).
 */
export const threadCpuSpent = (pid: number, before: Map<string, number>, after: Map<string, number>) => {
  const spent = [...after].map(([tid, ms]) => [tid, ms - (before.get(tid) ?? 0)] as const);
  const main = spent.find(([tid]) => tid === String(pid))?.[1] ?? 0;
  const others = spent.filter(([tid]) => tid !== String(pid)).map(([, ms]) => ms);
  const busiest = Math.max(0, ...others);
  return { main, busiestOther: busiest, rest: others.reduce((a, b) => a + b, 0) - busiest };
};
