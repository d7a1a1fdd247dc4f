// What reading a large request body's skeleton (json-skeleton.ts) reuses from one body to the next: the
// WebAssembly scanner's memory and the cache of short texts. Both are per server, not per module, so two
// gateways in one process (tests, an embedding program) never share them; the runtime makes one and every
// Gateway it builds (one per reload) hands it to its formats.

import { AsciiTexts } from './ascii-text.js';
import { StringEndScanner } from './json-string-end.js';

export class ScanMemory {
  readonly texts = new AsciiTexts();
  readonly stringEnds = new StringEndScanner();
}
