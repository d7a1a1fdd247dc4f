// Shared by the config tests: one compiled schema, the issue example's env, and error capture.

import assert from 'node:assert/strict';
import { parseConfig } from '../../../core/config/load.js';
import { ConfigError, type ResolvedConfig } from '../../../core/config/resolved.js';
import { ConfigValidator } from '../../../core/config/validate.js';
import type { Env } from '../../../core/config/interpolate.js';
import { fixtureUrl } from '../../helpers/repo-root.js';
import { BUILTIN_ENDPOINTS } from '../../../features/index.js';

export const validator = new ConfigValidator(BUILTIN_ENDPOINTS);

export const ISSUE_EXAMPLE = fixtureUrl('config/issue-example.yaml');

export const ISSUE_ENV: Env = {
  OPENAI_API_KEY: 'sk-openai-upstream',
  BACKUP_KEY: 'sk-backup-1',
  BACKUP_KEY_2: 'sk-backup-2',
  DEEPSEEK_API_KEY: 'sk-deepseek',
  GATEWAY_KEY_LAPTOP: 'sk-laptop-0123456789abcdef',
};

/** Lines joined with "\n", so a test reads its own line numbers. */
export function yaml(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

export function parse(text: string, env: Env = {}): ResolvedConfig {
  return parseConfig(text, { file: '/somewhere/x.yaml', env, validator, endpoints: BUILTIN_ENDPOINTS });
}

/** The ConfigError issues `text` produces; fails the test when it parses. */
export function issuesOf(text: string, env: Env = {}): readonly string[] {
  try {
    parse(text, env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error.issues;
  }
  assert.fail('expected a ConfigError');
}
