import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSymmetricKey } from '../../src/infra/secrets.js';
import { loadKeys } from '../../src/auth/sessions.js';
import { SEAL_KEY_NAME } from '../../src/audit/cli/ledger-cli.js';
import { loadConfig, ROLES } from '../../src/infra/config.js';
import { MFA_KEY_NAME, missingSecrets } from '../../src/infra/required-secrets.js';

/**
 * No Docker engine runs here: docker-compose.yml is checked against the Compose Specification's JSON schema
 * (vendored, see test/fixtures/compose-spec/SOURCE.md) after the interpolation `docker compose` does with the values
 * of .env.example, and against the invariants a first `docker compose up` depends on.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The .env format compose reads: KEY=value lines, # comments. */
const parseDotenv = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

/** Compose interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}, $$. */
const interpolate = (text: string, vars: Record<string, string>): string =>
  text.replace(
    /\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g,
    (match, name: string | undefined, op: string | undefined, arg: string | undefined) => {
      if (match === '$$') return '$';
      const value = vars[name!];
      const unset = value === undefined || (op?.startsWith(':') === true && value === '');
      if (op?.endsWith('?') && unset) throw new Error(`compose would stop: ${name}: ${arg}`);
      if (op?.endsWith('-') && unset) return arg ?? '';
      return value ?? '';
    },
  );

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  environment?: Record<string, string | number>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
};
type ComposeFile = { services: Record<string, Service>; volumes: Record<string, unknown> };

const dotenv = parseDotenv(read('.env.example'));
const composeText = read('docker-compose.yml');
/** As compose does: parse first, then interpolate every string value. */
const interpolateValues = (value: unknown, vars: Record<string, string>): unknown =>
  typeof value === 'string'
    ? interpolate(value, vars)
    : Array.isArray(value)
      ? value.map((v) => interpolateValues(v, vars))
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateValues(v, vars)]))
        : value;
const composeWith = (vars: Record<string, string>): ComposeFile =>
  interpolateValues(parse(composeText, { merge: true }), vars) as ComposeFile;
const compose = composeWith(dotenv);
const services = Object.entries(compose.services);
const appServices = services.filter(([, s]) => s.image === 'casino-ledger:local' && s.command === undefined);
const envOf = (s: Service): Record<string, string> =>
  Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v)]));
const rolesOf = (s: Service): string[] => (envOf(s).ROLES ?? ROLES.join(',')).split(',');

describe('docker-compose.yml', () => {
  const keysDir = mkdtempSync(join(tmpdir(), 'compose-keys-'));
  afterAll(() => rmSync(keysDir, { recursive: true, force: true }));

  it('when interpolated with .env.example, then it is valid against the Compose Specification schema', () => {
    const schema = JSON.parse(read('test/fixtures/compose-spec/compose-spec.json')) as Record<string, unknown>;
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true, validateSchema: false });
    const validate = ajv.compile({ ...schema, $schema: undefined });
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // The schema does refuse what compose refuses (a misspelt service key, a health check that is not a command).
    expect(validate({ ...compose, services: { ...compose.services, api: { ...compose.services.api, restrat: 'always' } } })).toBe(false);
    expect(
      validate({ ...compose, services: { ...compose.services, gateway: { ...compose.services.gateway, healthcheck: { test: 42 } } } }),
    ).toBe(false);
  });

  it('when a required value is missing from .env, then compose stops with its message instead of starting without it', () => {
    for (const name of ['POSTGRES_PASSWORD', 'INTERNAL_API_TOKEN', 'CAPTCHA_SECRET', 'SUPERADMIN_PASSWORD']) {
      const { [name]: _dropped, ...rest } = dotenv;
      expect(() => composeWith(rest)).toThrow(name);
    }
  });

  it('when the services are listed, then every role runs somewhere, and the projector and gateway have replicas', () => {
    const roles = new Set(appServices.flatMap(([, s]) => rolesOf(s)));
    expect([...roles].sort()).toEqual([...ROLES].sort());
    expect(compose.services.projector?.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(compose.services.gateway?.deploy?.replicas).toBeGreaterThanOrEqual(2);
  });

  it('when keys are compared, then one volume filled by the one-shot keys service gives every service the same keys', () => {
    const keys = compose.services.keys!;
    expect(keys.command).toEqual(['node', 'dist/scripts/keys.js']);
    expect(keys.restart).toBe('no');
    const keysDataDir = envOf(keys).DATA_DIR!;
    expect(keys.volumes).toContain(`keys:${keysDataDir}/keys`);
    for (const [name, s] of appServices) {
      const env = envOf(s);
      expect(s.volumes, name).toContain(`keys:${env.DATA_DIR}/keys:ro`);
      expect(env.DATA_DIR, name).toBe(keysDataDir);
      expect(s.depends_on?.keys?.condition, name).toBe('service_completed_successfully');
      // No service brings a key of its own that the others would not share.
      for (const variable of ['JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY', 'MFA_ENCRYPTION_KEY', 'LEDGER_SEAL_KEY'])
        expect(env[variable], `${name} ${variable}`).toBeUndefined();
    }
  });

  it("when each service's environment is loaded as the service would, then it is a valid production configuration with every secret present", async () => {
    // What the keys service leaves in the volume.
    await loadKeys({ dataDir: keysDir });
    await loadSymmetricKey(undefined, keysDir, MFA_KEY_NAME);
    await loadSymmetricKey(undefined, keysDir, SEAL_KEY_NAME);
    for (const [name, s] of appServices) {
      const config = loadConfig({ ...envOf(s), DATA_DIR: keysDir });
      expect(config.appEnv, name).toMatch(/^(production|staging)$/);
      expect(await missingSecrets(config, SEAL_KEY_NAME), name).toBe('');
      // Someone can sign in: a public API outside local needs a real captcha secret (the bypass is refused there).
      if (config.roles.has('public-api')) expect(config.auth.captchaSecret, name).toBeTruthy();
      expect(config.redisUrl, name).toBeDefined();
    }
    const withAdmin = appServices.filter(([, s]) => loadConfig({ ...envOf(s), DATA_DIR: keysDir }).auth.superAdmin !== undefined);
    expect(withAdmin.map(([n]) => n)).toEqual(['api']);
  });

  it('when start order is read, then the app waits for healthy dependencies, restarts on failure and has its own health check', () => {
    for (const [name, s] of appServices) {
      expect(s.restart, name).toBe('unless-stopped');
      expect(s.healthcheck?.test, name).toEqual(['CMD', 'node', 'dist/scripts/healthcheck.js']);
      for (const dep of ['postgres', 'redis', 'kurrentdb']) {
        expect(s.depends_on?.[dep]?.condition, `${name} -> ${dep}`).toBe('service_healthy');
        expect(compose.services[dep]?.healthcheck, dep).toBeDefined();
        expect(compose.services[dep]?.restart, dep).toBe('unless-stopped');
      }
      // Without admin-api, /health is served on METRICS_PORT, which the health check asks.
      if (!rolesOf(s).includes('admin-api') && !rolesOf(s).includes('public-api')) expect(envOf(s).METRICS_PORT, name).toBeDefined();
    }
  });

  it('when the deployment guide is read, then its production section runs what these tests check', () => {
    const readme = read('docs/deployment.md');
    expect(readme).toContain('cp .env.example .env');
    expect(readme).toContain('docker compose up --build -d');
  });
});
