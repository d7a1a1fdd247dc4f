// `${VAR}` substitution in string values, done on the parsed YAML tree so lines stay exact.

import { isMap, isScalar, isSeq, type Document } from 'yaml';
import type { ConfigIssue } from './issues.js';
import type { ConfigPath } from './resolved.js';

export type Env = Readonly<Record<string, string | undefined>>;

// `$${` is a literal `${`; `${NAME}` a variable; any other `${` is a mistake worth reporting.
const TOKEN = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{/g;

/** Replaces variables in every string value of `doc` in place; returns one issue per unset or malformed reference. */
export function interpolateEnv(doc: Document, env: Env): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  visitNode(doc.contents, [], (text, path) => {
    const { value, missing, malformed } = substitute(text, env);
    for (const name of missing) issues.push({ path, message: `environment variable ${name} is not set` });
    if (malformed) {
      issues.push({ path, message: 'malformed "${" reference: write ${NAME}, or $${ for a literal "${"' });
    }
    return value;
  });
  return issues;
}

/** Substitutes one string; exported for tests. Unset variables are left as written and listed in `missing`. */
export function substitute(text: string, env: Env): { value: string; missing: string[]; malformed: boolean } {
  const missing: string[] = [];
  let malformed = false;
  const value = text.replace(TOKEN, (token: string, name: string | undefined) => {
    if (token === '$${') return '${';
    if (name === undefined) {
      malformed = true;
      return token;
    }
    const found = env[name];
    if (found === undefined) {
      if (!missing.includes(name)) missing.push(name);
      return token;
    }
    return found;
  });
  return { value, missing, malformed };
}

type Rewrite = (text: string, path: ConfigPath) => string;

// Keys are left alone: a map key is a name, not a value. Aliases are skipped since their anchor is visited.
function visitNode(node: unknown, path: ConfigPath, rewrite: Rewrite): void {
  if (isScalar(node)) {
    if (typeof node.value === 'string' && node.value.includes('${')) node.value = rewrite(node.value, path);
  } else if (isMap(node)) {
    for (const pair of node.items) {
      if (isScalar(pair.key)) visitNode(pair.value, [...path, String(pair.key.value)], rewrite);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => visitNode(item, [...path, index], rewrite));
  }
}
