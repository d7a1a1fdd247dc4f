// `gateway assets groups|rebind`: the operator's view of the asset groups made through the gateway, and binding one
// to another live key of its account (after a key rotation: revoking a key unbinds its groups).

import type { FeatureCommand } from '../../core/feature/command.js';
import { describeGroup, rebindGroup } from './rebind.js';
import { ASSET_STORE } from './store-part.js';

const PAGE = 500;

export const assetsCommand: FeatureCommand = {
  name: 'assets',
  usage: `  gateway assets groups [--account ACCOUNT] [--key KEY_ID] [--config FILE]   asset groups made through the gateway
  gateway assets rebind GROUP_ID KEY [--config FILE]   bind a group to another live key of its account (after a
                                                key rotation: revoking a key unbinds its groups)`,
  run: async ([sub, group, key], flags, { config, store }) => {
    if (sub === 'rebind' && group !== undefined && key !== undefined) {
      console.log(JSON.stringify(describeGroup(await rebindGroup(store, config, group, key))));
      return 0;
    }
    if (sub !== 'groups') return 2;
    const account = typeof flags['account'] === 'string' ? flags['account'] : null;
    const keyId = typeof flags['key'] === 'string' ? flags['key'] : undefined;
    for (let offset = 0; ; offset += PAGE) {
      const page = { offset, limit: PAGE };
      const found = await store.part(ASSET_STORE).accountGroups(account, keyId === undefined ? page : Object.assign(page, { keyId }));
      for (const row of found.rows) console.log(JSON.stringify(describeGroup(row)));
      if (found.rows.length < PAGE) return 0;
    }
  },
};
