// FieldReader: typed reads of a client's body that refuse a value of another type with the format's 400 naming it,
// and `shown`, which puts any client value in a message without throwing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../core/errors.js';
import { FieldReader, jsonTypeOf, shown, type JsonType } from '../../../core/formats/field-reader.js';
import { anthropicFields } from '../../../core/formats/anthropic-messages/fields.js';
import { openaiFields } from '../../../core/formats/openai-chat/fields.js';

/** A wording that says which refusal it made, to test the reader apart from any API's words. */
const plain = new FieldReader({
  missing: (param) => new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', `missing ${param}`, { param }),
  wrongType: (param, expected: readonly JsonType[], got) =>
    new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `type ${param} ${expected.join('|')} ${got}`, { param }),
  invalid: (param, detail) => new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `invalid ${param} ${detail}`, { param }),
});

function refusal(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof GatewayError, `not a GatewayError: ${String(err)}`);
    return err;
  }
  assert.fail('no refusal');
}

describe('FieldReader', () => {
  it('returns values of the expected type as they are', () => {
    const obj = { a: 1 };
    assert.equal(plain.object(obj, 'p'), obj);
    const list = [1];
    assert.equal(plain.array(list, 'p'), list);
    assert.equal(plain.string('', 'p'), '');
    assert.equal(plain.number(-1.5, 'p'), -1.5);
    assert.equal(plain.optionalBoolean(false, 'p'), false);
  });

  it('refuses an absent required value as missing, any other as of the wrong type, naming the field', () => {
    assert.equal(refusal(() => plain.object(undefined, 'input[0]')).message, 'missing input[0]');
    assert.equal(refusal(() => plain.object(null, 'input[0]')).message, 'type input[0] object null');
    assert.equal(refusal(() => plain.object([], 'x')).message, 'type x object array');
    assert.equal(refusal(() => plain.array({}, 'x')).message, 'type x array object');
    assert.equal(refusal(() => plain.string(5, 'x')).message, 'type x string number');
    assert.equal(refusal(() => plain.number('5', 'x')).message, 'type x number string');
    assert.equal(refusal(() => plain.number(Infinity, 'x')).message, 'type x number number', 'JSON.parse makes 1e999 Infinity');
    assert.equal(plain.refuse(true, 'x', ['string', 'array']).message, 'type x string|array boolean');
    assert.equal(refusal(() => plain.object(null, 'x')).param, 'x');
  });

  it('takes null as absent in optional reads, and refuses another type', () => {
    for (const absent of [undefined, null]) {
      assert.equal(plain.optionalObject(absent, 'x'), null);
      assert.equal(plain.optionalArray(absent, 'x'), null);
      assert.equal(plain.optionalString(absent, 'x'), null);
      assert.equal(plain.optionalNumber(absent, 'x'), null);
      assert.equal(plain.optionalBoolean(absent, 'x'), null);
    }
    assert.equal(refusal(() => plain.optionalString({ toString: 1 }, 'x')).message, 'type x string object');
    assert.equal(refusal(() => plain.optionalBoolean('true', 'x')).message, 'type x boolean string');
  });
});

describe('jsonTypeOf and shown', () => {
  it('name the type of any parsed JSON value', () => {
    assert.deepEqual(
      [{}, [], '', 0, true, null].map(jsonTypeOf),
      ['object', 'array', 'string', 'number', 'boolean', 'null'],
    );
  });

  it('show any client value without throwing, cut when long', () => {
    // String() of these throws: their toString is not a function.
    assert.equal(shown({ toString: 1 }), '{"toString":1}');
    assert.equal(shown(JSON.parse('{"valueOf":"x","toString":[]}')), '{"valueOf":"x","toString":[]}');
    assert.equal(shown('image_url'), 'image_url');
    assert.equal(shown(undefined), 'undefined');
    assert.equal(shown('x'.repeat(1000)), `${'x'.repeat(64)}...`);
  });
});

describe('the formats\' words', () => {
  it('OpenAI: invalid type, missing parameter, in its notation', () => {
    const type = refusal(() => openaiFields.object(null, 'input[0]'));
    assert.equal(type.message, "Invalid type for 'input[0]': expected an object, but got null instead.");
    assert.equal(type.code, 'GW_ERR_REQUEST_INVALID_FIELD');
    assert.equal(type.param, 'input[0]');
    const either = openaiFields.refuse(5, 'messages[0].content', ['string', 'array']);
    assert.equal(either.message, "Invalid type for 'messages[0].content': expected a string or an array, but got a number instead.");
    const missing = refusal(() => openaiFields.string(undefined, 'tools[0].function.name'));
    assert.equal(missing.message, "Missing required parameter: 'tools[0].function.name'.");
    assert.equal(missing.code, 'GW_ERR_REQUEST_MISSING_FIELD');
  });

  it('Anthropic: "Input should be a valid ...", "Field required"', () => {
    const type = refusal(() => anthropicFields.object(null, 'messages.0.content.0'));
    assert.equal(type.message, 'messages.0.content.0: Input should be a valid dictionary');
    assert.equal(type.param, 'messages.0.content.0');
    assert.equal(anthropicFields.refuse(5, 'system', ['string', 'array']).message, 'system: Input should be a valid string or list');
    assert.equal(refusal(() => anthropicFields.string(undefined, 'tools.0.name')).message, 'tools.0.name: Field required');
  });
});
