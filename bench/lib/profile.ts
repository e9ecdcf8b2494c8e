import { Session } from 'node:inspector/promises';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** With BENCH_PROFILE_DIR set and a name given, a CPU profile of this process while `f` runs, as `<name>.cpuprofile` there. */
export const profiled = async <T>(name: string | undefined, f: () => Promise<T>): Promise<T> => {
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir || name === undefined) return f();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await f();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
};
