// The models a key may call, for the model lists every API has (GET /v1/models, Gemini's /v1beta/models): what the
// gateway serves (globs expanded over the upstreams' lists), narrowed by the key's group and its own list, as auth
// would let it call them.

import type { ModelCatalog } from '../routing/model-catalog.js';
import type { GroupAccess } from './group-access.js';
import type { AuthedKey } from './key-ring.js';

export function callableModels(key: AuthedKey | null, catalog: ModelCatalog, access: GroupAccess): string[] {
  if (key === null) return [];
  return catalog.models().filter((model) => access.allows(key.group, model) && (key.models === undefined || key.models(model)));
}
