// Gemini's `parameters` and `responseSchema` are an OpenAPI 3.0 subset (types as "OBJECT", "STRING", `nullable`,
// `propertyOrdering`); Gemini CLI even writes its JSON Schemas with those upper-case types. The other dialects take
// JSON Schema, so a Gemini client's schemas are written as JSON Schema before they enter the IR.

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const ONE: ReadonlySet<string> = new Set(['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else']);
const LIST: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const MAP: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions']);
/** Gemini's own keyword, meaningless elsewhere (and refused by strict OpenAI schemas). */
const DROPPED: ReadonlySet<string> = new Set(['propertyOrdering']);

function lower(type: unknown): unknown {
  if (typeof type === 'string') return type.toLowerCase();
  return Array.isArray(type) ? type.map(lower) : type;
}

/** A type that may also be null, as JSON Schema says it. */
function nullable(type: unknown, isNullable: boolean): unknown {
  if (!isNullable) return type;
  if (typeof type === 'string') return [type, 'null'];
  return Array.isArray(type) && !type.includes('null') ? [...type, 'null'] : type;
}

/** `schema` as JSON Schema: types in lower case, `nullable: true` as a "null" type; anything else as it was. */
export function jsonSchemaOf(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  // Entries, never `out[key] =`: a key "__proto__" must stay a key.
  const entries: [string, unknown][] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key === 'nullable') continue;
    if (key === 'type') entries.push([key, nullable(lower(value), schema['nullable'] === true)]);
    else if (ONE.has(key)) entries.push([key, jsonSchemaOf(value)]);
    else if (LIST.has(key) && Array.isArray(value)) entries.push([key, value.map(jsonSchemaOf)]);
    else if (MAP.has(key) && isObject(value)) entries.push([key, Object.fromEntries(Object.entries(value).map(([name, s]) => [name, jsonSchemaOf(s)]))]);
    else entries.push([key, value]);
  }
  return Object.fromEntries(entries);
}

/** An object schema for the IR's tools (a declaration without parameters takes none). */
export function parametersOf(schema: unknown): Record<string, unknown> {
  const converted = jsonSchemaOf(schema);
  if (!isObject(converted)) return { type: 'object', properties: {} };
  return 'type' in converted ? converted : { type: 'object', properties: {}, ...converted };
}
