// A feature's part of gateway.yaml: the keys it adds at the top and to every channel, their JSON Schema (validated
// with core's, one document, all problems at once), the checks the schema cannot make, and what they resolve to.
// Core composes the sections of the features it is given (compose-schema.ts) and keeps each resolved section under
// its slot: `sectionOf(config, SLOT)`.

import type { Slot } from '../slot.js';
import type { ConfigPath, ResolvedConfig } from './resolved.js';

/** A JSON Schema node, as JSON. */
export type SchemaJson = { readonly [key: string]: unknown };

export interface SectionSchema {
  /** The top-level keys it adds to gateway.yaml (`properties` entries of the document). */
  readonly properties?: Readonly<Record<string, SchemaJson>>;
  /** The keys it adds to every channel (`properties` entries of a channel). */
  readonly channel?: Readonly<Record<string, SchemaJson>>;
  /** The definitions its entries refer to (`#/definitions/<Name>`), beside core's. */
  readonly definitions?: Readonly<Record<string, SchemaJson>>;
}

/** The document as validated: a feature reads its own keys (its generated config.gen.ts types them). */
export interface ValidDocument {
  readonly [key: string]: unknown;
  readonly channels: readonly { readonly [key: string]: unknown }[];
}

export interface ConfigSection<T> {
  readonly slot: Slot<T>;
  readonly schema: SectionSchema;
  /** What the schema cannot say (a key that needs another's value), at the paths it is about. */
  check?(document: ValidDocument): readonly { readonly path: ConfigPath; readonly message: string }[];
  /** Its settings, defaults filled in. */
  resolve(document: ValidDocument): T;
}

/** A feature's resolved settings; throws when the config was resolved without that feature's section. */
export function sectionOf<T>(config: ResolvedConfig, slot: Slot<T>): T {
  if (!config.sections.has(slot)) throw new Error(`the config was resolved without the section "${slot.name}"`);
  return config.sections.get(slot) as T;
}

/**
 * The document as the feature's generated type (config.gen.ts) says it: true once the composed schema, which holds
 * the feature's keys, has validated it.
 */
export function documentAs<T>(document: ValidDocument): T {
  return document as unknown as T;
}
