import { describe, expect, it } from 'vitest';
import { allowedOrigins, ConfigError, loadConfig } from '../../src/infra/config.js';

const problemsOf = (env: NodeJS.ProcessEnv): readonly string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      publicPort: 3000,
      adminPort: 3001,
      wsPort: 3002,
      databaseUrl: undefined,
      dataDir: './.data',
      embeddedPgPort: 54329,
      eventStore: { kind: 'postgres' },
      redisUrl: undefined,
      appEnv: 'local',
      internalApiToken: undefined,
      logLevel: 'info',
      metricsPort: undefined,
      ws: {
        throttlerTtlMs: 60_000,
        throttlerLimit: 240,
        throttlerBlockDurationMs: 600_000,
        throttlerDisabled: false,
        maxConnectionsPerIp: 20,
        clientMessageMaxLen: 16_384,
      },
    });
    expect([...config.roles]).toEqual(['public-api', 'admin-api', 'gateway', 'projector', 'scheduler']);
  });

  it('when values are given, then they are parsed and typed; empty strings count as unset', () => {
    const config = loadConfig({
      PUBLIC_PORT: '8080',
      ROLES: 'admin-api, projector',
      DATABASE_URL: 'postgres://u@db:5432/ledger',
      EVENT_STORE: 'eventstoredb',
      EVENTSTORE_CONNECTION_STRING: 'esdb://kurrent:2113?tls=false',
      REDIS_URL: 'redis://cache:6379',
      APP_ENV: 'production',
      INTERNAL_API_TOKEN: 'a-long-enough-token',
      WS_THROTTLER_DISABLE: 'true',
      ADMIN_TOOL_ORIGIN: '',
      TRUST_PROXY: '10.0.0.0/8,127.0.0.1',
      METRICS_PORT: '9464',
    });
    expect(config.metricsPort).toBe(9464);
    expect(config).toMatchObject({
      publicPort: 8080,
      databaseUrl: 'postgres://u@db:5432/ledger',
      redisUrl: 'redis://cache:6379',
      appEnv: 'production',
      eventStore: { kind: 'eventstoredb', connectionString: 'esdb://kurrent:2113?tls=false' },
      internalApiToken: 'a-long-enough-token',
      adminToolOrigin: undefined,
      trustProxy: ['10.0.0.0/8', '127.0.0.1'],
    });
    expect(config.ws.throttlerDisabled).toBe(true);
    expect([...config.roles]).toEqual(['admin-api', 'projector']);
  });

  it('when a value is bad, then one line names the variable and the problem', () => {
    expect(problemsOf({ ADMIN_PORT: 'abc' })).toEqual(['ADMIN_PORT: must be a port number (got "abc")']);
    expect(problemsOf({ ROLES: 'api' })).toEqual([
      'ROLES: each role must be one of public-api, admin-api, gateway, projector, scheduler (got "api")',
    ]);
  });

  it('when several values are bad, then every problem is listed at once and secrets are not echoed', () => {
    const problems = problemsOf({ PUBLIC_PORT: '70000', EVENT_STORE: 'eventstoredb', INTERNAL_API_TOKEN: 'short', LOG_LEVEL: 'loud' });
    expect(problems).toEqual(
      expect.arrayContaining([
        'PUBLIC_PORT: must be between 0 and 65535 (got "70000")',
        'EVENTSTORE_CONNECTION_STRING: is required when EVENT_STORE=eventstoredb',
        'INTERNAL_API_TOKEN: must be at least 16 characters (value hidden)',
        expect.stringMatching(/^LOG_LEVEL: must be one of fatal, error, .* \(got "loud"\)$/),
      ]),
    );
    expect(problems).toHaveLength(4);
    try {
      loadConfig({ PUBLIC_PORT: '70000' });
    } catch (error) {
      expect((error as Error).message).toBe('Invalid configuration:\n  - PUBLIC_PORT: must be between 0 and 65535 (got "70000")');
    }
  });

  it('when two roles would share a port, then the clash is reported', () => {
    expect(problemsOf({ ADMIN_PORT: '3000' })).toEqual(['ADMIN_PORT: must differ from PUBLIC_PORT (both are 3000)']);
  });

  it('when the URL schemes are wrong, then the variable is named', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://x', REDIS_URL: 'http://x' })).toEqual([
      'DATABASE_URL: must be a URL starting with postgres:// or postgresql:// (value hidden)',
      'REDIS_URL: must be a URL starting with redis:// or rediss:// (value hidden)',
    ]);
  });
});

describe('allowedOrigins', () => {
  it('when outside production, then the admin tool origin is allowed too; in production only the front end', () => {
    const base = { frontendOrigin: 'https://casino.example', adminToolOrigin: 'https://admin.example' };
    expect(allowedOrigins({ ...base, appEnv: 'staging' })).toEqual(['https://casino.example', 'https://admin.example']);
    expect(allowedOrigins({ ...base, appEnv: 'production' })).toEqual(['https://casino.example']);
  });
});
