import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevelName } from '../config/config.js';
import { serializeError } from './error-serializer.js';
import { REDACTED, type Scrubber } from './secret-scrubber.js';

export type { Logger };

export interface LoggerOptions {
  level: LogLevelName;
  scrub: Scrubber;
  /** Readable lines instead of JSON (LOG_FORMAT); default: when stdout is a terminal. */
  pretty?: boolean;
  destination?: NodeJS.WritableStream;
}

/** JSON lines, or readable ones (`pretty`); secrets are removed from every line before it is written. */
export function createLogger({
  level,
  scrub,
  pretty: usePretty = process.stdout.isTTY === true,
  destination,
}: LoggerOptions): Logger {
  const stream = usePretty
    ? // Colours where pino-pretty finds them supported (a terminal, unless NO_COLOR): none in a file or a pipe.
      pretty({ sync: true, destination: destination ?? 1 })
    : (destination ?? pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      level,
      base: { service: 'mintlink' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      // Known secret-bearing fields are dropped by path; the stream hook catches anything else.
      redact: {
        paths: [
          'token',
          '*.token',
          'headers.authorization',
          'headers["x-api-key"]',
          '*.headers.authorization',
          '*.headers["x-api-key"]',
          'apiKey',
          '*.apiKey',
        ],
        censor: REDACTED,
      },
      hooks: { streamWrite: scrub },
    },
    stream,
  );
}
