// A Gemini upstream's answer as IR events. Each stream event is a whole GenerateContentResponse holding only the new
// parts: text and thought parts are deltas of the open text or reasoning block, each functionCall arrives whole (one
// tool_call block), and a thoughtSignature becomes a reasoning proof wherever it sits (pitfalls 1 and 3: on a
// functionCall, a thought, a text or an empty-text part). A whole (non-stream) answer is read by the same reader.

import { GatewayError } from '../../core/errors.js';
import { count, field } from '../../core/formats/json-fields.js';
import type { ReasoningProof } from '../../core/ir/message.js';
import type { StreamDecoder, StreamEvent } from '../../core/ir/stream.js';
import { answerCallId, standInResponseId } from './call-ids.js';
import { readFinish } from './finish-reasons.js';
import { inBandError, isErrorBody } from './ir-error.js';
import { readUsageMetadata } from './ir-usage.js';
import { upstreamProof } from './thought-signatures.js';

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Seconds of an RFC 3339 createTime (Vertex sends one), else now. */
function createdOf(value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : Math.floor(Date.now() / 1000);
}

/** The candidate of index 0 (a missing index is 0). */
function firstCandidate(json: unknown): unknown {
  const candidates = field(json, 'candidates');
  if (!Array.isArray(candidates)) return undefined;
  return candidates.find((c: unknown) => count(field(c, 'index')) === 0) ?? candidates[0];
}

interface OpenBlock {
  readonly index: number;
  readonly kind: 'text' | 'reasoning';
  /** A reasoning block that has its proof: the next signature, or thought, starts another (one signature per part). */
  proven: boolean;
}

/**
 * Reads GenerateContentResponse chunks into IR events. Block ids are assigned here: a signature on a non-thought
 * part becomes a reasoning block of its own, just before the part it sat on (where the encoder puts it back).
 */
export class ChunkReader {
  finished = false;
  private started = false;
  private responseId = '';
  private nextIndex = 0;
  private open: OpenBlock | null = null;
  private calls = 0;
  private readonly callIds = new Set<string>();

  read(json: unknown, out: StreamEvent[]): void {
    this.start(json, out);
    const candidate = firstCandidate(json);
    // Only usage may follow the finish.
    if (candidate !== undefined && !this.finished) {
      const parts = field(field(candidate, 'content'), 'parts');
      if (Array.isArray(parts)) for (const part of parts) this.part(part, out);
      const reason = str(field(candidate, 'finishReason'));
      if (reason !== null) this.finish(readFinish(reason, this.calls > 0), out);
    }
    // A blocked prompt: no candidates, and promptFeedback says why.
    const blocked = str(field(field(json, 'promptFeedback'), 'blockReason'));
    if (candidate === undefined && blocked !== null && !this.finished) this.finish('content_filter', out);
    const usage = readUsageMetadata(field(json, 'usageMetadata'));
    if (usage !== null) out.push({ type: 'usage', usage });
  }

  /** The events owed at the end of a whole answer: a start, and open blocks closed. */
  close(out: StreamEvent[]): void {
    this.start({}, out);
    this.closeOpen(out);
  }

  private start(json: unknown, out: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    this.responseId = str(field(json, 'responseId')) ?? '';
    out.push({ type: 'start', id: this.responseId, model: str(field(json, 'modelVersion')) ?? '', created: createdOf(field(json, 'createTime')), usage: null });
  }

  private finish(reason: ReturnType<typeof readFinish>, out: StreamEvent[]): void {
    this.closeOpen(out);
    this.finished = true;
    out.push({ type: 'finish', reason, stopSequence: null });
  }

  private closeOpen(out: StreamEvent[]): void {
    if (this.open === null) return;
    out.push({ type: 'block_stop', index: this.open.index });
    this.open = null;
  }

