// A Gemini client's contents and systemInstruction as IR messages. Roles user and model (and Google's lenient
// "function" for results); thoughts become reasoning, a thoughtSignature a reasoning proof just before the part it
// sat on (a proof this gateway wrapped for the client goes back before the text that came after the reasoning,
// where the other dialect had it); functionResponse parts become one tool message each.

import type { JsonObject } from '../../core/formats/field-reader.js';
import type { ImagePart, Message, Part, TextPart, ToolResultPart } from '../../core/ir/message.js';
import { historyCallId } from './call-ids.js';
import { listOf, member } from './lenient-json.js';
import { decodeFileData, decodeInlineData, isObject } from './media.js';
import { geminiFields as read, unsupported } from './request-fields.js';
import { clientProofs } from './thought-signatures.js';

/** Part kinds the IR has no counterpart for: code the model ran at Google's. */
const UNSUPPORTED_PARTS: readonly string[] = ['executableCode', 'codeExecutionResult'];

function refuseUnsupported(part: JsonObject, param: string): void {
  for (const kind of UNSUPPORTED_PARTS) {
    if (member(part, kind) !== undefined) throw unsupported(`${param}.${kind}`, `A "${kind}" part cannot be translated for this model's upstream.`);
  }
}

/** The systemInstruction (a Content; a bare string is taken too) as one system message. */
export function decodeSystem(value: unknown): Message | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value === '' ? null : { role: 'system', parts: [{ type: 'text', text: value }] };
  const content = read.object(value, 'systemInstruction');
  const parts = listOf(member(content, 'parts')).flatMap((entry: unknown, j): TextPart[] => {
    const param = `systemInstruction.parts[${j}]`;
    const part = read.object(entry, param);
    const text = read.optionalString(part['text'], `${param}.text`);
    if (text === null) throw unsupported(param, `A systemInstruction part other than text cannot be translated for this model's upstream.`);
    return text === '' ? [] : [{ type: 'text', text }];
  });
  return parts.length === 0 ? null : { role: 'system', parts };
}

interface PendingCall {
  readonly id: string;
  readonly name: string;
  /** The client gave this id (else it was made from the call's place). */
  readonly given: boolean;
}

/** Reads contents in order: a call's id is known when its response comes. */
class ContentsReader {
  readonly messages: Message[] = [];
  /** Calls of the latest model turn not answered yet. */
  private pending: PendingCall[] = [];
  private lastRole: 'user' | 'model' | null = null;

  content(value: unknown, i: number): void {
    const param = `contents[${i}]`;
    const content = read.object(value, param);
    // Omitted means user; "function" (and "tool") is how Google's REST samples send results.
    const role = read.optionalString(content['role'], `${param}.role`) ?? 'user';
    const parts = listOf(member(content, 'parts')).map((part: unknown, j) => read.object(part, `${param}.parts[${j}]`));
    if (role === 'model') this.model(parts, i);
    else if (role === 'user' || role === 'function' || role === 'tool') this.user(parts, i);
    else throw read.invalid(`${param}.role`, 'Please use a valid role: user, model');
  }

  private model(parts: readonly JsonObject[], i: number): void {
    // A model turn after the user spoke starts a new round of calls.
    if (this.lastRole !== 'model') this.pending = [];
    this.lastRole = 'model';
    const out: Part[] = [];
    /** Where a wrapped proof goes back: after the last part that is not plain text. */
    let boundary = 0;
    parts.forEach((part, j) => {
      const param = `contents[${i}].parts[${j}]`;
      refuseUnsupported(part, param);
      const text = read.optionalString(part['text'], `${param}.text`);
      const signature = member(part, 'thoughtSignature');
      if (part['thought'] === true) {
        const proofs = clientProofs(signature, text ?? '');
        if (proofs !== null) out.push(...proofs.parts);
        else if (text !== null && text !== '') out.push({ type: 'reasoning', text, proof: null });
        boundary = out.length;
        return;
      }
      const proofs = clientProofs(signature, '');
      if (proofs !== null && proofs.wrapped) {
        out.splice(boundary, 0, ...proofs.parts);
        boundary += proofs.parts.length;
      } else if (proofs !== null) {
        out.push(...proofs.parts);
        boundary = out.length;
      }
      const call = member(part, 'functionCall');
      if (call !== undefined && call !== null) {
        out.push(this.call(call, `${param}.functionCall`, i, j));
        boundary = out.length;
      } else if (member(part, 'functionResponse') !== undefined) {
        throw unsupported(`${param}.functionResponse`, 'A functionResponse belongs in a user content, not a model one.');
      } else if (member(part, 'inlineData') !== undefined || member(part, 'fileData') !== undefined) {
        throw unsupported(param, `Images in a model turn cannot be translated for this model's upstream.`);
      } else if (text !== null && text !== '') {
        out.push({ type: 'text', text });
      }
    });
    if (out.length > 0) this.messages.push({ role: 'assistant', parts: out });
  }

