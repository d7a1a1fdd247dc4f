// Request bodies for fuzzing the API routes: near-valid bodies of each chat format (every field the decoders,
// the translation and the mock read), then broken at arbitrary places by putting arbitrary JSON there.

import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

/** Objects with Object.prototype, as JSON.parse makes them (fast-check may build null-prototype ones). */
const PLAIN = { noNullPrototype: true } as const;

/** Keys and strings that have tripped code reading JSON of unknown shape (`String(x)` of {"toString":1} throws). */
const TRICKY_KEYS = ['toString', 'valueOf', '__proto__', 'constructor', 'hasOwnProperty', 'type', 'text', 'role', 'content'];

const tricky: fc.Arbitrary<Json> = fc.constantFrom<Json>(
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -0,
  '',
  'text',
  'user',
  'assistant',
  'function',
  'tool_use',
  'image_url',
  'toString',
  '__proto__',
  // A reasoning proof as the gateway wraps them (ir/proof-tag.ts), holding {"toString":1} where its value goes.
  'gwrp1.eyJkIjoiYW50aHJvcGljLW1lc3NhZ2VzIiwidiI6eyJ0b1N0cmluZyI6MX19',
  [],
  {},
  [null],
  { toString: 1 },
  { type: { toString: 1 } },
  { type: 'text', text: null },
  { type: 'text', text: { toString: 1 } },
  { valueOf: 'x', toString: [] },
  JSON.parse('{"__proto__":{"type":"text"}}') as Json,
);

const key = fc.oneof(fc.constantFrom(...TRICKY_KEYS), fc.string({ maxLength: 6 }));

/** Any JSON value, biased towards the values and keys that break readers of unknown shapes. */
export const anyJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tricky,
    fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3, ...PLAIN }),
  ),
})).value;

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('hello', 'what is 2+2?', ''));
const id = fc.stringMatching(/^[a-z]{2,6}_[0-9a-z]{1,6}$/);
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);
const schema = fc.constantFrom<Json>({ type: 'object', properties: { q: { type: 'string' } } }, { type: 'object', properties: {} }, {});
const args = fc.constantFrom('{"q":"cat"}', '{}', '', 'not json');
const dataUrl = 'data:image/png;base64,iVBORw0KGgo=';
const url = fc.constantFrom(dataUrl, 'https://example.com/a.png');

/** `{...required, ...some of optional}`. */
function withSome(required: Record<string, fc.Arbitrary<Json>>, optional: Record<string, fc.Arbitrary<Json>>): fc.Arbitrary<Json> {
  return fc.record({ ...required, ...optional }, { requiredKeys: Object.keys(required), ...PLAIN }) as fc.Arbitrary<Json>;
}

const list = <T>(arb: fc.Arbitrary<T>, max = 3): fc.Arbitrary<T[]> => fc.array(arb, { minLength: 1, maxLength: max });

// ---- OpenAI Chat Completions ----

const chatText = withSome({ type: fc.constant('text'), text }, {});
const chatImage = withSome({ type: fc.constant('image_url'), image_url: fc.oneof(url, withSome({ url }, { detail: fc.constantFrom('low', 'high', 'auto') })) }, {});
/** Images only where the other dialects can carry them (user and tool messages). */
const chatContent = (images: boolean): fc.Arbitrary<Json> => fc.oneof(text, list(images ? fc.oneof(chatText, chatImage) : chatText));
const chatCall = withSome({ id, type: fc.constant('function'), function: withSome({ name, arguments: args }, {}) }, {});
const chatMessage = fc.oneof(
  withSome({ role: fc.constantFrom('system', 'developer'), content: chatContent(false) }, {}),
  withSome({ role: fc.constant('user'), content: chatContent(true) }, { name }),
  withSome(
    { role: fc.constant('assistant') },
    { content: fc.oneof(fc.constant(null), chatContent(false)), tool_calls: list(chatCall), refusal: text, reasoning_content: text },
  ),
  withSome({ role: fc.constant('tool'), tool_call_id: id, content: chatContent(true) }, {}),
);
const chatTool = withSome({ type: fc.constant('function'), function: withSome({ name }, { description: text, parameters: schema, strict: fc.boolean() }) }, {});

