// Serving a request on a channel that does not speak the client's format: the request goes through the IR to
// the channel's dialect, and the answer, stream or error comes back through it in the client's format.

import type { Chunks } from '../../core/sse/pulled-body.js';
import type { WireFormat } from '../../core/config/resolved.js';
import { GatewayError } from '../../core/errors.js';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import type { WireCodec } from '../../core/formats/codec.js';
import { removeTopLevelFields } from '../../core/formats/json-edit.js';
import { StreamTranslation, type TranslatedStreamHooks } from '../../core/formats/translate-stream.js';
import type { ChatRequest } from '../../core/ir/request.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { OUTPUT_RESERVE } from '../../core/pipeline/request-slots.js';
import type { Attempt } from '../../core/routing/router.js';
import { frameBatches, type FrameSource } from '../../core/sse/frame-batches.js';
import type { SseFrame } from '../../core/sse/frame.js';

/** One request's translation state: the IR is decoded once, on the first attempt that needs it. */
export interface Translation {
  readonly client: WireCodec;
  readonly upstream: WireCodec;
  readonly request: ChatRequest;
}

/**
 * The dialect to speak to a channel that cannot take the client's format: its first declared chat format (an
 * `openai` channel's chat, unless its `formats` list says otherwise). Null when the client's format is native.
 * (The router plans a translatable request only onto channels that speak some chat API.)
 */
export function dialectFor(ctx: RequestContext, attempt: Attempt): WireFormat | null {
  return attempt.channel.formats.includes(ctx.format.name) ? null : attempt.channel.dialect;
}

/** The codecs of the chat APIs (the route registry's). */
export type Codecs = GatewayServices['codecs'];

export class RequestTranslator {
  /** The IR, or the refusal of the client's request: either is decided once, whatever channels follow. */
  private decoded: ChatRequest | GatewayError | null = null;

  constructor(
    private readonly ctx: RequestContext,
    private readonly codecs: Codecs,
  ) {}

  /** Throws the client's 400 when its request holds something the IR cannot carry. */
  prepare(dialect: WireFormat): Translation {
    const name = this.ctx.format.name;
    const client = this.codecs.codecOf(name);
    const upstream = this.codecs.codecOf(dialect);
    // Only a translatable format is planned onto channels of another dialect, and each of those is a chat API.
    if (client === undefined || upstream === undefined) throw new GatewayError('GW_ERR_INTERNAL', `${name} has no translation into ${dialect}`);
    if (this.decoded === null) {
      try {
        const decoded = client.decodeRequest(this.ctx.request);
        const reserved = this.ctx.get(OUTPUT_RESERVE);
        // Metered and naming no cap: the upstream is told the cap that was reserved, not its API's default or none.
        this.decoded = decoded.maxTokens === null && reserved !== undefined ? Object.assign({}, decoded, { maxTokens: reserved }) : decoded;
      } catch (err) {
        if (!(err instanceof GatewayError)) throw err;
        this.decoded = err;
      }
    }
    if (this.decoded instanceof GatewayError) throw this.decoded;
    return { client, upstream, request: this.decoded };
  }
}

/**
 * The client's headers for an upstream of another API: its API's own headers (anthropic-version, anthropic-beta,
 * openai-beta, ...) describe the client's dialect, not the request the upstream gets, so they stay behind.
 */
export function translatedHeaders(headers: RequestContext['headers']): RequestContext['headers'] {
  const kept: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith('anthropic-') && !name.startsWith('openai-')) kept[name] = value;
  }
  return kept;
}

/** The upstream body: the IR in the channel's dialect, the channel's drop_params applied as for native bodies. */
export function translatedBody(translation: Translation, attempt: Attempt): BodyBytes {
  const body = translation.upstream.encodeRequest(translation.request, attempt.upstreamModel);
  const drop = attempt.channel.dropParams;
  return BodyBytes.of(drop.length === 0 ? body : removeTopLevelFields(body, new Set(drop)));
}

/** A whole answer in the client's format, or the upstream's error as the client's error. */
export function translatedBodyAnswer(translation: Translation, status: number, body: Buffer): Buffer {
  if (status >= 300) throw translation.upstream.decodeError(status, body);
  return translation.client.encodeResponse(translation.upstream.decodeResponse(body), translation.request);
}

/** The client's frames of a translated stream, read lazily from the upstream body. */
export function translatedFrames(translation: Translation, body: Chunks, hooks: TranslatedStreamHooks): FrameSource {
  return frameBatches(body, new StreamTranslation(translation.upstream, translation.client, translation.request, hooks));
}
