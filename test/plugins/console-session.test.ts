// console-session: every route but the pages gets the session check before its body, whether or not it names a
// request schema (a route declared by hand without one must not be left open).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConsoleSignIn } from '../../core/console/sign-in.js';
import { consoleSessionPlugin } from '../../plugins/console-session/index.js';

const services = { consoleSignIn: {} as ConsoleSignIn };

describe('console-session', () => {
  it('checks the session in the head phase for open, user and operator routes, with a schema or without', () => {
    for (const access of ['open', 'user', 'operator'] as const) {
      for (const schema of [undefined, 'get-accounts']) {
        const plugin = consoleSessionPlugin.create(schema === undefined ? { access } : { access, schema }, services);
        assert.equal(typeof plugin.head, 'function', `${access} ${schema ?? 'without a schema'}`);
        assert.equal(typeof plugin.request, schema === undefined ? 'undefined' : 'function');
      }
    }
  });

  it('leaves the pages to anyone', () => {
    const plugin = consoleSessionPlugin.create({ access: 'page' }, services);
    assert.equal(plugin.head, undefined);
    assert.equal(plugin.request, undefined);
  });
});
