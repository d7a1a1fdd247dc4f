// IR stream events as the chunks a Chat Completions client reads: data-only frames, ending with a usage chunk
// and [DONE].

import type { ChatRequest } from '../../ir/request.js';
import type { EncodedFrame, StreamEncoder, StreamEvent } from '../../ir/stream.js';
import type { Usage } from '../../ir/usage.js';
import { encodeStreamError } from './errors.js';
import { callArguments } from './ir-response.js';
import { chatId, writeFinish, writeUsage } from './ir-usage.js';

interface ToolBlock {
  /** The client's tool_calls[].index: tool calls counted 0, 1, ... */
  readonly k: number;
  /** A free-form (Responses custom) call: its raw input is buffered and sent as {"input": ...} at block stop. */
  readonly custom: boolean;
  input: string;
}

/** `_request`: chat clients declare function tools only, so calls need no renaming. */
export function createStreamEncoder(_request: ChatRequest): StreamEncoder {
  let id = chatId('');
  let model = '';
  let created = Math.floor(Date.now() / 1000);
  let usage: Usage | null = null;
  const tools = new Map<number, ToolBlock>();

  function chunk(delta: Record<string, unknown>, finishReason: string | null = null): EncodedFrame {
    const choice = { index: 0, delta, logprobs: null, finish_reason: finishReason };
    return { data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [choice] }) };
  }

  function argumentsChunk(k: number, json: string): EncodedFrame {
    return chunk({ tool_calls: [{ index: k, function: { arguments: json } }] });
  }

  return {
    push(event: StreamEvent): readonly EncodedFrame[] {
      switch (event.type) {
        case 'start':
          id = chatId(event.id);
          model = event.model;
          created = event.created;
          if (event.usage !== null) usage = event.usage;
          return [chunk({ role: 'assistant', content: '' })];
        case 'block_start': {
          if (event.block.type !== 'tool_call') return [];
          const k = tools.size;
          tools.set(event.index, { k, custom: event.block.custom === true, input: '' });
          const call = { index: k, id: event.block.id, type: 'function', function: { name: event.block.name, arguments: '' } };
          return [chunk({ tool_calls: [call] })];
        }
        case 'text_delta':
          return [chunk({ content: event.text })];
        case 'reasoning_delta':
          return [chunk({ reasoning_content: event.text })];
        case 'arguments_delta': {
          const tool = tools.get(event.index);
          if (tool === undefined) return [];
          if (!tool.custom) return [argumentsChunk(tool.k, event.json)];
          tool.input += event.json;
          return [];
        }
        case 'block_stop': {
          const tool = tools.get(event.index);
          return tool === undefined || !tool.custom ? [] : [argumentsChunk(tool.k, callArguments(tool.input, true))];
        }
        case 'reasoning_proof':
          // Lost: a chat client has no field to send a proof back in.
          return [];
        case 'usage':
          usage = event.usage;
          return [];
        case 'finish':
          return [chunk({}, writeFinish(event.reason))];
        case 'error':
          // The OpenAI SDK raises the `error` of a data frame as an APIError.
          return [{ data: encodeStreamError(event.error).data ?? '' }];
      }
    },

    /** Usage always comes (the meter drops it for clients that did not ask), then [DONE]. */
    end(): readonly EncodedFrame[] {
      const usageChunk = { id, object: 'chat.completion.chunk', created, model, choices: [], usage: writeUsage(usage) };
      return [{ data: JSON.stringify(usageChunk) }, { data: '[DONE]' }];
    },
  };
}
