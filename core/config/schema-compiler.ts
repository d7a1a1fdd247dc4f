// How the gateway makes an ajv instance for its own schema files (schemas/): without checking each schema against
// the JSON Schema meta-schema as it compiles. That check compiles the meta-schema anew in every ajv instance (~14 ms;
// a small schema itself compiles in under 1 ms), and a gateway makes several at each start and reload, and one per
// console route (docs/performance.md). test/architecture/schemas-valid.test.ts checks every schema file against the
// meta-schema instead, once, and compiles each in strict mode. Not for a schema the code changes before compiling.

import { Ajv, type Options } from 'ajv';

export function schemaCompiler(options: Omit<Options, 'validateSchema'>): Ajv {
  return new Ajv({ validateSchema: false, ...options });
}
