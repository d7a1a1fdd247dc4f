// A stream's usage event with the request's price beside its usage (`usage.cost`, where OpenRouter's streams carry
// theirs): the one frame of a stream edited for money, spliced so that every other byte of it stays as it was.

import type { SseFrame } from '../sse/frame.js';
import { encodeFrame } from '../sse/frame-writer.js';
import { OPEN_BRACE, topLevelPairs, type Pair } from './json-scan.js';

/**
 * `frame` with `"cost":<cost>` in the object its JSON data holds at `path` (`['usage']`, `['response', 'usage']`),
 * or null when there is no object there (or no JSON). A cost already there (an upstream's own, in its money) is
 * replaced. `cost` is a decimal's text (money/decimal.ts formatMoney), written as a JSON number digit for digit: a
 * parser reads it as the nearest double, whose shortest text is those digits again.
 */
export function withUsageCost(frame: SseFrame, path: readonly string[], cost: string): SseFrame | null {
  const data = frame.data;
  if (data === null) return null;
  const raw = Buffer.from(data, 'utf8');
  // The object at `path`: raw[start, end), braces included.
  let start = 0;
  let end = raw.length;
  try {
    for (const name of path) {
      const pair = lastNamed(topLevelPairs(raw.subarray(start, end)).pairs, name);
      if (pair === undefined) return null;
      end = start + pair.valueEnd;
      start += pair.valueStart;
      if (raw[start] !== OPEN_BRACE) return null;
    }
    const pairs = topLevelPairs(raw.subarray(start, end)).pairs;
    const known = lastNamed(pairs, 'cost');
    // JSON.parse keeps the last of duplicate keys: replacing the last one is enough.
    const [cut, resume, text] =
      known === undefined ? [end - 1, end - 1, `${pairs.length === 0 ? '' : ','}"cost":${cost}`] : [start + known.valueStart, start + known.valueEnd, cost];
    const edited = raw.toString('utf8', 0, cut) + text + raw.toString('utf8', resume);
    return encodeFrame(edited, frame.event ?? undefined);
  } catch {
    return null;
  }
}

function lastNamed(pairs: readonly Pair[], name: string): Pair | undefined {
  for (let i = pairs.length - 1; i >= 0; i--) if (pairs[i]?.name === name) return pairs[i];
  return undefined;
}
