// Turns ajv's errors into the messages a person editing gateway.yaml wants: one per problem, in plain words.

import type { ErrorObject } from 'ajv';
import type { ConfigIssue } from './issues.js';

// Patterns of schemas/gateway.schema.json, said in words; an unknown pattern falls back to showing itself.
const PATTERN_MESSAGES: Readonly<Record<string, string>> = {
  '^https?://': 'must be a URL',
  '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$':
    'must be 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit',
  '^sk-[A-Za-z0-9_-]{16,}$': 'must be "sk-" followed by at least 16 letters, digits, "_" or "-"',
  '^(sqlite:|postgres(ql)?://)': 'must start with "sqlite:" or "postgres://" (sqlite:<path>, sqlite::memory:, postgres://user@host/db)',
  '^\\d+(\\.\\d{1,9})?$': 'must be a non-negative decimal with at most 9 decimal places',
};

// oneOf failures where no branch fits the value's type, keyed by the end of their schema path.
const ONE_OF_MESSAGES: Readonly<Record<string, string>> = {
  'ModelList/oneOf': 'must be a list of model names or a map of client name to upstream name',
  'Amount/oneOf': 'must be a non-negative decimal amount (a number, or a string such as "0.50")',
};

const TYPE_WORDS: Readonly<Record<string, string>> = {
  array: 'a list',
  object: 'a map',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'empty',
};

type Segment = string | number;

/** Maps ajv errors (compiled with allErrors and verbose) for `data` to issues. */
export function describeSchemaErrors(errors: readonly ErrorObject[], data: unknown): ConfigIssue[] {
  const dropped = pickOneOfBranches(errors, data);
  const issues: ConfigIssue[] = [];
  for (const error of errors) {
    if (dropped.has(error)) continue;
    const issue = describeError(error, toPath(error.instancePath, data));
    if (issue !== null) issues.push(issue);
  }
  return issues;
}

function describeError(error: ErrorObject, path: Segment[]): ConfigIssue | null {
  const params: Readonly<Record<string, unknown>> = error.params;
  switch (error.keyword) {
    // `if` only says "must match then": the `then` errors say what. `propertyNames` repeats its inner error.
    case 'if':
    case 'propertyNames':
      return null;
    case 'required':
      return { path, message: `missing required field "${String(params['missingProperty'])}"` };
    case 'additionalProperties': {
      const field = String(params['additionalProperty']);
      return { path, message: `unknown field "${field}"`, at: [...path, field] };
    }
  }
  const message = describeKeyword(error, params);
  if (error.propertyName !== undefined) {
    return { path: [...path, error.propertyName], message: `invalid name: ${message}` };
  }
  return { path, message };
}

function describeKeyword(error: ErrorObject, params: Readonly<Record<string, unknown>>): string {
  const limit = Number(params['limit']);
  switch (error.keyword) {
    case 'type':
      return `must be ${String(params['type'])
        .split(',')
        .map((t) => TYPE_WORDS[t] ?? t)
        .join(' or ')}`;
    case 'enum':
      return `must be one of: ${asList(params['allowedValues']).map(String).join(', ')}`;
    case 'format':
      return params['format'] === 'uri' ? 'must be a URL' : `must be a valid ${String(params['format'])}`;
    case 'pattern': {
      const pattern = String(params['pattern']);
      return PATTERN_MESSAGES[pattern] ?? `must match the pattern ${pattern}`;
    }
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `must have at least ${limit} items`;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters long`;
    case 'minProperties':
      return limit === 1 ? 'must not be empty' : `must have at least ${limit} entries`;
    case 'oneOf': {
      const key = Object.keys(ONE_OF_MESSAGES).find((suffix) => error.schemaPath.endsWith(suffix));
      return key === undefined ? 'does not match any of the allowed shapes' : (ONE_OF_MESSAGES[key] ?? '');
    }
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * For each failed oneOf, keeps only the errors of the branch whose `type` fits the value (so `models: []`
 * says "must not be empty"), or, when none fits, only the oneOf error itself. Returns the errors to drop.
 */
function pickOneOfBranches(errors: readonly ErrorObject[], data: unknown): Set<ErrorObject> {
  const dropped = new Set<ErrorObject>();
  for (const oneOf of errors) {
    if (oneOf.keyword !== 'oneOf') continue;
    const prefix = `${oneOf.schemaPath}/`;
    const value = valueAt(data, toPath(oneOf.instancePath, data));
    const fitting = asList(oneOf.schema).flatMap((branch, index) => (typeFits(branch, value) ? [index] : []));
    const keep = fitting.length === 1 ? `${prefix}${String(fitting[0])}/` : null;
    if (keep !== null) dropped.add(oneOf);
    const under = `${oneOf.instancePath}/`;
    for (const error of errors) {
      const inside = error.instancePath === oneOf.instancePath || error.instancePath.startsWith(under);
      if (!inside || !error.schemaPath.startsWith(prefix)) continue;
      if (keep === null || !error.schemaPath.startsWith(keep)) dropped.add(error);
    }
  }
  return dropped;
}

function typeFits(branch: unknown, value: unknown): boolean {
  if (typeof branch !== 'object' || branch === null || !('type' in branch)) return false;
  const type: unknown = branch.type;
  if (type === 'array') return Array.isArray(value);
  if (type === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  return type === typeof value;
}

function asList(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** JSON pointer -> path; a segment is a number only where the data there is an array. */
function toPath(pointer: string, data: unknown): Segment[] {
  if (pointer === '') return [];
  const path: Segment[] = [];
  let node = data;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    const segment: Segment = Array.isArray(node) ? Number(key) : key;
    path.push(segment);
    node = valueAt(node, [segment]);
  }
  return path;
}

function valueAt(data: unknown, path: readonly Segment[]): unknown {
  let node = data;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}
