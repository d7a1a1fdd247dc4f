// The only import surface for plugins/: everything a plugin may use, nothing else.

export { GatewayError, type ErrorCode } from './errors.js';
export type { Usage } from './ir/usage.js';
export type { ClientFormat, ParsedRequest } from './formats/format.js';
export type { WireCodec } from './formats/codec.js';
export { codecFor } from './formats/codecs.js';
export { StreamTranslation, type TranslatedStreamHooks } from './formats/translate-stream.js';
export type { ChatRequest } from './ir/request.js';
export type { ApiFormat, WireFormat } from './config/resolved.js';
export { isWireFormat } from './config/resolved.js';
export { BodyBytes } from './formats/body-bytes.js';
export { removeTopLevelFields } from './formats/json-edit.js';
export { removeRequestFields, setRequestField } from './formats/body-edit.js';
export type { RequestContext } from './pipeline/context.js';
export { upstreamBody } from './pipeline/context.js';
export { ClientAbort } from './pipeline/client-abort.js';
export type { Plugin, PluginFactory, GatewayServices, RelayResult, UsageSink } from './pipeline/plugin.js';
export type { SseFrame } from './sse/frame.js';
export { frameBatches, PASS_THROUGH, type FrameSource, type FrameTransform } from './sse/frame-batches.js';
export type { Attempt } from './routing/router.js';
export { affinityKey, type AffinityBinding, type AffinityOutcome } from './routing/affinity.js';
export { UpstreamFailure, type UpstreamResponse } from './providers/provider.js';
export { readWhole } from './providers/read-whole.js';
export { scrubError, scrubErrorBody, scrubErrorFrame } from './providers/scrub-secrets.js';
export type { UsageRecord } from './store/store.js';
export type { AuthedKey } from './keys/key-ring.js';
export { carriesToken } from './keys/operator-token.js';
export { createKey, describeKey } from './keys/key-admin.js';
