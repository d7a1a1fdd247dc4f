// Carries a reasoning proof through a client of another dialect: the proof is wrapped into the one opaque
// field that client echoes back (an Anthropic `signature`, a Responses `encrypted_content`), and unwrapped
// when it returns, so a conversation keeps valid reasoning across a translation in both directions.

import type { WireFormat } from '../config/resolved.js';
import type { ReasoningProof } from './message.js';

const PREFIX = 'gwrp1.';
/** A chat API's name (a wire's): the dialects are the registry's, so any such name is taken as one. */
const DIALECT = /^[a-z][a-z0-9-]{0,39}$/;

interface Wrapped {
  readonly d: WireFormat;
  readonly v: string;
  readonly i?: string;
  readonly r?: true;
  /** The reasoning text, for dialects that need it back verbatim with the proof (Anthropic thinking). */
  readonly t?: string;
}

export function wrapProof(proof: ReasoningProof, text: string | null): string {
  const wrapped: Wrapped = {
    d: proof.dialect,
    v: proof.value,
    ...(proof.id === undefined ? {} : { i: proof.id }),
    ...(proof.redacted === true ? { r: true as const } : {}),
    ...(text === null ? {} : { t: text }),
  };
  return PREFIX + Buffer.from(JSON.stringify(wrapped), 'utf8').toString('base64url');
}

/** The proof and text inside a wrapped value, or null when `value` is not one (a native signature). */
export function unwrapProof(value: string): { readonly proof: ReasoningProof; readonly text: string | null } | null {
  if (!value.startsWith(PREFIX)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const w = parsed as Record<string, unknown>;
  if (typeof w['d'] !== 'string' || !DIALECT.test(w['d']) || typeof w['v'] !== 'string') return null;
  const proof: ReasoningProof = {
    dialect: w['d'],
    value: w['v'],
    ...(typeof w['i'] === 'string' ? { id: w['i'] } : {}),
    ...(w['r'] === true ? { redacted: true } : {}),
  };
  return { proof, text: typeof w['t'] === 'string' ? w['t'] : null };
}
