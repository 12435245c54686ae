import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from './create-logger.js';

/** Bolt's warning for each request it could not authorize. */
const UNAUTHORIZED = 'Authorization of incoming event did not succeed. No listeners will be called.';

/**
 * Bolt's Logger interface over pino. Bolt and the Slack SDK share one logger and call setName/setLevel on
 * it; LOG_LEVEL stays the single authority, so those calls only record what was asked.
 */
export function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ component: 'slack' });
  const write =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...messages: unknown[]) => {
      // A request Bolt could not authorize: the installation store logs why (the workspace has no installation).
      const method = level === 'warn' && messages[0] === UNAUTHORIZED ? 'debug' : level;
      // Bolt logs at debug on every request: nothing is formatted for a level that is off.
      if (!log.isLevelEnabled(method)) return;
      const err = messages.find((m): m is Error => m instanceof Error);
      const text = messages
        .filter((m) => m !== err)
        .map((m) => (typeof m === 'string' ? m : safeJson(m)))
        .join(' ');
      if (err) log[method]({ err }, text || err.message);
      else log[method](text);
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    setLevel: () => undefined,
    getLevel: () => toBoltLevel(logger.level),
    setName: () => undefined,
  };
}

function toBoltLevel(level: string): LogLevel {
  switch (level) {
    case 'debug':
    case 'trace':
      return LogLevel.DEBUG;
    case 'warn':
      return LogLevel.WARN;
    case 'error':
    case 'fatal':
      return LogLevel.ERROR;
    default:
      return LogLevel.INFO;
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
