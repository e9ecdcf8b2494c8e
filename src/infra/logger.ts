import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.js';

export type Logger = PinoLogger;

/** Secrets never reach a log line, wherever they appear in the usual request/response/payload shapes. */
const SECRET_KEYS = [
  'password',
  'currentPassword',
  'newPassword',
  'token',
  'accessToken',
  'refreshToken',
  'mfaToken',
  'secret',
  'mfaSecret',
  'apiKey',
  'key',
];
export const REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-service-token"]',
  'req.headers["x-captcha-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-service-token"]',
  ...SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]),
];

export type LoggerOptions = Readonly<{
  level?: LogLevel;
  name?: string;
  destination?: DestinationStream;
}>;

/** Async stdout: lines logged during a write leave together, so a busy process pays no blocking write per line. */
const stdout = (): DestinationStream => pino.destination({ dest: 1, sync: false });

export const createLogger = (options: LoggerOptions = {}): Logger =>
  pino(
    {
      name: options.name ?? 'casino-ledger',
      level: options.level ?? 'info',
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    },
    options.destination ?? stdout(),
  );
