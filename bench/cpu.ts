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
