import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every file below `dir` whose name matches `name`, at any depth. */
export const filesUnder = (dir: string, name: RegExp): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), name) : name.test(e.name) ? [join(dir, e.name)] : [],
  );
