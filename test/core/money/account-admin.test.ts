// Creating an account through the admin API or the CLI: a name taken, whether before the request or by another
// request (or instance) racing it between the check and the insert, is the same 400 naming `name`, never a 500.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAccount } from '../../../core/money/account-admin.js';
import { GatewayError } from '../../../core/errors.js';
import type { LedgerStore } from '../../../core/store/ledger-store.js';
import { useTempStore } from '../store/store-fixtures.js';

describe('createAccount', () => {
  const temp = useTempStore('accounts.db');

  const takenName = (err: unknown): boolean => err instanceof GatewayError && err.code === 'GW_ERR_REQUEST_INVALID_FIELD' && err.param === 'name' && /already exists/.test(err.message);

  it('refuses a name taken before with a 400 naming it', async () => {
    await createAccount(temp.get().ledger, { name: 'acme' });
    await assert.rejects(createAccount(temp.get().ledger, { name: 'acme' }), takenName);
  });

  it('refuses a name another request took after the check, as the same 400', async () => {
    const ledger = temp.get().ledger;
    await createAccount(ledger, { name: 'acme' });
    // The race: the check saw no account, the insert then finds one.
    const raced = Object.create(ledger) as LedgerStore;
    raced.getAccount = () => Promise.resolve(undefined);
    await assert.rejects(createAccount(raced, { name: 'acme' }), takenName);
  });
});
