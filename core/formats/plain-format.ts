// A format's optional parts left out: no token usage, nothing asked of a stream, no translation, the body sent as
// the client wrote it. An endpoint that has them (the chat APIs, images) gives its own.

import type { ClientFormat, FrameUsage } from './format.js';
import { NO_OUTPUT_CAPS } from './output-cap.js';

const NO_FRAME_USAGE: FrameUsage = { usage: null, usageOnly: false };

type Required = Pick<ClientFormat, 'name' | 'decodeRequest' | 'encodeError' | 'encodeStreamError' | 'isErrorFrame'>;

export function plainFormat(own: Required & Partial<ClientFormat>): ClientFormat {
  return Object.assign(
    {
      translatable: false,
      outputCaps: NO_OUTPUT_CAPS,
      requestStreamUsage: () => null,
      prepareUpstreamBody: (_request: unknown, body: Parameters<ClientFormat['prepareUpstreamBody']>[1]) => body,
      decodeUsage: () => null,
      decodeFrameUsage: () => NO_FRAME_USAGE,
    },
    own,
  );
}
