// The console API's input checked against schemas/console/ (a feature's route: its own schemas/console/), the source
// of truth for the console API's shapes: each route's <name>.request.schema.json (a body, or for a GET its query string as an object of strings) and
// <name>.response.schema.json (its 2xx answer; test/e2e/console-schemas.test.ts proves the answers match).
//
// The schemas hold the structure (no unknown field, types, names' patterns); what needs the config or the store (a
// group, an account, a free name) stays with the handlers, as do the ranges they already word well. A property's
// `description` is written to complete "<field> must be ...", so a refusal here reads as the handler's own would.
// Compiled on a route's first request, not when the plugin is made: each route gets its own plugin instance at
// every config load, and only one schema of the folder is ever that instance's.

import { readFileSync } from 'node:fs';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { schemaCompiler } from '../../core/config/schema-compiler.js';
import { schemaFile } from '../../core/config/schema-files.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../core/pipeline/context.js';

type Schema = Readonly<Record<string, unknown>>;

interface RouteCheck {
  readonly schema: Schema;
  readonly validate: ValidateFunction;
  /** A GET's input is its query string; every other method's, its JSON body. */
  readonly query: boolean;
}

export class RequestSchemas {
  readonly #checks = new Map<string, RouteCheck>();
  #ajv: Ajv | null = null;


  /**
   * Throws the 400 naming the first field the route's request schema (`name`: its file under schemas/console/,
   * without `.request.schema.json`) refuses.
   */
  check(ctx: RequestContext, name: string): void {
    const route = this.#checkOf(name, ctx.safe);
    const input = route.query ? queryObject(new URLSearchParams(ctx.query)) : ctx.request.head;
    if (route.validate(input)) return;
    // An unknown field first: a misspelled name explains the required one missing, not the other way round.
    const errors = route.validate.errors ?? [];
    const error = errors.find((e) => e.keyword === 'additionalProperties') ?? errors[0];
    if (error === undefined) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'The request does not fit this console API.');
    const problem = describeProblem(error, route.schema, input, route.query);
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', problem.message, problem.param === '' ? {} : { param: problem.param });
  }

  #checkOf(name: string, query: boolean): RouteCheck {
    const known = this.#checks.get(name);
    if (known !== undefined) return known;
    const schema = JSON.parse(readFileSync(schemaFile('console', `${name}.request.schema.json`), 'utf8')) as Schema;
    // As strict as the config's validator (a typo in a schema fails its route's first request, and the test before);
    // every error, to pick the one that explains the others (the inputs are small).
    this.#ajv ??= schemaCompiler({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    const check: RouteCheck = { schema, validate: this.#ajv.compile(schema), query };
    this.#checks.set(name, check);
    return check;
  }
}

/** The query's parameters as an object: a parameter given once is a string, one given more often a list of them. */
function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const values = new Map<string, string[]>();
  for (const [name, value] of query) values.set(name, [...(values.get(name) ?? []), value]);
  // fromEntries, not assignment: a parameter named __proto__ stays a parameter (which the schema refuses).
  return Object.fromEntries([...values].map(([name, list]) => [name, list.length === 1 ? (list[0] as string) : list]));
}

function asSchema(value: unknown): Schema {
  return typeof value === 'object' && value !== null ? (value as Schema) : {};
}

/** The schema of the field at `segments` (`['limits', 'rpm']`), through `properties`. */
function schemaAt(root: Schema, segments: readonly string[]): Schema {
  return segments.reduce((node, name) => asSchema(asSchema(node['properties'])[name]), root);
}

function valueAt(input: unknown, segments: readonly string[]): unknown {
  return segments.reduce<unknown>((value, name) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined), input);
}

/** "a, b and c" */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] ?? ''}`;
}

/** The field ajv's error is about, in the handlers' notation (`limits.rpm`; an array's item is its array's fault). */
function fieldOf(error: ErrorObject): string[] {
  const segments = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const item = segments.findIndex((s) => /^[0-9]+$/.test(s));
  return item === -1 ? segments : segments.slice(0, item);
}

function describeProblem(error: ErrorObject, root: Schema, input: unknown, query: boolean): { param: string; message: string } {
  const segments = fieldOf(error);
  const { additionalProperty, missingProperty } = error.params as { additionalProperty?: unknown; missingProperty?: unknown };
  if (error.keyword === 'additionalProperties' && typeof additionalProperty === 'string') {
    const param = [...segments, additionalProperty].join('.');
    const known = Object.keys(asSchema(schemaAt(root, segments)['properties']));
    const what = query ? 'query parameter' : 'field';
    const choices = known.length === 0 ? `this route takes no ${what}s` : known.length === 1 ? `the only ${what} is ${known[0] ?? ''}` : `the ${what}s are ${listed(known)}`;
    return { param, message: `Unknown ${what} "${param}": ${choices}.` };
  }
  if (error.keyword === 'required' && typeof missingProperty === 'string') {
    const field = [...segments, missingProperty];
    const description = schemaAt(root, field)['description'];
    return { param: field.join('.'), message: `${field.join('.')} is required${typeof description === 'string' ? `: ${description}` : ''}.` };
  }
  const param = segments.join('.');
  const description = schemaAt(root, segments)['description'];
  // A query parameter given twice: which one was meant is the caller's to say.
  if (query && Array.isArray(valueAt(input, segments))) return { param, message: `${param} must be given once.` };
  if (typeof description === 'string' && param !== '') return { param, message: `${param} must be ${description}.` };
  if (error.keyword === 'minLength' && error.params['limit'] === 1) return { param, message: `${param} must not be empty.` };
  if (error.keyword === 'type') return { param, message: `${param} must be ${typesOf(error.params['type'])}.` };
  return { param, message: `${param === '' ? 'The request' : param} ${error.message ?? 'is invalid'}.` };
}

const TYPE_WORDS: Readonly<Record<string, string>> = { string: 'a string', boolean: 'true or false', integer: 'a whole number', number: 'a number', object: 'an object', array: 'a list', null: 'null' };

/** ajv's `type` (`"string"`, or `"string,null"` for a union) in words: "a string or null". */
function typesOf(types: unknown): string {
  const names = String(types).split(',');
  return names.map((t) => TYPE_WORDS[t] ?? t).join(' or ');
}