  private call(value: unknown, param: string, i: number, j: number): Part {
    const call = read.object(value, param);
    const name = read.string(call['name'], `${param}.name`);
    const given = read.optionalString(call['id'], `${param}.id`);
    const id = given === null || given === '' ? historyCallId(name, i, j) : given;
    this.pending.push({ id, name, given: id === given });
    const args = read.optionalObject(call['args'], `${param}.args`) ?? {};
    return { type: 'tool_call', id, name, arguments: JSON.stringify(args) };
  }

  /** Tool results first, one tool message each; the rest of the content (text, images) as a user message after them. */
  private user(parts: readonly JsonObject[], i: number): void {
    this.lastRole = 'user';
    const results: Message[] = [];
    const rest: (TextPart | ImagePart)[] = [];
    parts.forEach((part, j) => {
      const param = `contents[${i}].parts[${j}]`;
      refuseUnsupported(part, param);
      const response = member(part, 'functionResponse');
      const inline = member(part, 'inlineData');
      const file = member(part, 'fileData');
      const text = read.optionalString(part['text'], `${param}.text`);
      if (response !== undefined && response !== null) results.push({ role: 'tool', parts: [this.result(response, `${param}.functionResponse`, i, j)] });
      else if (member(part, 'functionCall') !== undefined) throw unsupported(`${param}.functionCall`, 'A functionCall belongs in a model content, not a user one.');
      else if (inline !== undefined && inline !== null) rest.push(decodeInlineData(inline, `${param}.inlineData`));
      else if (file !== undefined && file !== null) rest.push(decodeFileData(file, `${param}.fileData`));
      else if (text !== null && text !== '') rest.push({ type: 'text', text });
    });
    this.messages.push(...results);
    if (rest.length > 0) this.messages.push({ role: 'user', parts: rest });
  }

  private result(value: unknown, param: string, i: number, j: number): ToolResultPart {
    const response = read.object(value, param);
    const name = read.optionalString(response['name'], `${param}.name`) ?? '';
    const id = read.optionalString(response['id'], `${param}.id`);
    const images = listOf(member(response, 'parts')).flatMap((entry: unknown, k): ImagePart[] => {
      const at = `${param}.parts[${k}]`;
      const part = read.object(entry, at);
      const inline = member(part, 'inlineData');
      const file = member(part, 'fileData');
      if (inline !== undefined && inline !== null) return [decodeInlineData(inline, `${at}.inlineData`)];
      return file !== undefined && file !== null ? [decodeFileData(file, `${at}.fileData`)] : [];
    });
    const { text, isError } = resultText(response['response']);
    return {
      type: 'tool_result',
      callId: this.pair(id === '' ? null : id, name, i, j),
      content: [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...images],
      isError,
    };
  }

  /** The call a response answers: by its id, else the first unanswered call of that name (ids made for calls without one). */
  private pair(id: string | null, name: string, i: number, j: number): string {
    const take = (k: number): string | null => (k < 0 ? null : (this.pending.splice(k, 1)[0]?.id ?? null));
    if (id !== null) return take(this.pending.findIndex((c) => c.id === id)) ?? take(this.pending.findIndex((c) => !c.given && c.name === name)) ?? id;
    return take(this.pending.findIndex((c) => c.name === name)) ?? historyCallId(name === '' ? 'response' : name, i, j);
  }
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** functionResponse.response: its "output", or its "error" (an error result), else the whole object as JSON. */
function resultText(response: unknown): { readonly text: string; readonly isError: boolean } {
  if (response === undefined || response === null) return { text: '', isError: false };
  if (!isObject(response)) return { text: asText(response), isError: false };
  if (response['output'] !== undefined) return { text: asText(response['output']), isError: false };
  if (response['error'] !== undefined) return { text: asText(response['error']), isError: true };
  return { text: Object.keys(response).length === 0 ? '' : JSON.stringify(response), isError: false };
}

/** `contents` (required, and never empty: Gemini answers "contents is not specified"). */
export function decodeContents(value: unknown): Message[] {
  const contents = listOf(value);
  if (contents.length === 0) throw read.missing('contents');
  const reader = new ContentsReader();
  contents.forEach((content: unknown, i) => reader.content(content, i));
  return reader.messages;
}
