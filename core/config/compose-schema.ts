// gateway.yaml's schema: core's (schemas/gateway.schema.json) with the features' sections put in. A key a section
// adds where core or another section has one already is a mistake of the feature list, refused.

import type { ConfigSection, SchemaJson } from './section.js';

interface MutableSchema {
  properties?: Record<string, unknown>;
  definitions?: Record<string, { properties?: Record<string, unknown> }>;
}

/** `base` (a fresh copy: it is changed) with every section's keys and definitions added. */
export function composeSchema<S extends object>(base: S, sections: readonly ConfigSection<unknown>[]): S {
  const schema = base as MutableSchema;
  const properties = (schema.properties ??= {});
  const definitions = (schema.definitions ??= {});
  const channel = definitions['Channel']?.properties;
  if (channel === undefined) throw new Error('gateway.schema.json has no definitions.Channel.properties');
  for (const section of sections) {
    const what = `config section ${section.slot.name}`;
    add(properties, section.schema.properties, `${what}: the top-level key`);
    add(channel, section.schema.channel, `${what}: the channel key`);
    add(definitions as Record<string, unknown>, section.schema.definitions, `${what}: the definition`);
  }
  return base;
}

function add(into: Record<string, unknown>, entries: Readonly<Record<string, SchemaJson>> | undefined, what: string): void {
  for (const [name, node] of Object.entries(entries ?? {})) {
    if (name in into) throw new Error(`${what} "${name}" exists already`);
    into[name] = structuredClone(node);
  }
}
