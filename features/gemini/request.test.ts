// What the Gemini request reader refuses before routing, so that what is reserved is what Google serves: one object
// under both of its spellings, and a field of generationConfig the reservation reads given twice.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import { GatewayError } from '../../core/errors.js';
import { outputCapOf } from '../../core/formats/output-cap.js';
import { createGeminiFormat } from './format.js';
import { GEMINI_OUTPUT_CAPS } from './output-caps.js';
import { geminiCodec } from './codec.js';

const CONTENTS = '"contents":[{"role":"user","parts":[{"text":"hi"}]}]';

function decode(body: string): ReturnType<ReturnType<typeof createGeminiFormat>['decodeRequest']> {
  return createGeminiFormat('generateContent').decodeRequest(BodyBytes.of(Buffer.from(body)), 'application/json', { model: 'gemini-2.5-pro' }, '');
}

function refused(body: string, param: string): void {
  assert.throws(() => decode(body), (err: unknown) => err instanceof GatewayError && err.status === 400 && err.param === param, body);
}

describe('the Gemini request reader', () => {
  it('refuses generationConfig and generation_config together, and cachedContent in both spellings', () => {
    refused(`{${CONTENTS},"generationConfig":{"temperature":1},"generation_config":{"maxOutputTokens":16}}`, 'generationConfig');
    refused(`{${CONTENTS},"cachedContent":"cachedContents/a","cached_content":"cachedContents/b"}`, 'cachedContent');
  });

  it('refuses a cap or a candidate count given twice inside generationConfig', () => {
    refused(`{${CONTENTS},"generationConfig":{"maxOutputTokens":65536,"maxOutputTokens":1}}`, 'generationConfig.maxOutputTokens');
    refused(`{${CONTENTS},"generation_config":{"candidate_count":8,"candidate_count":1}}`, 'generation_config.candidate_count');
  });

  it('reads the largest cap of every spelling, the one the translation carries too', () => {
    const request = decode(`{${CONTENTS},"generationConfig":{"maxOutputTokens":16,"max_output_tokens":64}}`);
    assert.equal(outputCapOf(request.head, GEMINI_OUTPUT_CAPS), 64);
    assert.equal(geminiCodec.decodeRequest(request).maxTokens, 64, 'translated, the upstream is told the cap reserved');
  });
});
