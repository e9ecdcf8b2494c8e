import { execFile } from 'node:child_process';
import { builtinModules } from 'node:module';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTCHA_SECRET, GOOD_CAPTCHA, startCaptchaStandIn, type CaptchaStandIn } from '../support/captcha-server.js';
import { startOwnPostgres, type OwnPostgres } from '../support/own-services.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

/**
 * What the image does, outside Docker (no Docker engine runs here): `npm run build`, then only what the Dockerfile's
 * final stage copies goes into a temporary /app, which the service user (nobody, see SERVICE_USER) can read but not
 * write; DATA_DIR is the only writable place. The keys tool fills DATA_DIR/keys as the compose stack's one-shot `keys` service does,
 * and the service starts with APP_ENV=production, as in docker-compose.yml.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * The image's service user: nobody when the suite runs as root. A non-root user cannot switch users, so then the service
 * runs as that user, and the application directory's folders are made read-only to it instead.
 */
const AS_ROOT = process.getuid?.() === 0;
const SERVICE_USER: { uid?: number; gid?: number } = AS_ROOT ? { uid: 65534, gid: 65534 } : {};
/** Every folder under `dir` (links not followed), deepest last. */
const foldersUnder = (dir: string): string[] => [
  dir,
  ...readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => foldersUnder(join(dir, e.name))),
];
const SERVICE_TOKEN = 'image-test-internal-token-0123456789';
const ADMIN = { email: 'root@example.com', username: 'rootadmin', password: 'first-admin-password-1' };

type Stage = {
  copies: { from?: string; sources: string[]; dest: string }[];
  env: Record<string, string>;
  workdir: string;
  cmd: string[];
  healthcheck: string[];
  user?: string;
  runs: string[];
};

/** The final stage of the Dockerfile: its COPY, ENV, RUN, USER, HEALTHCHECK and CMD lines (JSON form for commands). */
const finalStage = (dockerfile: string): Stage => {
  const lines = dockerfile
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const from = lines
    .map((l, i) => (/^FROM\s/i.test(l) ? i : -1))
    .filter((i) => i >= 0)
    .at(-1)!;
  const stage: Stage = { copies: [], env: {}, workdir: '/', cmd: [], healthcheck: [], runs: [] };
  for (const line of lines.slice(from + 1)) {
    const [instruction, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    switch (instruction!.toUpperCase()) {
      case 'WORKDIR':
        stage.workdir = args;
        break;
      case 'USER':
        stage.user = args;
        break;
      case 'RUN':
        stage.runs.push(args);
        break;
      case 'CMD':
        stage.cmd = JSON.parse(args) as string[];
        break;
      case 'HEALTHCHECK':
        stage.healthcheck = JSON.parse(args.slice(args.indexOf('CMD') + 3).trim()) as string[];
        break;
      case 'ENV':
        for (const m of args.matchAll(/(\w+)=(\S+)/g)) stage.env[m[1]!] = m[2]!;
        break;
      case 'COPY': {
        const words = rest.filter((w) => !w.startsWith('--chown') && !w.startsWith('--chmod'));
        const fromFlag = words.find((w) => w.startsWith('--from='));
        const paths = words.filter((w) => !w.startsWith('--'));
        stage.copies.push({
          ...(fromFlag ? { from: fromFlag.slice('--from='.length) } : {}),
          sources: paths.slice(0, -1),
          dest: paths.at(-1)!,
        });
        break;
      }
      default:
        break;
    }
  }
  return stage;
};

/** Bare package names imported by the compiled code. */
const importedPackages = (dir: string): Set<string> => {
  const found = new Set<string>();
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'".][^'"]*)['"]/g)) {
          const spec = m[1]!;
          if (spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!)) continue;
          found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
        }
      }
    }
  };
  walk(dir);
  return found;
};

