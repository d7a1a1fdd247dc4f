// The console API's JSON answers, and the headers every console answer carries, pages and API alike.

import { jsonAnswer } from '../pipeline/json-answer.js';
import type { RelayResult } from '../pipeline/plugin.js';

const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export function consoleJson(status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): RelayResult {
  // Sessions and CSRF tokens are in these answers: never cached anywhere.
  return jsonAnswer(status, value, Object.assign({ 'cache-control': 'no-store' }, PAGE_HEADERS, headers));
}