  private openBlock(kind: OpenBlock['kind'], out: StreamEvent[]): OpenBlock {
    this.closeOpen(out);
    const block: OpenBlock = { index: this.nextIndex++, kind, proven: false };
    this.open = block;
    out.push({ type: 'block_start', index: block.index, block: { type: kind } });
    return block;
  }

  /** A reasoning block holding only `proof`: the signature of the part that follows it. */
  private proofBlock(proof: ReasoningProof, out: StreamEvent[]): void {
    const block = this.openBlock('reasoning', out);
    out.push({ type: 'reasoning_proof', index: block.index, proof });
    this.closeOpen(out);
  }

  private part(part: unknown, out: StreamEvent[]): void {
    const proof = upstreamProof(field(part, 'thoughtSignature'));
    const text = field(part, 'text');
    const call = field(part, 'functionCall');
    if (field(part, 'thought') === true) {
      this.thought(typeof text === 'string' ? text : '', proof, out);
    } else if (typeof call === 'object' && call !== null) {
      this.call(call, proof, out);
    } else {
      if (proof !== null) this.proofBlock(proof, out);
      // inlineData (images made by the model), executableCode, ...: no counterpart in the IR's output.
      if (typeof text === 'string' && text !== '') this.text(text, out);
    }
  }

  /** Thought text goes on in the open reasoning block; its signature is that block's proof. */
  private thought(text: string, proof: ReasoningProof | null, out: StreamEvent[]): void {
    const open = this.open;
    const block = open !== null && open.kind === 'reasoning' && !open.proven ? open : this.openBlock('reasoning', out);
    if (text !== '') out.push({ type: 'reasoning_delta', index: block.index, text });
    if (proof !== null) {
      block.proven = true;
      out.push({ type: 'reasoning_proof', index: block.index, proof });
    }
  }

  private text(text: string, out: StreamEvent[]): void {
    const block = this.open !== null && this.open.kind === 'text' ? this.open : this.openBlock('text', out);
    out.push({ type: 'text_delta', index: block.index, text });
  }

  private call(call: object, proof: ReasoningProof | null, out: StreamEvent[]): void {
    const given = str(field(call, 'id'));
    // A call repeated under its id (seen from some proxies) is the same call, not a second one.
    if (given !== null && this.callIds.has(given)) return;
    if (proof !== null) this.proofBlock(proof, out);
    if (given === null && this.responseId === '') this.responseId = standInResponseId();
    const id = given ?? answerCallId(this.responseId, this.calls);
    this.calls++;
    this.callIds.add(id);
    this.closeOpen(out);
    const index = this.nextIndex++;
    out.push({ type: 'block_start', index, block: { type: 'tool_call', id, name: str(field(call, 'name')) ?? '' } });
    const args = field(call, 'args');
    out.push({ type: 'arguments_delta', index, json: JSON.stringify(typeof args === 'object' && args !== null ? args : {}) });
    out.push({ type: 'block_stop', index });
  }
}

export function createStreamDecoder(): StreamDecoder {
  const reader = new ChunkReader();
  let failed = false;
  return {
    push(_event: string | null, data: string): readonly StreamEvent[] {
      // Keepalives, and a [DONE] some proxies add though Gemini never sends one.
      const trimmed = data.trim();
      if (failed || trimmed === '' || trimmed === '[DONE]') return [];
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        failed = true;
        return [{ type: 'error', error: new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'The upstream sent a stream event that is not JSON.') }];
      }
      if (isErrorBody(json)) {
        failed = true;
        return [{ type: 'error', error: inBandError(json) }];
      }
      const out: StreamEvent[] = [];
      // An element of the JSON-array form, should a proxy frame each one.
      for (const chunk of Array.isArray(json) ? json : [json]) reader.read(chunk, out);
      return out;
    },

    end(): readonly StreamEvent[] {
      if (failed) return [];
      if (!reader.finished) throw new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'The upstream stream ended without a finishReason.');
      const out: StreamEvent[] = [];
      reader.close(out);
      return out;
    },
  };
}
