// The one table of the API endpoints the plugin chains serve: method, path, the client API its callers speak
// (how its request is read, its answers' and errors' shape) and the chain it gets when gateway.yaml writes none.
// Everything that needs to know the endpoints derives from this table: the intake (http/pipeline-intake.ts), the
// Gateway's formats, the config's route names and default routes, the 404 hints and the mock's refusals.
//
// Adding an endpoint starts with one entry here. A registry is an object, handed to what derives from it (the
// config's parsing, the runtime): a test or an embedding program may start a gateway with entries of its own.

import type { ApiFormat } from '../config/resolved.js';
import { createAnthropicCountTokensFormat, createAnthropicMessagesFormat } from '../formats/anthropic-messages/index.js';
import type { ClientFormat } from '../formats/format.js';
import { createOpenAIChatFormat } from '../formats/openai-chat/index.js';
import { createOpenAIImagesEditsFormat, createOpenAIImagesGenerationsFormat } from '../formats/openai-images/index.js';
import { createOpenAIResponsesCompactFormat, createOpenAIResponsesFormat } from '../formats/openai-responses/index.js';

export interface Endpoint {
  readonly method: 'POST';
  readonly path: string;
  /** The API its callers speak (the mock answers and refuses as that API does). */
  readonly wire: ApiFormat;
  /** Its request's decoding and its answers' shape; one per Gateway (a format may keep per-config state). */
  readonly createFormat: () => ClientFormat;
  /** The plugin chain of a config that writes no route for this path. */
  readonly chain: readonly string[];
}

const METERED = ['auth', 'meter', 'relay'] as const;

/** The endpoints the gateway serves out of the box. */
export const ENDPOINTS: readonly Endpoint[] = [
  { method: 'POST', path: '/v1/chat/completions', wire: 'openai-chat', createFormat: createOpenAIChatFormat, chain: METERED },
  { method: 'POST', path: '/v1/messages', wire: 'anthropic-messages', createFormat: createAnthropicMessagesFormat, chain: METERED },
  // Not billed, but metered: the record shows who counted what, and the request counts in the metrics.
  { method: 'POST', path: '/v1/messages/count_tokens', wire: 'anthropic-messages', createFormat: createAnthropicCountTokensFormat, chain: METERED },
  { method: 'POST', path: '/v1/responses', wire: 'openai-responses', createFormat: createOpenAIResponsesFormat, chain: METERED },
  { method: 'POST', path: '/v1/responses/compact', wire: 'openai-responses', createFormat: createOpenAIResponsesCompactFormat, chain: METERED },
  { method: 'POST', path: '/v1/images/generations', wire: 'openai-images', createFormat: createOpenAIImagesGenerationsFormat, chain: METERED },
  // A multipart form: read within server.body_limit, its fields read to route it, its bytes forwarded as sent.
  { method: 'POST', path: '/v1/images/edits', wire: 'openai-images', createFormat: createOpenAIImagesEditsFormat, chain: METERED },
];

export class EndpointRegistry {
  readonly #byPath: ReadonlyMap<string, Endpoint>;

  constructor(readonly all: readonly Endpoint[]) {
    this.#byPath = new Map(all.map((endpoint) => [endpoint.path, endpoint]));
    if (this.#byPath.size !== all.length) throw new Error('two endpoints of a registry have the same path');
  }

  /** The endpoint at `path`, whatever the method; undefined when none is. */
  at(path: string): Endpoint | undefined {
    return this.#byPath.get(path);
  }

  /** The built-in endpoints and `more`. */
  with(more: readonly Endpoint[]): EndpointRegistry {
    return new EndpointRegistry([...this.all, ...more]);
  }
}

/** The registry of the built-in endpoints (immutable, so one serves every gateway of a process). */
export const BUILTIN_ENDPOINTS = new EndpointRegistry(ENDPOINTS);
