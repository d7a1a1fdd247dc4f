// `npm run gen`: writes each feature's config.gen.ts, the types of the keys its config section adds to gateway.yaml
// (features/<name>/config-schema.ts), so a feature reads its keys typed, from the schema that validates them; `--check`
// fails when one is stale.

import { join } from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import type { Feature } from '../core/feature/feature.js';
import type { SectionSchema } from '../core/config/section.js';
import { findSchemaDir } from '../core/config/schema-dir.js';
import { FEATURES } from '../features/index.js';
import { isMainScript, writeOrCheck } from './generated-file.js';

/** The name of a feature's document type: `images` gives ImagesConfig. */
function typeName(feature: Feature): string {
  return `${feature.name.charAt(0).toUpperCase()}${feature.name.slice(1)}Config`;
}

/** The section as a schema of the document: its top-level keys, and its channel keys as the items of `channels`. */
function documentSchema(schema: SectionSchema): JSONSchema {
  const channel = schema.channel === undefined ? {} : { channels: { type: 'array', items: { $ref: '#/definitions/Channel' } } };
  const definitions = { ...schema.definitions, ...(schema.channel === undefined ? {} : { Channel: { type: 'object', properties: schema.channel } }) };
  return structuredClone({ type: 'object', properties: { ...schema.properties, ...channel }, definitions }) as JSONSchema;
}

export async function renderSectionTypes(feature: Feature): Promise<string> {
  const schema = feature.config?.schema;
  if (schema === undefined) throw new Error(`feature ${feature.name} has no config section`);
  return compile(documentSchema(schema), typeName(feature), {
    bannerComment: `// Generated from features/${feature.name}/config-schema.ts by \`npm run gen\`; do not edit. Change the schema and regenerate.`,
    cwd: findSchemaDir(),
    unknownAny: true,
    strictIndexSignatures: true,
    additionalProperties: false,
  });
}

/** Each feature with a config section: its config.gen.ts's path and text. */
export async function renderFromRepo(): Promise<{ readonly path: string; readonly text: string }[]> {
  const root = join(findSchemaDir(), '..');
  const withConfig = FEATURES.filter((feature) => feature.config !== undefined);
  return Promise.all(withConfig.map(async (feature) => ({ path: join(root, 'features', feature.name, 'config.gen.ts'), text: await renderSectionTypes(feature) })));
}

if (isMainScript(import.meta.url)) {
  let failed = 0;
  for (const generated of await renderFromRepo()) failed |= await writeOrCheck(process.argv.slice(2), generated, 'its config-schema.ts');
  process.exitCode = failed;
}