export function chatBody(model: string): fc.Arbitrary<Json> {
  return withSome(
    { model: fc.constant(model), messages: list(chatMessage, 4) },
    {
      stream: fc.boolean(),
      stream_options: withSome({}, { include_usage: fc.boolean() }),
      tools: list(chatTool),
      tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required'), withSome({ type: fc.constant('function'), function: withSome({ name }, {}) }, {})),
      response_format: fc.oneof(
        withSome({ type: fc.constantFrom('text', 'json_object') }, {}),
        withSome({ type: fc.constant('json_schema'), json_schema: withSome({ name, schema }, { strict: fc.boolean() }) }, {}),
      ),
      reasoning_effort: fc.constantFrom('low', 'medium', 'high'),
      max_completion_tokens: fc.integer({ min: 1, max: 100 }),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
      stop: fc.oneof(text, list(text)),
      parallel_tool_calls: fc.boolean(),
      prompt_cache_key: text,
    },
  );
}

// ---- OpenAI Responses ----

const inputText = withSome({ type: fc.constantFrom('input_text', 'output_text'), text }, {});
const inputPart = fc.oneof(inputText, withSome({ type: fc.constant('input_image'), image_url: url }, { detail: fc.constantFrom('low', 'high', 'auto') }));
const functionTool = withSome({ type: fc.constant('function'), name }, { description: text, parameters: schema, strict: fc.boolean() });
const responsesTool = fc.oneof(
  functionTool,
  withSome({ type: fc.constant('custom'), name }, { description: text }),
  withSome({ type: fc.constant('namespace'), name, tools: list(functionTool) }, {}),
  withSome({ type: fc.constant('web_search') }, {}),
);
const inputItem = fc.oneof(
  withSome({ role: fc.constant('user'), content: fc.oneof(text, list(inputPart)) }, { type: fc.constant('message') }),
  withSome({ role: fc.constantFrom('assistant', 'system', 'developer'), content: fc.oneof(text, list(inputText)) }, { type: fc.constant('message') }),
  withSome({ type: fc.constant('function_call'), call_id: id, name, arguments: args }, { namespace: name }),
  withSome({ type: fc.constant('custom_tool_call'), call_id: id, name, input: text }, {}),
  withSome({ type: fc.constantFrom('function_call_output', 'custom_tool_call_output'), call_id: id, output: fc.oneof(text, list(inputPart)) }, {}),
  withSome({ type: fc.constant('reasoning') }, { summary: list(withSome({ type: fc.constant('summary_text'), text }, {})), encrypted_content: text }),
  withSome({ type: fc.constant('additional_tools'), tools: list(responsesTool) }, {}),
);

function responsesFields(model: string): Record<string, fc.Arbitrary<Json>> {
  return { model: fc.constant(model), input: fc.oneof(text, list(inputItem, 4)) };
}

