/**
 * Builds the admin console (console/ -> console/dist) when the build is missing or older than any of its sources, so
 * `npm start` and `npm test` always serve the current console without rebuilding an unchanged one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const consoleDir = path.join(root, 'console');
const built = path.join(consoleDir, 'dist', 'index.html');

const newest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
    if (e.name === 'dist' || e.name === 'node_modules') return m;
    const p = path.join(dir, e.name);
    return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }, 0);

export const consoleBuildIsStale = (): boolean => {
  if (!existsSync(built)) return true;
  const lock = path.join(root, 'package-lock.json');
  // The console bundles pure lists from src/domain and src/shared: a change there is a change of the console.
  const sources = Math.max(newest(consoleDir), newest(path.join(root, 'src', 'domain')), newest(path.join(root, 'src', 'shared')));
  return Math.max(sources, existsSync(lock) ? statSync(lock).mtimeMs : 0) > statSync(built).mtimeMs;
};

export const ensureConsoleBuilt = (force = false): boolean => {
  if (!force && !consoleBuildIsStale()) return false;
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', path.join(consoleDir, 'vite.config.ts')],
    { cwd: root, stdio: 'inherit' },
  );
  return true;
};

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const force = process.argv.includes('--force');
  console.log(ensureConsoleBuilt(force) ? 'admin console built into console/dist' : 'admin console is up to date (console/dist)');
}
