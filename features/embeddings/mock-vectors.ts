// The mock channel's embeddings: deterministic unit vectors derived from the input's hash (the same input always
// gets the same vector, another input another), sent as OpenAI sends them: float32 values, as JSON numbers or as
// the base64 of their little-endian bytes.

import { createHash } from 'node:crypto';
import type { EmbeddingInput } from './input-items.js';

export type EncodingFormat = 'float' | 'base64';

/** What is hashed: a text and a token array of the same characters are different inputs. */
function seedOf(input: EmbeddingInput): string {
  return typeof input === 'string' ? `text:${input}` : `tokens:${input.join(',')}`;
}

/**
 * `input`'s vector of `dimensions` float32 values, of length 1. SHAKE256 gives as many bytes as asked, and fewer are
 * a prefix of more: a vector asked shorter (`dimensions`) is the longer one cut and scaled back to length 1, as
 * OpenAI shortens its text-embedding-3 vectors.
 */
export function mockEmbedding(input: EmbeddingInput, dimensions: number): Float32Array {
  const bytes = createHash('shake256', { outputLength: dimensions * 4 }).update(seedOf(input), 'utf8').digest();
  const values = new Float64Array(dimensions);
  let squares = 0;
  for (let i = 0; i < dimensions; i++) {
    const value = bytes.readUInt32LE(i * 4) / 2 ** 31 - 1;
    values[i] = value;
    squares += value * value;
  }
  // All zeros has no direction: never met in practice (every one of 4 x dimensions hash bytes would be 0x80 or so).
  const norm = Math.sqrt(squares) || 1;
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = (values[i] as number) / norm;
  return vector;
}

/** `vector` as the answer carries it: its float32 values as numbers, or base64 of their bytes, little-endian. */
export function encodeEmbedding(vector: Float32Array, format: EncodingFormat): number[] | string {
  if (format === 'float') return Array.from(vector);
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] as number, i * 4);
  return bytes.toString('base64');
}
