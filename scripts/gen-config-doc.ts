// `npm run gen`: writes docs/config-reference.md, every setting of gateway.yaml, from the config schema (the schema's
// descriptions are the one source, so the reference cannot drift from what is validated); `--check` fails when stale.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { composeSchema } from '../core/config/compose-schema.js';
import { findSchemaDir } from '../core/config/schema-dir.js';
import { BUILTIN_ENDPOINTS } from '../features/index.js';
import { isMainScript, writeOrCheck } from './generated-file.js';

/** The part of a JSON Schema the reference reads. */
export interface SchemaNode {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly oneOf?: readonly SchemaNode[];
  readonly anyOf?: readonly SchemaNode[];
  readonly items?: SchemaNode;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly additionalProperties?: SchemaNode | boolean;
  readonly required?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
}

/** One row of the reference: a setting's path and what the schema says of it. */
interface Row {
  readonly path: string;
  readonly type: string;
  readonly fallback: string;
  readonly description: string;
}

/** Where the generated file lives, relative to the repo root (the parent of schemas/). */
export const GENERATED_FILE = join('docs', 'config-reference.md');

/** Maps (objects keyed by free names) are written `<name>` in a path. */
const MAP_KEY = '<name>';

const HEADER = `<!-- Generated from schemas/gateway.schema.json and the features' config sections by \`npm run gen\` (scripts/gen-config-doc.ts); do not edit. Change the schema's descriptions and regenerate. -->

# gateway.yaml reference

Every setting of \`gateway.yaml\`, as [schemas/gateway.schema.json](../schemas/gateway.schema.json) validates it.
How to write the file (environment variables, secrets, reload): [config.md](config.md). A path's \`[]\` is an item of
a list; \`${MAP_KEY}\` is a key the operator names (a group, a model glob, a header).
`;

/** Follows a local `$ref` (`#/definitions/Limits/properties/rpm`); the referring node's own keywords win. */
function resolve(root: SchemaNode, node: SchemaNode, seen: readonly string[] = []): SchemaNode {
  if (node.$ref === undefined) return node;
  if (!node.$ref.startsWith('#/') || seen.includes(node.$ref)) throw new Error(`cannot resolve $ref ${node.$ref}`);
  let target: unknown = root;
  for (const part of node.$ref.slice(2).split('/')) target = (target as Record<string, unknown> | undefined)?.[part];
  if (target === undefined) throw new Error(`$ref ${node.$ref} points nowhere`);
  const { $ref: _ref, ...own } = node;
  return { ...resolve(root, target as SchemaNode, [...seen, node.$ref]), ...own };
}

/** A map's value schema, when the node is an object keyed by free names. */
function mapValue(node: SchemaNode): SchemaNode | undefined {
  return typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
}

/** The bounds a number carries, in words (a table cell holds no `<` or `>`). */
function bounds(node: SchemaNode): string {
  const low = node.minimum;
  if (node.exclusiveMinimum !== undefined) return `, above ${node.exclusiveMinimum}`;
  if (low !== undefined && node.maximum !== undefined) return `, ${low} to ${node.maximum}`;
  if (low !== undefined) return `, at least ${low}`;
  return node.maximum === undefined ? '' : `, at most ${node.maximum}`;
}

/** The type column: enums as their values, unions joined, lists and maps named with what they hold. */
function typeOf(root: SchemaNode, raw: SchemaNode): string {
  const node = resolve(root, raw);
  if (node.enum !== undefined) return node.enum.map((v) => `\`${String(v)}\``).join(' | ');
  const union = node.oneOf ?? node.anyOf;
  if (union !== undefined) return union.map((n) => typeOf(root, n)).join(', or ');
  const type = typeof node.type === 'string' ? node.type : node.type?.join(' or ');
  if (type === 'array' && node.items !== undefined) return `list of ${typeOf(root, node.items)}`;
  if (type === 'object') {
    const value = mapValue(node);
    if (node.properties !== undefined) return 'object';
    return value === undefined ? 'object' : `map of ${typeOf(root, value)}`;
  }
  if (type === 'integer' || type === 'number') return `${type}${bounds(node)}`;
  return type ?? 'any';
}

/** The rows of `node` at `path` and of everything under it, in schema order. */
function rowsOf(root: SchemaNode, path: string, raw: SchemaNode, required: boolean): Row[] {
  const node = resolve(root, raw);
  const rows: Row[] = [
    {
      path,
      type: `${typeOf(root, raw)}${required ? ', required' : ''}`,
      fallback: node.default === undefined ? '' : `\`${JSON.stringify(node.default)}\``,
      description: node.description ?? '',
    },
  ];
  return [...rows, ...childRows(root, path, node)];
}

/** The rows under an object (its properties), a list (its items' properties) or a map (its values'). */
function childRows(root: SchemaNode, path: string, node: SchemaNode): Row[] {
  if (node.properties !== undefined) {
    return Object.entries(node.properties).flatMap(([name, child]) =>
      rowsOf(root, `${path}.${name}`, child, node.required?.includes(name) ?? false),
    );
  }
  if (node.items !== undefined) {
    const items = resolve(root, node.items);
    return items.properties === undefined ? [] : childRows(root, `${path}[]`, items);
  }
  const value = mapValue(node);
  if (value !== undefined) {
    const resolved = resolve(root, value);
    if (resolved.properties !== undefined || (resolved.oneOf === undefined && mapValue(resolved) !== undefined)) {
      return childRows(root, `${path}.${MAP_KEY}`, resolved);
    }
  }
  return [];
}

/** Markdown for a table cell: one line, `|` escaped, `<` and `>` escaped outside code spans. */
function cell(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('`')
    .replace(/\|/g, '\\|');
}

/** Renders the reference: one section per top-level setting, one table row per setting under it. */
export function renderConfigReference(schema: SchemaNode): string {
  const sections = Object.entries(schema.properties ?? {}).map(([name, node]) => {
    const rows = rowsOf(schema, name, node, schema.required?.includes(name) ?? false);
    const table = rows.map((r) => `| \`${r.path}\` | ${cell(r.type)} | ${r.fallback} | ${cell(r.description)} |`);
    return [`## ${name}`, '', '| setting | type | default | meaning |', '|---|---|---|---|', ...table, ''].join('\n');
  });
  return `${HEADER}\n${sections.join('\n')}`;
}

/** Reads schemas/gateway.schema.json and returns what config-reference.md should contain and where it goes. */
export async function renderFromRepo(): Promise<{ readonly path: string; readonly text: string }> {
  const schemaDir = findSchemaDir();
  // With the built-in features' keys, as the gateway validates it (core/config/compose-schema.ts).
  const schema = composeSchema(JSON.parse(await readFile(join(schemaDir, 'gateway.schema.json'), 'utf8')) as object, BUILTIN_ENDPOINTS.sections) as SchemaNode;
  return { path: join(schemaDir, '..', GENERATED_FILE), text: renderConfigReference(schema) };
}

// Only act when run as a script, so tests can import the renderer.
if (isMainScript(import.meta.url)) {
  process.exitCode = await writeOrCheck(process.argv.slice(2), await renderFromRepo(), 'schemas/gateway.schema.json and the features\' config-schema.ts');
}
