// The mock channel's pictures: real PNGs (pngjs), drawn deterministically from a prompt (a diagonal gradient
// between two colours the prompt's hash picks, with soft bands), or derived from an uploaded image for edits.

import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';

/** The mock draws at most this many pixels a side (a larger size is scaled down, its aspect ratio kept). */
const MOCK_MAX_SIDE = 1024;

export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

/** `1024x1536`, capped at MOCK_MAX_SIDE a side; `auto`, absent or unreadable sizes are 1024x1024. */
export function mockSizeOf(size: unknown): ImageSize {
  const found = typeof size === 'string' ? /^(\d{1,5})x(\d{1,5})$/.exec(size) : null;
  const width = Number(found?.[1] ?? MOCK_MAX_SIDE);
  const height = Number(found?.[2] ?? MOCK_MAX_SIDE);
  if (width < 1 || height < 1) return { width: MOCK_MAX_SIDE, height: MOCK_MAX_SIDE };
  const scale = Math.min(1, MOCK_MAX_SIDE / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function seedOf(text: string, index: number): Buffer {
  return createHash('sha256').update(`${index}:${text}`).digest();
}

/**
 * How the mock encodes: RGB, and one row filter (Sub) instead of pngjs's per-row choice, which cost ~60 ms a
 * megapixel (~25 ms now). A new object per call: pngjs fills its defaults into the one it is given.
 */
function encoding(): { filterType: number; colorType: 2; inputHasAlpha: true } {
  return { filterType: 1, colorType: 2, inputHasAlpha: true };
}

/** A decoded upload may be at most this many pixels: a small PNG can declare a huge size (a decompression bomb). */
const MAX_SOURCE_PIXELS = 4096 * 4096;

/** A picture of `prompt` (the `index`th of a request: each differs), as PNG bytes. */
export function drawImage(prompt: string, index: number, size: ImageSize): Buffer {
  const seed = seedOf(prompt, index);
  const { width, height } = size;
  const png = new PNG({ width, height });
  // The colour at (x, y) is from + (to - from) * (x / width + y / height) / 2, in soft bands along x + y.
  const band = new Float64Array(width + height);
  const period = 8 + (seed[6] as number) / 8;
  for (let i = 0; i < band.length; i++) band[i] = 0.85 + 0.15 * Math.sin(i / period);
  const data = png.data;
  for (let c = 0; c < 3; c++) {
    const from = seed[c] as number;
    const span = (seed[c + 3] as number) - from;
    for (let y = 0; y < height; y++) {
      const row = from + (span * y) / height / 2;
      const step = span / width / 2;
      let at = y * width * 4 + c;
      for (let x = 0; x < width; x++, at += 4) data[at] = (row + step * x) * (band[x + y] as number);
    }
  }
  for (let at = 3; at < data.length; at += 4) data[at] = 255;
  return PNG.sync.write(png, encoding());
}

/** The width and height a PNG declares (its IHDR chunk), or null when `bytes` does not start as a PNG. */
function declaredSize(bytes: Buffer): ImageSize | null {
  const signature = bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR';
  return signature ? { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) } : null;
}

/**
 * Reads an uploaded image for editing: a PNG of a sane size, decoded; null for anything else (JPEG, WebP, a
 * broken or oversized PNG), which the mock then draws from instead of decoding.
 */
export function readSource(bytes: Buffer): PNG | null {
  const size = declaredSize(bytes);
  if (size === null || size.width * size.height > MAX_SOURCE_PIXELS) return null;
  try {
    return PNG.sync.read(bytes);
  } catch {
    return null;
  }
}

/**
 * `source` (an uploaded image, read by readSource) edited for `prompt`: scaled to `size` and tinted with the
 * prompt's colour; an upload the mock could not read gives a picture drawn from its bytes and the prompt instead.
 */
export function editImage(source: PNG | Buffer, prompt: string, index: number, size: ImageSize): Buffer {
  if (Buffer.isBuffer(source)) return drawImage(`${createHash('sha256').update(source).digest('hex')}:${prompt}`, index, size);
  const tint = seedOf(prompt, index);
  const out = new PNG({ width: size.width, height: size.height });
  for (let y = 0; y < size.height; y++) {
    const sy = Math.min(source.height - 1, Math.floor((y * source.height) / size.height));
    for (let x = 0; x < size.width; x++) {
      const sx = Math.min(source.width - 1, Math.floor((x * source.width) / size.width));
      const from = (sy * source.width + sx) * 4;
      const at = (y * size.width + x) * 4;
      for (let c = 0; c < 3; c++) out.data[at + c] = ((source.data[from + c] as number) * 3 + (tint[c] as number)) / 4;
      out.data[at + 3] = 255;
    }
  }
  return PNG.sync.write(out, encoding());
}
