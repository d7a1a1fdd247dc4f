// A top-level key given twice among the fields the gateway reads (`{"model":"a","model":"b"}`): JSON.parse keeps the
// last, an upstream may keep the first, so the gateway would route, price and limit another request than the one
// served (issue 40). Found without a second parse: a body is walked only when a read field's quoted name occurs twice
// in its text, or a key could be spelled with an escaped letter, digit or underscore (no encoder writes one).

import { topLevelPairs, type TopLevel } from './json-scan.js';

/**
 * An escaped letter, digit or underscore (`\u006d` for `m`): how a read field's name could be written so that no plain
 * search finds it. Not `<`, `>` or `&`, which Go's encoding/json escapes in every body and no field name holds.
 */
const ESCAPED_NAME_CHAR = /\\u00(?:3[0-9]|4[1-9a-fA-F]|5[0-9aAfF]|6[1-9a-fA-F]|7[0-9aA])/;

export class RepeatedKeys {
  readonly #names: ReadonlySet<string>;
  /** Every key counts (the gateway's own bodies), not only the named ones. */
  readonly #everyKey: boolean;
  /** Every quoted occurrence of a read field's name, found in one native scan of the text. */
  readonly #occurrences: RegExp | null;

  /** `names`: the top-level fields the gateway reads (null: every key, for the gateway's own small bodies). */
  constructor(names: Iterable<string> | null) {
    this.#names = new Set(names ?? []);
    this.#everyKey = names === null;
    // A name of other characters could hide behind an escape ESCAPED_NAME_CHAR misses: every body is walked then.
    const plain = [...this.#names].every((n) => /^\w+$/.test(n));
    this.#occurrences = names === null || !plain ? null : new RegExp(`"(?:${[...this.#names].map((n) => n.replace(/[^A-Za-z0-9_]/g, '\\$&')).join('|')})"`, 'g');
  }

  /** The first read field given twice in `raw` (whose text is `text`), or null; `topLevel` when already walked. */
  find(raw: Buffer, text: string | null, topLevel: TopLevel | null = null): string | null {
    if (topLevel === null) {
      if (text !== null && this.#occurrences !== null && !this.#mayRepeat(text, this.#occurrences)) return null;
      try {
        topLevel = topLevelPairs(raw);
      } catch {
        // Not one walkable object: JSON.parse accepted it, so nothing here is worth refusing for a repeat.
        return null;
      }
    }
    const seen = new Set<string>();
    for (const pair of topLevel.pairs) {
      if (!this.#everyKey && !this.#names.has(pair.name)) continue;
      if (seen.has(pair.name)) return pair.name;
      seen.add(pair.name);
    }
    return null;
  }

  #mayRepeat(text: string, occurrences: RegExp): boolean {
    const found = text.match(occurrences);
    if (found !== null) {
      // A handful of names: a quadratic look costs less than a Set.
      for (let i = 1; i < found.length; i++) if (found.lastIndexOf(found[i] as string, i - 1) >= 0) return true;
    }
    return text.includes('\\u00') && ESCAPED_NAME_CHAR.test(text);
  }
}
