import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/platform/ops/telemetry/create-logger.js';

/**
 * The app's own logger (JSON lines, the given scrubber) for tests of a part built without the whole app:
 * each line goes to `write` (nowhere unless given), for the test to read what was logged.
 */
export function testLogger(
  level: 'debug' | 'info' | 'warn' | 'error',
  scrub: (text: string) => string,
  write: (text: string) => void = () => undefined,
): Logger {
  return createLogger({
    level,
    scrub,
    pretty: false,
    destination: new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        write(chunk.toString('utf8'));
        done();
      },
    }),
  });
}
