// Structured JSON logs via pino, written synchronously (nothing per request at info level, so it is cheap and
// nothing is lost at exit); never given secrets (keys, tokens) or request bodies.

import pino, { type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

export function createLogger(level: string = process.env['LOG_LEVEL'] ?? 'info'): Logger {
  return pino({ level, base: { service: 'llm-gateway' } }, pino.destination({ fd: 2, sync: true }));
}

export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
