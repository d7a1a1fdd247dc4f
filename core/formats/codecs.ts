// The translation codecs of core's chat APIs (one per format, serving both the client and the upstream side), declared
// on their wires (endpoints/model-routes.ts). A feature's chat API declares its codec on its own wire.

import { anthropicMessagesCodec } from './anthropic-messages/codec.js';
import type { WireCodec } from './codec.js';
import { openaiChatCodec } from './openai-chat/codec.js';
import { openaiResponsesCodec } from './openai-responses/codec.js';

/** Core's chat APIs. */
export type CoreWireFormat = 'openai-chat' | 'openai-responses' | 'anthropic-messages';

const CODECS: Readonly<Record<CoreWireFormat, WireCodec>> = {
  'openai-chat': openaiChatCodec,
  'openai-responses': openaiResponsesCodec,
  'anthropic-messages': anthropicMessagesCodec,
};

export function codecFor(format: CoreWireFormat): WireCodec {
  return CODECS[format];
}
