// Maps config paths back to lines of the YAML text, so every message can point at the file.

import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';
import { formatPath } from './config-path.js';
import type { ConfigPath } from './resolved.js';

/** Marks paths of built-in routes, which have no place in the file. */
export const DEFAULT_MARK = '(default)';

export class SourceLines {
  readonly #doc: Document;
  readonly #lineCounter: LineCounter;
  /** The file's basename, or `<config>` for text without a file. */
  readonly label: string;

  constructor(doc: Document, lineCounter: LineCounter, label: string) {
    this.#doc = doc;
    this.#lineCounter = lineCounter;
    this.label = label;
  }

  /** 1-based line of the node at `path`, or of its nearest existing ancestor. Map members use their key's line. */
  lineOf(path: ConfigPath): number {
    let node: unknown = this.#doc.contents;
    let line = this.#lineAt(node) ?? 1;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(this.#doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
        if (pair === undefined) break;
        line = this.#lineAt(pair.key) ?? this.#lineAt(pair.value) ?? line;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item: unknown = node.items[segment];
        if (item === undefined) break;
        line = this.#lineAt(item) ?? line;
        node = item;
      } else {
        break;
      }
    }
    return line;
  }

  /** `channels[2].base_url (gateway.yaml:14)`; built-in routes read `(default)`. */
  locate(path: ConfigPath): string {
    if (path[0] === DEFAULT_MARK) return DEFAULT_MARK;
    return `${formatPath(path)} (${this.label}:${this.lineOf(path)})`;
  }

  /** `gateway.yaml:3:7`, for YAML syntax errors that only have an offset. */
  position(offset: number): string {
    const { line, col } = this.#lineCounter.linePos(offset);
    return `${this.label}:${line}:${col}`;
  }

  #lineAt(node: unknown): number | null {
    if (typeof node !== 'object' || node === null || !('range' in node)) return null;
    const range: unknown = node.range;
    if (!Array.isArray(range) || typeof range[0] !== 'number') return null;
    return this.#lineCounter.linePos(range[0]).line;
  }
}
