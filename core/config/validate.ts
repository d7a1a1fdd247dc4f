// Checks parsed config data against schemas/gateway.schema.json, compiled once per validator instance.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type SchemaObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { routeKeyOf, type EndpointRegistry } from '../endpoints/registry.js';
import { CORE_CHANNEL_TYPES } from '../providers/index.js';
import type { GatewayConfig } from './gateway.gen.js';
import type { ConfigIssue } from './issues.js';
import { composeSchema } from './compose-schema.js';
import { describeSchemaErrors } from './schema-messages.js';
import { findSchemaDir } from './schema-dir.js';

/**
 * A route's path must name an endpoint, and a channel's formats client APIs the routes speak. The schema file lists
 * neither (the registry is their one list): the enums are put in at load, so a wrong one is reported with the other
 * schema problems, all at once.
 */
function withRoutePaths(schema: SchemaObject, endpoints: EndpointRegistry): void {
  const path = (schema as { definitions?: { Route?: { properties?: { path?: Record<string, unknown> } } } }).definitions?.Route?.properties?.path;
  if (path === undefined) throw new Error('gateway.schema.json has no definitions.Route.properties.path');
  path['enum'] = endpoints.all.filter((endpoint) => endpoint.configurable !== false).map(routeKeyOf);
  // The client APIs, likewise: the wires the routes declare.
  const api = (schema as { definitions?: { ApiFormat?: Record<string, unknown> } }).definitions?.ApiFormat;
  if (api === undefined) throw new Error('gateway.schema.json has no definitions.ApiFormat');
  api['enum'] = [...new Set(endpoints.wires.map((wire) => wire.name))];
  // The channel types: core's and the features'; a remote one's channel needs a base_url and keys (the Channel's if).
  const definitions = (schema as { definitions?: { ChannelType?: Record<string, unknown>; Channel?: { if?: { properties?: { type?: { enum?: unknown } } } } } }).definitions;
  const types = [...CORE_CHANNEL_TYPES, ...endpoints.channelTypes];
  const remote = definitions?.Channel?.if?.properties?.type;
  if (definitions?.ChannelType === undefined || remote === undefined) throw new Error('gateway.schema.json has no definitions.ChannelType, or no Channel if on type');
  definitions.ChannelType['enum'] = types.map((declared) => declared.type);
  remote.enum = types.filter((declared) => declared.remote).map((declared) => declared.type);
}

export type ValidationResult =
  | { readonly ok: true; readonly config: GatewayConfig }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[] };

/** Owns the compiled schema; build one and reuse it when loading configs repeatedly (tests, reloads). */
export class ConfigValidator {
  readonly #validate: ValidateFunction<GatewayConfig>;

  constructor(endpoints: EndpointRegistry, schemaDir: string = findSchemaDir()) {
    const schema: unknown = JSON.parse(readFileSync(join(schemaDir, 'gateway.schema.json'), 'utf8'));
    if (typeof schema !== 'object' || schema === null) throw new Error('gateway.schema.json is not an object');
    composeSchema(schema, endpoints.sections);
    withRoutePaths(schema as SchemaObject, endpoints);
    // strict catches schema typos at load; strictRequired would reject the Channel if/then's `required`. The
    // meta-schema check stays (not schemaCompiler): the schema is changed here (withRoutePaths), and is compiled once.
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictRequired: false });
    addFormats.default(ajv, ['uri']);
    this.#validate = ajv.compile<GatewayConfig>(schema as SchemaObject);
  }

  validate(data: unknown): ValidationResult {
    if (this.#validate(data)) return { ok: true, config: data };
    return { ok: false, issues: describeSchemaErrors(this.#validate.errors ?? [], data) };
  }
}
