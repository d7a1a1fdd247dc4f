// IR messages as a Gemini upstream's contents: system text in systemInstruction, assistant turns as `model`
// contents, tool results as functionResponse parts of one `user` content in the order of the calls, consecutive
// contents of one role merged (as Gemini CLI sends them). A Gemini proof goes back as the thoughtSignature of the
// part it came on; the first call of a model turn without one gets the placeholder Gemini 3 accepts for history
// another model wrote.

import { unsupported } from './request-fields.js';
import type { Message, Part, ReasoningProof, ToolResultPart } from '../../core/ir/message.js';
import { GEMINI_API } from './api-name.js';
import { encodeImage } from './media.js';
import { SKIP_SIGNATURE, upstreamSignature } from './thought-signatures.js';

type Json = Record<string, unknown>;

export interface Content {
  readonly role: 'user' | 'model';
  readonly parts: Json[];
}

interface KnownCall {
  readonly name: string;
  /** Its place among every call of the history: results are sent in this order. */
  readonly order: number;
}

/**
 * A call's arguments as the object Gemini's args must be. Text that is no JSON object (a model cut off mid-call, a
 * client's own edit) is kept whole as {"arguments": text}, so the model still reads what it wrote; refusing it would
 * end the conversation for good.
 */
function callArgs(part: Extract<Part, { type: 'tool_call' }>): Json {
  if (part.custom === true) return { input: part.arguments };
  try {
    const parsed: unknown = JSON.parse(part.arguments);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Json;
  } catch {
    // Kept whole below.
  }
  return { arguments: part.arguments };
}

function withSignature(part: Json, proofs: readonly ReasoningProof[]): Json {
  const signature = upstreamSignature(proofs);
  return signature === null ? part : Object.assign({}, part, { thoughtSignature: signature });
}

class ContentsWriter {
  readonly system: Json[] = [];
  readonly contents: Content[] = [];
  private readonly calls = new Map<string, KnownCall>();

  message(message: Message, i: number): void {
    const param = `messages[${i}]`;
    switch (message.role) {
      case 'system':
        for (const part of message.parts) {
          if (part.type !== 'text') throw unsupported(param, `A system message with ${part.type} content cannot be sent to this model's upstream.`);
          if (part.text !== '') this.system.push({ text: part.text });
        }
        return;
      case 'user':
        this.add('user', message.parts.flatMap((part): Json[] => (part.type === 'text' ? (part.text === '' ? [] : [{ text: part.text }]) : part.type === 'image' ? [encodeImage(part.source, param)] : [])));
        return;
      case 'assistant':
        this.add('model', this.modelParts(message.parts, param));
        return;
      case 'tool':
        for (const part of message.parts) if (part.type === 'tool_result') this.add('user', this.result(part, param));
    }
  }

  /** Merged contents, results first in call order in each user content, and each model turn's first call signed. */
  done(): Content[] {
    for (const content of this.contents) {
      if (content.role === 'user') {
        const order = (p: Json): number => {
          const id = (p['functionResponse'] as Json | undefined)?.['id'];
          return typeof id === 'string' ? (this.calls.get(id)?.order ?? -1) : Number.MAX_SAFE_INTEGER;
        };
        content.parts.sort((a, b) => order(a) - order(b));
        continue;
      }
      const first = content.parts.find((p) => p['functionCall'] !== undefined);
      if (first !== undefined && first['thoughtSignature'] === undefined) first['thoughtSignature'] = SKIP_SIGNATURE;
    }
    return this.contents;
  }

  private add(role: Content['role'], parts: Json[]): void {
    // A turn left empty (reasoning of another dialect only, empty text) is left out; its neighbours merge.
    if (parts.length === 0) return;
    const last = this.contents.at(-1);
    if (last !== undefined && last.role === role) last.parts.push(...parts);
    else this.contents.push({ role, parts });
  }

  /**
   * A Gemini proof without text stood before the part it was signed on, and goes back on it; one with text was a
   * thought's own. Other dialects' reasoning cannot be replayed to Gemini and is dropped.
   */
  private modelParts(parts: readonly Part[], param: string): Json[] {
    const out: Json[] = [];
    let pending: ReasoningProof[] = [];
    const signed = (part: Json): Json => {
      const result = withSignature(part, pending);
      pending = [];
      return result;
    };
    for (const part of parts) {
      switch (part.type) {
        case 'reasoning':
          if (part.proof === null || part.proof.dialect !== GEMINI_API) break;
          if (part.text === '') pending.push(part.proof);
          else out.push(withSignature({ text: part.text, thought: true }, [part.proof]));
          break;
        case 'text':
          if (part.text !== '') out.push(signed({ text: part.text }));
          break;
        case 'image':
          out.push(signed(encodeImage(part.source, param)));
          break;
        case 'tool_call':
          this.calls.set(part.id, { name: part.name, order: this.calls.size });
          out.push(signed({ functionCall: { id: part.id, name: part.name, args: callArgs(part) } }));
          break;
        case 'tool_result':
          break;
      }
    }
    // A signature that came last (on the answer's last part, or an empty-text part) goes on the last part.
    const last = out.at(-1);
    if (pending.length > 0 && last !== undefined && last['thoughtSignature'] === undefined) out[out.length - 1] = withSignature(last, pending);
    return out;
  }

  /**
   * One functionResponse (its name recovered from the call: Gemini requires it, Chat's tool messages lack it), text
   * as {"output"} or {"error"}, and images as parts beside it (every Gemini model reads those).
   */
  private result(part: ToolResultPart, param: string): Json[] {
    const call = this.calls.get(part.callId);
    if (call === undefined) {
      throw unsupported(param, `A tool result answers call "${part.callId.slice(0, 64)}", which no earlier assistant message made; Gemini needs the name of the function it answers.`);
    }
    const text = part.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n\n');
    const response = part.isError ? { error: text } : { output: text };
    const images = part.content.flatMap((c) => (c.type === 'image' ? [encodeImage(c.source, param)] : []));
    return [{ functionResponse: { id: part.callId, name: call.name, response } }, ...images];
  }
}

export function encodeContents(messages: readonly Message[]): { readonly system: Json[]; readonly contents: Content[] } {
  const writer = new ContentsWriter();
  messages.forEach((message, i) => writer.message(message, i));
  return { system: writer.system, contents: writer.done() };
}
