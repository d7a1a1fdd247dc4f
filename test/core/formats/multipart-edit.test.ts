// Editing a multipart form's text fields in place: the edited form reads as intended, and every byte outside the
// edited part (file parts above all) is the client's.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BodyBytes } from '../../../core/formats/body-bytes.js';
import { removeFormFields, setFormField } from '../../../core/formats/multipart-edit.js';
import { readMultipartForm } from '../../../core/formats/multipart-form.js';

const TYPE = 'multipart/form-data; boundary="----b0undary"';
const FILE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x2d, 0x2d, 0x00, 0xff]);

function form(): Buffer {
  return Buffer.concat([
    Buffer.from('------b0undary\r\nContent-Disposition: form-data; name="model"\r\n\r\nhouse-image\r\n'),
    Buffer.from('------b0undary\r\nContent-Disposition: form-data; name="image[]"; filename="model.png"\r\nContent-Type: image/png\r\n\r\n'),
    FILE,
    Buffer.from('\r\n------b0undary\r\nContent-Disposition: form-data; name="user"\r\n\r\nalice\r\n'),
    Buffer.from('------b0undary\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nmulti\r\nline\r\n'),
    Buffer.from('------b0undary--\r\n'),
  ]);
}

describe('setFormField', () => {
  it('replaces the value of an existing field and nothing else', () => {
    const edited = setFormField(BodyBytes.of(form()), TYPE, 'model', 'gpt-image-1').joined();
    assert.equal(edited.toString('latin1'), form().toString('latin1').replace('house-image', 'gpt-image-1'));
    const read = readMultipartForm(edited, TYPE);
    assert.equal(read.fields.get('model'), 'gpt-image-1');
    assert.equal(read.fields.get('prompt'), 'multi\r\nline');
    assert.deepEqual(read.files.map((f) => [f.name, f.filename]), [['image[]', 'model.png']]);
  });

  it('adds a field the form does not have, before its first part', () => {
    const edited = setFormField(BodyBytes.of(form()), TYPE, 'quality', 'low').joined();
    assert.ok(edited.subarray(edited.length - form().length).equals(form()));
    assert.equal(readMultipartForm(edited, TYPE).fields.get('quality'), 'low');
  });
});

describe('removeFormFields', () => {
  it('drops the named text fields, never a file part of that name', () => {
    const edited = removeFormFields(BodyBytes.of(form()), TYPE, new Set(['user', 'image[]'])).joined();
    const read = readMultipartForm(edited, TYPE);
    assert.deepEqual([...read.fields.keys()], ['model', 'prompt']);
    assert.equal(read.files.length, 1);
    assert.ok(edited.includes(FILE));
    assert.equal(edited.toString('latin1'), form().toString('latin1').replace('------b0undary\r\nContent-Disposition: form-data; name="user"\r\n\r\nalice\r\n', ''));
  });

  it('returns the body itself when none of the names is there', () => {
    const body = BodyBytes.of(form());
    assert.equal(removeFormFields(body, TYPE, new Set(['nope'])), body);
  });
});