describe('the image, outside Docker', () => {
  let app: string;
  let data: string;
  let stage: Stage;
  let pg: OwnPostgres;
  let captcha: CaptchaStandIn;
  let service: ServiceProcess | undefined;
  let env: Record<string, string>;
  const asServiceUser = (args: string[], extra: Record<string, string> = {}) =>
    run(process.execPath, args.slice(1), { cwd: app, env: { ...env, ...extra }, ...SERVICE_USER, timeout: 60_000 });

  beforeAll(async () => {
    await run('npm', ['run', 'build'], { cwd: ROOT, timeout: 120_000 });
    stage = finalStage(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    app = mkdtempSync(join(tmpdir(), 'image-app-'));
    for (const copy of stage.copies) {
      for (const source of copy.sources) {
        // The build stage's WORKDIR is /app too: its /app/dist is our build's dist.
        const local = copy.from ? join(ROOT, relative('/app', source)) : join(ROOT, source);
        const dest = copy.dest.endsWith('/') || copy.dest === '.' ? join(app, copy.dest, source.split('/').at(-1)!) : join(app, copy.dest);
        mkdirSync(dirname(dest), { recursive: true });
        cpSync(local, dest, { recursive: true });
      }
    }
    // `RUN npm ci --omit=dev` stands in as the checkout's node_modules; the imports test below checks that the
    // compiled code needs no devDependency.
    expect(stage.runs.some((r) => r.includes('npm ci --omit=dev'))).toBe(true);
    // Linked file by file (a copy where hard links cannot reach), never a symlink into the checkout: the service user
    // must not need to enter the checkout, which may be private (a 0700 home or CI folder).
    await run('cp', ['-al', join(ROOT, 'node_modules'), join(app, 'node_modules')], { cwd: ROOT, timeout: 120_000 }).catch(() =>
      cpSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), { recursive: true, verbatimSymlinks: true }),
    );
    // Readable, not writable, by the service user: root-owned for nobody; for this user, its folders without write access
    // (files are hard links into the checkout's node_modules, so their modes are left alone).
    if (AS_ROOT) chmodSync(app, 0o755);
    else for (const folder of foldersUnder(app).reverse()) chmodSync(folder, 0o555);
    data = mkdtempSync(join(tmpdir(), 'image-data-'));
    if (AS_ROOT) chownSync(data, SERVICE_USER.uid!, SERVICE_USER.gid!);
    pg = await startOwnPostgres();
    captcha = await startCaptchaStandIn();
    env = {
      PATH: process.env.PATH ?? '',
      HOME: data,
      ...stage.env,
      DATA_DIR: data,
      APP_ENV: 'production',
      DATABASE_URL: pg.url,
      PUBLIC_PORT: '0',
      ADMIN_PORT: '0',
      WS_PORT: '0',
      INTERNAL_API_TOKEN: SERVICE_TOKEN,
      CAPTCHA_SECRET,
      CAPTCHA_VERIFY_URL: captcha.url,
      SUPERADMIN_EMAIL: ADMIN.email,
      SUPERADMIN_USERNAME: ADMIN.username,
      SUPERADMIN_PASSWORD: ADMIN.password,
      FRONTEND_ORIGIN: 'https://casino.example',
    };
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
    await captcha?.close();
    await pg?.destroy();
    if (app && !AS_ROOT) for (const folder of foldersUnder(app)) chmodSync(folder, 0o755);
    if (app) rmSync(app, { recursive: true, force: true });
    if (data) rmSync(data, { recursive: true, force: true });
  });

  it('when the final stage is read, then it runs as a non-root user with a health check, DATA_DIR and the data file copied', () => {
    expect(stage.user).toBeDefined();
    expect(stage.user).not.toBe('root');
    expect(stage.healthcheck.length).toBeGreaterThan(0);
    expect(stage.env.DATA_DIR).toBeDefined();
    expect(existsSync(join(app, 'dist/src/auth/common-passwords.txt'))).toBe(true);
    for (const tool of ['ledger', 'projections', 'keys', 'healthcheck'])
      expect(existsSync(join(app, `dist/scripts/${tool}.js`))).toBe(true);
  });

  it('when the compiled code imports a package, then it is a run-time dependency (npm ci --omit=dev installs it)', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const missing = [...importedPackages(join(app, 'dist'))].filter((p) => !(p in pkg.dependencies));
    expect(missing).toEqual([]);
  });

  it('when APP_ENV=production and no keys exist, then the start fails with one line naming them, and nothing is generated', async () => {
    const failed = await asServiceUser(stage.cmd).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr.trim().split('\n')).toHaveLength(1);
    expect(failed?.stderr).toMatch(/JWT_PRIVATE_KEY.*MFA_ENCRYPTION_KEY.*LEDGER_SEAL_KEY/);
    expect(existsSync(join(data, 'keys'))).toBe(false);
  });

  it(
    'when the keys tool ran and the service started as its own non-root user, then sign-up, SuperAdmin sign-in, a withdrawal approval, ' +
      'the health check and ledger verify all work, and the application directory stays unwritten',
    async () => {
      const keys = await asServiceUser(['node', 'dist/scripts/keys.js']);
      expect(keys.stdout).toContain('key ready');
      const again = await asServiceUser(['node', 'dist/scripts/keys.js']); // idempotent: a restarted init service keeps the keys
      expect(again.stdout).toBe(keys.stdout);

      service = await startService('image', env, { command: process.execPath, args: stage.cmd.slice(1), cwd: app, ...SERVICE_USER });
      const pub = service.publicUrl!;
      const adm = service.adminUrl!;
      const json = { 'content-type': 'application/json' };

      const signUp = await fetch(`${pub}/auth/sign-up`, {
        method: 'POST',
        headers: { ...json, 'x-captcha-token': GOOD_CAPTCHA },
        body: JSON.stringify({ email: 'player@example.com', password: 'a-long-enough-secret-9', username: 'player1', country: 'DE' }),
      });
      expect(signUp.status).toBe(201);
      const player = ((await signUp.json()) as { user: { id: number } }).user.id;

      const signIn = await fetch(`${pub}/auth/sign-in`, {
        method: 'POST',
        headers: { ...json, 'x-captcha-token': GOOD_CAPTCHA },
        body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
      });
      expect(signIn.status).toBe(200);
      const token = signIn.headers
        .getSetCookie()
        .find((c) => c.startsWith('access_token='))!
        .split(';')[0]!
        .slice('access_token='.length);

      const internal = (path: string, body: unknown) =>
        fetch(`${adm}/internal${path}`, {
          method: 'POST',
          headers: { ...json, 'x-service-token': SERVICE_TOKEN },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { id: string; status: string } }));
      const deposit = await internal('/deposits', {
        externalId: 'dep-1',
        userId: player,
        providerId: 'TEST',
        networkId: 'ETH',
        currencyId: 'USDT',
        amount: '50',
      });
      expect((await internal(`/deposits/${deposit.body.id}/complete`, { txHash: '0x1' })).status).toBe(200);
      const withdrawal = await internal('/withdrawals', {
        userId: player,
        providerId: 'TEST',
        networkId: 'ETH',
        currencyId: 'USDT',
        amount: '20',
        recipientAddress: '0xabc',
      });
      expect(withdrawal.status).toBe(201);
      const approve = await fetch(`${adm}/withdraw/approve`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${token}` },
        body: JSON.stringify({ id: withdrawal.body.id }),
      });
      expect(approve.status).toBe(201);

      const healthEnv = { ADMIN_PORT: new URL(adm).port, ROLES: 'public-api,admin-api,gateway,projector,scheduler' };
      await expect(asServiceUser(stage.healthcheck, healthEnv)).resolves.toBeDefined();

      const verify = await asServiceUser(['node', 'dist/scripts/ledger.js', 'verify']);
      expect(verify.stdout).toContain('seals checked');
      expect(verify.stdout).toContain('OK: no differences');

      expect(existsSync(join(app, '.data'))).toBe(false);
      const write = (dir: string) =>
        asServiceUser(['node', '-e', `require('fs').writeFileSync(${JSON.stringify(join(dir, 'probe'))}, '')`]);
      await expect(write(join(app, 'dist'))).rejects.toMatchObject({ stderr: expect.stringContaining('EACCES') });
      await expect(write(data)).resolves.toBeDefined();
    },
    120_000,
  );
});
