// The media budget of a request's content: an image or a file counted by its part's type, wherever the chat APIs
// nest it (a tool result's blocks, a Responses function_call_output), once each; text documents and tools are not.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FILE_INPUT_TOKENS, IMAGE_INPUT_TOKENS, mediaInputTokens } from '../../../core/money/media-estimate.js';

describe('mediaInputTokens', () => {
  it('counts each image and file of Chat, Messages and Responses content', () => {
    const chat = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }, { type: 'file', file: { file_id: 'f1' } }, { type: 'text', text: 'hi' }] }] };
    assert.equal(mediaInputTokens(chat), IMAGE_INPUT_TOKENS + FILE_INPUT_TOKENS);
    const messages = {
      messages: [
        { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x/a.png' } }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } }] }] },
      ],
    };
    assert.equal(mediaInputTokens(messages), 2 * IMAGE_INPUT_TOKENS + FILE_INPUT_TOKENS);
    const responses = { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/a.png' }, { type: 'input_file', file_url: 'https://x/r.pdf' }] }, { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', file_id: 'f2' }] }] };
    assert.equal(mediaInputTokens(responses), 2 * IMAGE_INPUT_TOKENS + FILE_INPUT_TOKENS);
  });

  it('counts Gemini\'s media by field, in a list of contents or in one content object, and in systemInstruction', () => {
    const file = { fileData: { mimeType: 'video/mp4', fileUri: 'https://www.youtube.com/watch?v=x' } };
    const image = { inline_data: { mime_type: 'image/png', data: 'iVBOR' } };
    const pdf = { inlineData: { mimeType: 'application/pdf', data: 'JVBER' } };
    assert.equal(mediaInputTokens({ contents: [{ role: 'user', parts: [file, image, { text: 'hi' }] }] }), FILE_INPUT_TOKENS + IMAGE_INPUT_TOKENS);
    assert.equal(mediaInputTokens({ contents: { parts: [file] } }), FILE_INPUT_TOKENS, 'one content, unlisted, as Google takes it');
    assert.equal(mediaInputTokens({ contents: { parts: file } }), FILE_INPUT_TOKENS, 'one part, unlisted');
    assert.equal(mediaInputTokens({ systemInstruction: { parts: [pdf] }, contents: [] }), FILE_INPUT_TOKENS);
  });

  it('leaves text documents, tools and text-only content at 0 (their bytes are the estimate)', () => {
    const body = {
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' } }, { type: 'text', text: 'image' }] }],
      tools: [{ name: 'f', input_schema: { type: 'object', properties: { a: { type: 'image' } } } }],
      input: 'a string input',
    };
    assert.equal(mediaInputTokens(body), 0);
  });

  it('walks a document whose source is blocks for the images among them', () => {
    const body = { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: [{ type: 'image', source: { type: 'url', url: 'https://x/p.png' } }] } }] }] };
    assert.equal(mediaInputTokens(body), IMAGE_INPUT_TOKENS);
  });
});
