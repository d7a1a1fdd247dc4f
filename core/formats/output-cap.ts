// The output cap of a request, read by one rule for every use: the reservation (core/money/estimate.ts) and the
// cap a translated request carries upstream (each codec's request decoding, a feature's too: Gemini's) both call
// outputCapOf with the fields the client's format declares (ClientFormat.outputCaps), so what is reserved is what
// the upstream is told.

/** Chat Completions honours both; max_tokens is the deprecated alias. Both named: the larger one is reserved. */
export const CHAT_OUTPUT_CAPS: readonly string[] = ['max_completion_tokens', 'max_tokens'];
/** Messages honours max_tokens only (a max_completion_tokens beside it is ignored by Anthropic). */
export const MESSAGES_OUTPUT_CAPS: readonly string[] = ['max_tokens'];
/** Responses honours max_output_tokens only. */
export const RESPONSES_OUTPUT_CAPS: readonly string[] = ['max_output_tokens'];
/** An endpoint whose upstream honours no output cap (images, /responses/compact, the gateway's own routes). */
export const NO_OUTPUT_CAPS: readonly string[] = [];

/**
 * The largest of `fields` (top-level names, or dotted paths into objects) that `body` names as a whole number, or
 * null when it names none. The request schemas
 * refuse a cap that is not a positive integer; one too large to count exactly is read as the largest that is (it
 * is then refused for money, never reserved short).
 */
export function outputCapOf(body: Readonly<Record<string, unknown>>, fields: readonly string[]): number | null {
  let cap: number | null = null;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    const value = field.includes('.') ? valueAt(body, field) : body[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) continue;
    const tokens = value > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : value;
    if (cap === null || tokens > cap) cap = tokens;
  }
  return cap;
}

/** The value at a dotted path of objects, or undefined. */
function valueAt(body: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = body;
  for (const name of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}
