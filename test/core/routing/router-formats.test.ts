// Which channels a request is planned onto, by the API it speaks: a chat request onto every channel of its model
// that speaks some chat API (translation serves the others), a request of another API only onto channels that
// speak it; an image-only channel never gets a chat request, nor a chat-only channel an image request.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Router } from '../../../core/routing/router.js';
import { resolvedChannel } from './resolved-channel.js';

const router = new Router([
  resolvedChannel('images-only', { formats: ['openai-images'], priority: 3 }),
  resolvedChannel('chat', { formats: ['openai-chat'], priority: 2 }),
  resolvedChannel('claude', { formats: ['anthropic-messages'], priority: 1 }),
  resolvedChannel('both', { formats: ['openai-chat', 'openai-responses', 'openai-images'] }),
]);

const names = (format?: Parameters<Router['plan']>[1]): string[] => router.plan('gpt-image-1', format).map((a) => a.channel.name);

describe('Router.plan by format', () => {
  it('plans a chat request onto the channels that speak a chat API, whichever', () => {
    assert.deepEqual(names(), ['chat', 'claude', 'both']);
  });

  it('plans a request of one API onto the channels that speak it', () => {
    assert.deepEqual(names('openai-images'), ['images-only', 'both']);
    assert.deepEqual(names('anthropic-messages'), ['claude']);
  });

  it('lists every channel of the model with "any"', () => {
    assert.deepEqual(names('any'), ['images-only', 'chat', 'claude', 'both']);
  });
});
