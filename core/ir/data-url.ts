// Images as URLs or inline base64: OpenAI carries inline images as data URLs, Anthropic as a source object.

import type { ImageSource } from './message.js';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export function imageFromUrl(url: string): ImageSource {
  const m = DATA_URL.exec(url);
  return m === null ? { kind: 'url', url } : { kind: 'base64', mediaType: m[1] as string, data: m[2] as string };
}

export function imageToUrl(source: ImageSource): string {
  return source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
}
