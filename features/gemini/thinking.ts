// Gemini's thinkingConfig and the IR's reasoning, both ways. Gemini 3 takes a level (MINIMAL..HIGH), earlier models a
// token budget (0 turns thinking off, -1 lets the model choose); level and budget are exclusive.

import type { JsonObject } from '../../core/formats/field-reader.js';
import type { Reasoning, ReasoningEffort } from '../../core/ir/request.js';
import { member } from './lenient-json.js';
import { geminiFields as read } from './request-fields.js';

type Json = Record<string, unknown>;

const LEVELS: Readonly<Record<string, ReasoningEffort>> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' };

/** A client's thinkingConfig; includeThoughts alone (thinking at the model's default) reads as a medium effort. */
export function decodeThinking(config: JsonObject | null, param: string): Reasoning | null {
  if (config === null) return null;
  const level = read.optionalString(member(config, 'thinkingLevel'), `${param}.thinkingLevel`);
  if (level !== null && level.toUpperCase() !== 'THINKING_LEVEL_UNSPECIFIED') {
    const effort = LEVELS[level.toUpperCase()];
    if (effort === undefined) throw read.invalid(`${param}.thinkingLevel`, `expected one of ${Object.keys(LEVELS).join(', ')}, but got "${level.slice(0, 40)}"`);
    return { effort, budgetTokens: null };
  }
  const budget = read.optionalNumber(member(config, 'thinkingBudget'), `${param}.thinkingBudget`);
  if (budget === 0) return { effort: 'none', budgetTokens: null };
  // -1: dynamic thinking, sized by the model: the IR's middle effort is the nearest word.
  if (budget !== null && budget < 0) return { effort: 'medium', budgetTokens: null };
  if (budget !== null) return { effort: null, budgetTokens: Math.floor(budget) };
  return read.optionalBoolean(member(config, 'includeThoughts'), `${param}.includeThoughts`) === true ? { effort: 'medium', budgetTokens: null } : null;
}

const UPPER: Readonly<Record<Exclude<ReasoningEffort, 'none'>, string>> = {
  minimal: 'MINIMAL',
  low: 'LOW',
  medium: 'MEDIUM',
  high: 'HIGH',
  // Gemini's highest level.
  xhigh: 'HIGH',
  max: 'HIGH',
};

/** Budgets for an effort when the request names no output cap (pitfall 8: a share of nothing is 0, which turns thinking off). */
const BUDGETS: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 24576, max: 32768 };
/** The share of the output cap an effort may think with (new-api's: high 80%, medium 50%, low 20%, minimal 5%). */
const SHARES: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = { minimal: 0.05, low: 0.2, medium: 0.5, high: 0.8, xhigh: 0.8, max: 0.8 };
/** Gemini 2.5 Pro's smallest budget (it cannot think less). */
const MIN_BUDGET = 128;

/** Gemini 3 and later take thinkingLevel; an unknown name gets a budget, which Gemini 3 still accepts. */
export function takesLevels(model: string): boolean {
  const m = /(?:^|\/)gemini-(\d+)/.exec(model);
  return m !== null && Number(m[1]) >= 3;
}

/** thinkingConfig for an upstream; includeThoughts whenever thinking is on, so the summaries come back. */
export function encodeThinking(reasoning: Reasoning | null, model: string, maxTokens: number | null): Json | null {
  if (reasoning === null) return null;
  if (reasoning.effort === 'none') return { thinkingBudget: 0 };
  if (reasoning.budgetTokens !== null) return { includeThoughts: true, thinkingBudget: reasoning.budgetTokens };
  if (reasoning.effort === null) return { includeThoughts: true };
  if (takesLevels(model)) return { includeThoughts: true, thinkingLevel: UPPER[reasoning.effort] };
  const budget = BUDGETS[reasoning.effort];
  const share = maxTokens === null ? budget : Math.floor(maxTokens * SHARES[reasoning.effort]);
  return { includeThoughts: true, thinkingBudget: Math.max(MIN_BUDGET, Math.min(budget, share)) };
}
