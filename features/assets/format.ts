// POST /v1/videogen/asset/{action}: Volcengine's asset library actions, bodies with its PascalCase fields, each
// action's checked against schemas/api/videogen-asset-<Action>.request.schema.json (here), answers and errors in its
// envelope (envelope.ts). About no one model: the action is a flat-priced operation (videogen.asset.<Action>).

import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ASSET_ACTIONS, type AssetAction } from './library.js';
import { schemaFile } from '../../core/config/schema-files.js';
import { schemaCompiler } from '../../core/config/schema-compiler.js';
import { GatewayError } from '../../core/errors.js';
import { ASSET_ERRORS } from './errors.js';
import type { BodyBytes } from '../../core/formats/body-bytes.js';
import type { ClientFormat, ParsedRequest } from '../../core/formats/format.js';
import { LazyRequest } from '../../core/formats/lazy-request.js';
import { plainFormat } from '../../core/formats/plain-format.js';
import { RepeatedKeys } from '../../core/formats/repeated-keys.js';
import { encodeError, encodeStreamError, isErrorFrame } from './envelope.js';
import { unknownFieldMessage } from './field-spelling.js';

interface JsonSchema {
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly type?: string;
}

interface ActionCheck {
  readonly schema: JsonSchema;
  readonly validate: ValidateFunction;
}

/** The operation an action is priced and recorded as (pricing.calls). */
export function operationOf(action: AssetAction): string {
  return `videogen.asset.${action}`;
}

export function isAssetAction(name: string): name is AssetAction {
  return (ASSET_ACTIONS as readonly string[]).includes(name);
}

/** `Filter.GroupIds[0]` from ajv's `/Filter/GroupIds/0`. */
function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '');
}

function schemaAt(schema: JsonSchema, instancePath: string): JsonSchema {
  let at = schema;
  for (const part of instancePath.split('/').slice(1)) if (!/^\d+$/.test(part)) at = at.properties?.[part] ?? {};
  return at;
}

/** The first problem worth telling: an unknown field first (a misspelled required one is also "missing"). */
function refusal(check: ActionCheck, errors: readonly ErrorObject[]): GatewayError {
  const unknown = errors.find((e) => e.keyword === 'additionalProperties');
  const first = unknown ?? (errors[0] as ErrorObject);
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'additionalProperties') {
    const name = String(params['additionalProperty']);
    const known = Object.keys(schemaAt(check.schema, first.instancePath).properties ?? {});
    return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', unknownFieldMessage(fieldPath(first.instancePath), name, known), {
      param: fieldPath(first.instancePath, name),
    });
  }
  if (first.keyword === 'required') {
    const field = fieldPath(first.instancePath, String(params['missingProperty']));
    return new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', `The field ${field} is required.`, { param: field });
  }
  const field = fieldPath(first.instancePath);
  if (first.keyword === 'enum') {
    const allowed = (schemaAt(check.schema, first.instancePath).enum ?? (params['allowedValues'] as unknown[] | undefined) ?? []).map(String);
    return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${field} must be one of ${allowed.join(', ')} (case-sensitive).`, { param: field });
  }
  if (first.keyword === 'type') {
    return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${field === '' ? 'The body' : field} must be ${String(params['type'])}.`, { param: field });
  }
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${field} ${first.message ?? 'is not valid'}.`, { param: field });
}

function readBody(raw: BodyBytes): unknown {
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.joined().toString('utf8'));
  } catch {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_JSON', 'The body is not valid JSON; send a JSON object with the action\'s fields, such as {"Name":"my-group"}.');
  }
}

export function createVolcengineAssetFormat(): ClientFormat {
  const ajv = schemaCompiler({ allErrors: true, strict: false });
  const checks = new Map<string, ActionCheck>(
    ASSET_ACTIONS.map((action) => {
      const schema = JSON.parse(readFileSync(schemaFile('api', `videogen-asset-${action}.request.schema.json`), 'utf8')) as JsonSchema;
      return [action, { schema, validate: ajv.compile(schema as object) }];
    }),
  );
  const repeats = new RepeatedKeys(null);
  function decodeRequest(raw: BodyBytes, _contentType?: string, params?: Readonly<Record<string, string>>): ParsedRequest {
    const action = params?.['action'] ?? '';
    const check = checks.get(action);
    if (check === undefined || !isAssetAction(action)) {
      throw new GatewayError(
        ASSET_ERRORS.GW_ERR_ASSET_ACTION_UNKNOWN,
        `The asset library has no action "${action.slice(0, 64)}"; it serves ${ASSET_ACTIONS.join(', ')} (POST /v1/videogen/asset/<Action>).`,
      );
    }
    const body = readBody(raw);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_JSON', 'The body must be a JSON object with the action\'s fields, such as {"Name":"my-group"}.');
    }
    // JSON.parse keeps the last of a repeated field; the library might read the first.
    const repeated = raw.length === 0 ? null : repeats.find(raw.joined(), null);
    if (repeated !== null) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${repeated.slice(0, 64)} is given more than once; send each field once.`, { param: repeated });
    if (check.validate(body) !== true) throw refusal(check, check.validate.errors ?? []);
    const head = body as Record<string, unknown>;
    return new LazyRequest(raw, head, { whole: () => head }, '', false, null, undefined, undefined, operationOf(action));
  }
  return plainFormat({ name: 'volcengine-asset', decodeRequest, encodeError, encodeStreamError, isErrorFrame });
}
