// What the mock channel answers on each endpoint, named by the endpoint registry's entries (endpoints/registry.ts):
// an endpoint the mock serves says so in its own entry, never in a list kept here.

import type { CoreWireFormat } from '../../formats/codecs.js';
import { GatewayError } from '../../errors.js';
import type { MockAnswer, UpstreamRequest, UpstreamResponse } from '../provider.js';
import { answerCountTokens, answerMessages } from './anthropic.js';
import { answerChat } from './chat.js';
import { refusalOf } from './refusal.js';
import { answerCompact, answerResponses } from './responses.js';

export type { MockAnswer };

/** A JSON API's answer: the body read, refused as the real API refuses it (refusal.ts), else answered. */
function jsonAnswer(wire: CoreWireFormat, answer: (request: UpstreamRequest, body: Record<string, unknown>) => UpstreamResponse): MockAnswer {
  return (request) => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.body.joined().toString('utf8')) as Record<string, unknown>;
    } catch (err) {
      return Promise.reject(new GatewayError('GW_ERR_INTERNAL', 'the mock channel got a body that is not JSON', { cause: err }));
    }
    return Promise.resolve(refusalOf(request, body, wire) ?? answer(request, body));
  };
}

export const MOCK_CHAT = jsonAnswer('openai-chat', answerChat);
export const MOCK_MESSAGES = jsonAnswer('anthropic-messages', answerMessages);
export const MOCK_COUNT_TOKENS = jsonAnswer('anthropic-messages', (_request, body) => answerCountTokens(body));
export const MOCK_RESPONSES = jsonAnswer('openai-responses', answerResponses);
export const MOCK_COMPACT = jsonAnswer('openai-responses', answerCompact);
/** The image endpoints' bodies are not all JSON (an edit is a multipart form): read by their own answer. */