export function responsesBody(model: string): fc.Arbitrary<Json> {
  return withSome(responsesFields(model), {
    instructions: text,
    stream: fc.boolean(),
    store: fc.boolean(),
    tools: list(responsesTool),
    tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required'), withSome({ type: fc.constantFrom('function', 'custom'), name }, {})),
    text: withSome({ format: fc.oneof(withSome({ type: fc.constantFrom('text', 'json_object') }, {}), withSome({ type: fc.constant('json_schema'), name, schema }, {})) }, {}),
    reasoning: withSome({ effort: fc.constantFrom('low', 'medium', 'high') }, { summary: fc.constant('auto') }),
    max_output_tokens: fc.integer({ min: 1, max: 100 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    parallel_tool_calls: fc.boolean(),
    prompt_cache_key: text,
  });
}

export function compactBody(model: string): fc.Arbitrary<Json> {
  return withSome(responsesFields(model), { instructions: text, prompt_cache_key: text });
}

// ---- Anthropic Messages ----

const textBlock = withSome({ type: fc.constant('text'), text: fc.string({ minLength: 1, maxLength: 12 }) }, { cache_control: fc.constant({ type: 'ephemeral' }) });
const imageBlock = withSome(
  { type: fc.constant('image'), source: fc.oneof(withSome({ type: fc.constant('base64'), media_type: fc.constant('image/png'), data: fc.constant('iVBORw0KGgo=') }, {}), withSome({ type: fc.constant('url'), url }, {})) },
  {},
);
const toolResult = withSome({ type: fc.constant('tool_result'), tool_use_id: id }, { content: fc.oneof(text, list(fc.oneof(textBlock, imageBlock))), is_error: fc.boolean() });
const assistantBlock = fc.oneof(
  textBlock,
  withSome({ type: fc.constant('thinking'), thinking: text, signature: text }, {}),
  withSome({ type: fc.constant('redacted_thinking'), data: text }, {}),
  withSome({ type: fc.constant('tool_use'), id, name, input: fc.constantFrom<Json>({}, { q: 'cat' }) }, {}),
);
const anthropicMessage = fc.oneof(
  withSome({ role: fc.constant('user'), content: fc.oneof(text, list(fc.oneof(textBlock, imageBlock, toolResult))) }, {}),
  withSome({ role: fc.constant('assistant'), content: fc.oneof(text, list(assistantBlock)) }, {}),
);
const anthropicTool = fc.oneof(
  withSome({ name, input_schema: schema }, { description: text, strict: fc.boolean() }),
  withSome({ type: fc.constant('web_search_20250305'), name: fc.constant('web_search') }, {}),
);

function messagesFields(model: string): Record<string, fc.Arbitrary<Json>> {
  return { model: fc.constant(model), messages: list(anthropicMessage, 4) };
}

function messagesOptional(): Record<string, fc.Arbitrary<Json>> {
  return {
    system: fc.oneof(text, list(textBlock)),
    tools: list(anthropicTool),
    tool_choice: fc.oneof(withSome({ type: fc.constantFrom('auto', 'any', 'none') }, { disable_parallel_tool_use: fc.boolean() }), withSome({ type: fc.constant('tool'), name }, {})),
    thinking: fc.oneof(withSome({ type: fc.constant('enabled'), budget_tokens: fc.integer({ min: 1024, max: 4096 }) }, {}), withSome({ type: fc.constantFrom('disabled', 'adaptive') }, {})),
    output_config: withSome({}, { effort: fc.constantFrom('low', 'high'), format: withSome({ type: fc.constant('json_schema'), schema }, {}) }),
  };
}

export function messagesBody(model: string): fc.Arbitrary<Json> {
  return withSome(
    { ...messagesFields(model), max_tokens: fc.integer({ min: 1, max: 8192 }) },
    {
      ...messagesOptional(),
      stream: fc.boolean(),
      metadata: withSome({}, { user_id: text }),
      stop_sequences: list(text),
      temperature: fc.double({ min: 0, max: 1, noNaN: true }),
    },
  );
}

export function countTokensBody(model: string): fc.Arbitrary<Json> {
  return withSome(messagesFields(model), messagesOptional());
}

// ---- Breaking a body ----

/** A change at one place of a body, chosen by index among its values: replaced, removed, or made a long string. */
export interface Mutation {
  readonly at: number;
  readonly kind: 'replace' | 'remove' | 'long';
  readonly value: Json;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom<Mutation['kind']>('replace', 'replace', 'replace', 'remove', 'long'),
  value: anyJson,
});

/** Every value below the root, as [holder, key] pairs, in document order. */
function places(value: Json, out: [Obj | Json[], string | number][] = []): [Obj | Json[], string | number][] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([value, i]);
      places(item, out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const k of Object.keys(value)) {
      out.push([value, k]);
      places(value[k] as Json, out);
    }
  }
  return out;
}

/** A long string (the body goes over 8 KiB, so the gateway reads it as a skeleton, json-skeleton.ts). */
const LONG = 'x'.repeat(9000);

/** `body` (a copy) with the mutations applied in order. */
export function mutate(body: Json, mutations: readonly Mutation[]): Json {
  const copy = JSON.parse(JSON.stringify(body)) as Json;
  for (const m of mutations) {
    const all = places(copy);
    const place = all[m.at % Math.max(1, all.length)];
    if (place === undefined) continue;
    const [holder, k] = place;
    if (m.kind === 'remove') {
      if (Array.isArray(holder)) holder.splice(k as number, 1);
      else delete holder[k as string];
    } else {
      // A copy: the generated value is fast-check's, reused while shrinking. Defined, not assigned: an assignment
      // to "__proto__" would set the prototype instead of a key.
      const value = m.kind === 'long' ? LONG : (JSON.parse(JSON.stringify(m.value)) as Json);
      Object.defineProperty(holder, k, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy;
}
