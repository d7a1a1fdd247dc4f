// Gemini's thoughtSignature and the IR's reasoning proofs. A Gemini signature is a proof of dialect `gemini`; a
// proof of another dialect (an Anthropic thinking signature, a Responses encrypted_content) reaches a Gemini client
// wrapped (core/ir/proof-tag.ts) in the one field Gemini CLI sends back verbatim, the thoughtSignature of a
// functionCall part, and is unwrapped when it returns.

import type { ReasoningPart, ReasoningProof } from '../../core/ir/message.js';
import { unwrapProof, wrapProof } from '../../core/ir/proof-tag.js';
import { GEMINI_API } from './api-name.js';

/**
 * The placeholder Gemini CLI puts on the first functionCall of a model turn that has no signature, so that Gemini 3
 * takes history another model wrote; the docs name a second one. Neither proves anything.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';
const PLACEHOLDERS: ReadonlySet<string> = new Set([SKIP_SIGNATURE, 'context_engineering_is_the_way_to_go']);

/**
 * Several proofs before one part share its one signature, joined by this: neither a wrapped proof (base64url after
 * a dotted prefix) nor Google's base64 signatures hold a comma.
 */
const SEPARATOR = ',';

/** A signature's proofs. `wrapped`: proofs of other dialects this gateway gave a Gemini client earlier. */
export interface SignatureProofs {
  readonly wrapped: boolean;
  readonly parts: readonly ReasoningPart[];
}

/** A signature an upstream sent: Gemini's own, unless it is a placeholder (then null). */
export function upstreamProof(value: unknown): ReasoningProof | null {
  if (typeof value !== 'string' || value === '' || PLACEHOLDERS.has(value)) return null;
  return { dialect: GEMINI_API, value };
}

/**
 * The proofs a client's signature carries, as reasoning parts (`text`: the thought text of the part it sat on, for
 * Gemini's own). Null for none or a placeholder.
 */
export function clientProofs(value: unknown, text: string): SignatureProofs | null {
  const own = upstreamProof(value);
  if (own === null) return null;
  const pieces = own.value.split(SEPARATOR).map(unwrapProof);
  if (pieces.some((piece) => piece === null)) return { wrapped: false, parts: [{ type: 'reasoning', text, proof: own }] };
  return {
    wrapped: true,
    parts: pieces.flatMap((piece): ReasoningPart[] => (piece === null ? [] : [{ type: 'reasoning', text: piece.text ?? '', proof: piece.proof }])),
  };
}

/** The signature a Gemini client gets for the reasoning before one part: Gemini's own as is, others wrapped with their text. */
export function clientSignature(reasoning: readonly Pick<ReasoningPart, 'text' | 'proof'>[]): string | null {
  const values = reasoning.flatMap((r) => (r.proof === null ? [] : [r.proof.dialect === GEMINI_API ? r.proof.value : wrapProof(r.proof, r.text)]));
  return values.length === 0 ? null : values.join(SEPARATOR);
}

/** The signature a Gemini upstream gets back for its own proofs before one part (others' cannot be replayed there). */
export function upstreamSignature(proofs: readonly ReasoningProof[]): string | null {
  const values = proofs.filter((p) => p.dialect === GEMINI_API).map((p) => p.value);
  return values.length === 0 ? null : values.join(SEPARATOR);
}
