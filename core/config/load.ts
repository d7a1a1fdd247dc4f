// Entry points: gateway.yaml text or file -> ResolvedConfig, or a ConfigError listing every problem.

import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { EndpointRegistry } from '../endpoints/registry.js';
import { checkSemantics } from './check-semantics.js';
import { interpolateEnv, type Env } from './interpolate.js';
import { dropShadowed, formatIssues } from './issues.js';
import { ConfigError, type ResolvedConfig } from './resolved.js';
import { resolveConfig } from './resolve.js';
import { SourceLines } from './source-lines.js';
import { ConfigValidator } from './validate.js';

export interface ParseConfigOptions {
  /** Path shown in messages and kept as `file`; null for text without a file (shown as `<config>`). */
  readonly file: string | null;
  readonly env: Env;
  /** Reuse a compiled schema across loads; a fresh one is compiled when absent. */
  readonly validator?: ConfigValidator;
  /** The routes the config may name and gets default routes for (features/index.ts: BUILTIN_ENDPOINTS). */
  readonly endpoints: EndpointRegistry;
}

/** Parses, interpolates `${VAR}`, validates and resolves gateway.yaml text. Throws ConfigError. */
export function parseConfig(text: string, options: ParseConfigOptions): ResolvedConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const lines = new SourceLines(doc, lineCounter, options.file === null ? '<config>' : basename(options.file));
  if (doc.errors.length > 0) {
    throw new ConfigError(doc.errors.map((e) => `${lines.position(e.pos[0])}: ${firstLine(e.message)}`));
  }

  const envIssues = interpolateEnv(doc, options.env);
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // e.g. an alias bomb; the yaml library has already bounded the work.
    throw new ConfigError([`${lines.label}: ${error instanceof Error ? firstLine(error.message) : String(error)}`]);
  }
  if (data === null || data === undefined) {
    throw new ConfigError([`${lines.label}: the config is empty; it needs at least "channels"`]);
  }
  const { endpoints } = options;
  const result = (options.validator ?? new ConfigValidator(endpoints)).validate(withStoreFromEnv(data, options.env));
  const issues = result.ok
    ? [...envIssues, ...checkSemantics(result.config, endpoints)]
    : [...envIssues, ...dropShadowed(result.issues, envIssues)];
  if (issues.length > 0 || !result.ok) {
    const messages = formatIssues(issues, lines);
    throw new ConfigError(messages.length > 0 ? messages : [`${lines.label}: does not match the config schema`]);
  }
  return resolveConfig(result.config, options.file, (path) => lines.locate(path), endpoints);
}

/** The environment variable that points the gateway at a store, whatever the file says (as DATABASE_URL elsewhere). */
export const STORE_URL_ENV = 'GATEWAY_STORE_URL';

/**
 * `data` with store.url from GATEWAY_STORE_URL when that is set: one variable moves every command (serve, keys,
 * accounts) to PostgreSQL without editing the file. Checked by the schema as if the file said it.
 */
function withStoreFromEnv(data: unknown, env: Env): unknown {
  const url = env[STORE_URL_ENV];
  if (url === undefined || url === '' || typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  const record = data as Record<string, unknown>;
  const store = typeof record['store'] === 'object' && record['store'] !== null ? (record['store'] as Record<string, unknown>) : {};
  return Object.assign({}, record, { store: Object.assign({}, store, { url }) });
}

/** The file's absolute path and text; an unreadable file is a ConfigError like any other config problem. */
export async function readConfigText(path: string): Promise<{ file: string; text: string }> {
  const file = resolve(path);
  try {
    return { file, text: await readFile(file, 'utf8') };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError([`${file}: cannot read the config file: ${reason}`]);
  }
}

/** Reads and parses a config file; `file` in the result is its absolute path. */
export async function loadConfigFile(path: string, endpoints: EndpointRegistry, env: Env = process.env): Promise<ResolvedConfig> {
  const { file, text } = await readConfigText(path);
  return parseConfig(text, { file, env, endpoints });
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0]?.trim() ?? message;
}
