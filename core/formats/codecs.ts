// The translation codec of each wire format (one per format, serving both the client and the upstream side).

import type { WireFormat } from '../config/resolved.js';
import { anthropicMessagesCodec } from './anthropic-messages/codec.js';
import type { WireCodec } from './codec.js';
import { openaiChatCodec } from './openai-chat/codec.js';
import { openaiResponsesCodec } from './openai-responses/codec.js';

const CODECS: Readonly<Record<WireFormat, WireCodec>> = {
  'openai-chat': openaiChatCodec,
  'openai-responses': openaiResponsesCodec,
  'anthropic-messages': anthropicMessagesCodec,
};

export function codecFor(format: WireFormat): WireCodec {
  return CODECS[format];
}
