// Which 503s of the fault profiles rotation explains (chaos/rotation-invariants.ts, explainsOutOfRotation): the
// out-of-rotation refusal of a request whose upstreams the fleet took out in a fault window on them, up to the
// window's end, its slack, the longest back-off and a second; and the row of the fleet's changes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROTATION } from '../../chaos/config.js';
import type { FaultWindow } from '../../chaos/faults.js';
import type { Answer } from '../../chaos/load.js';
import { changesRow, explainsOutOfRotation, type LoggedChange } from '../../chaos/rotation-invariants.js';

const SLACK = 3000;
const WINDOW: FaultWindow = { kind: 'upstream 5xx storm', start: 10_000, end: 13_000, upstreams: ['chat-a', 'responses', 'images'] };
const OUT: LoggedChange = { time: 11_000, channel: 'responses', reason: 'errors' };

function refusal(sentAt: number, over: Partial<Answer> = {}): Answer {
  return Object.assign(
    { tag: '1', kind: 'responses whole native', key: 'free', reader: 'whole', upstreams: [['responses']], metered: true, instance: 0, generation: 1, sentAt, endedAt: sentAt + 1, status: 503, id: null, code: 'upstream_overloaded', complete: true, failure: null, broken: false },
    over,
  ) as Answer;
}

const explained = (answer: Answer, changes: readonly LoggedChange[] = [OUT]): boolean => explainsOutOfRotation(answer, [WINDOW], changes, ROTATION, SLACK);

test('a refusal after its channel was taken out in the window, up to the window, slack, longest back-off and 1 s after', () => {
  assert.equal(explained(refusal(11_500)), true);
  assert.equal(explained(refusal(13_000 + SLACK + ROTATION.probeMaxMs + 1000)), true);
  assert.equal(explained(refusal(13_000 + SLACK + ROTATION.probeMaxMs + 1001)), false);
  // Anthropic's shape names it by its type.
  assert.equal(explained(refusal(11_500, { code: 'overloaded_error', upstreams: [['responses']] })), true);
});

test('not the refusal, before the channel was taken out, or taken out with no fault on it: unexplained', () => {
  assert.equal(explained(refusal(11_500, { code: 'server_error' })), false);
  assert.equal(explained(refusal(11_500, { status: 502 })), false);
  assert.equal(explained(refusal(10_500)), false);
  assert.equal(explained(refusal(11_500), []), false);
  // Taken out after the window and its slack: no fault explains it.
  assert.equal(explained(refusal(17_000), [{ time: 16_500, channel: 'responses', reason: 'errors' }]), false);
  // A failed probe keeps it out as well; a served one is no reason to be out.
  assert.equal(explained(refusal(12_500), [{ time: 12_000, channel: 'responses', reason: 'probe_failed' }]), true);
  assert.equal(explained(refusal(12_500), [{ time: 12_000, channel: 'responses', reason: 'probe_served' }]), false);
});

test('a group explains it only when every channel of it was taken out (the chat tier keeps its healthy one)', () => {
  const chat = refusal(11_500, { upstreams: [['chat-a', 'chat-b']] });
  assert.equal(explained(chat, [{ time: 11_000, channel: 'chat-a', reason: 'errors' }]), false);
  assert.equal(explained(chat, [{ time: 11_000, channel: 'chat-a', reason: 'errors' }, { time: 11_100, channel: 'chat-b', reason: 'errors' }]), false);
  assert.equal(explainsOutOfRotation(chat, [WINDOW, { ...WINDOW, upstreams: ['chat-b'] }], [{ time: 11_000, channel: 'chat-a', reason: 'errors' }, { time: 11_100, channel: 'chat-b', reason: 'errors' }], ROTATION, SLACK), true);
});

test('the changes row fails on a channel taken out with no fault on it', () => {
  assert.equal(changesRow([WINDOW], [OUT, { time: 12_000, channel: 'responses', reason: 'probe_served' }], SLACK).row.held, true);
  const found = changesRow([WINDOW], [OUT, { time: 30_000, channel: 'anthropic', reason: 'errors' }], SLACK);
  assert.equal(found.row.held, false);
  assert.equal(found.row.value, '2 / 0 / 0; 1');
  assert.deepEqual(found.details, ['channel anthropic errors at 30000 with no fault on it']);
});
