// The groups an account's users may make keys in: gateway.yaml's `accounts[].groups` and those the operator gave the
// account in the console, of the groups the running config has.

import { GatewayError, type GatewayServices } from '../../core/index.js';

const MAX_GROUPS = 100;

export async function keyGroupsOf(services: GatewayServices, account: string): Promise<string[]> {
  const { config } = services;
  const fromFile = config.accounts.find((a) => a.name === account)?.groups ?? [];
  const fromConsole = (await services.store.ledger.getAccount(account))?.keyGroups ?? [];
  return [...new Set([...fromFile, ...fromConsole])].filter((g) => config.groups.has(g));
}

/** A `groups` field as the operator sends it: a list of the config's group names. */
export function readGroups(services: GatewayServices, value: unknown): string[] {
  if (!Array.isArray(value) || value.length > MAX_GROUPS || !value.every((g): g is string => typeof g === 'string')) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `groups must be a list of at most ${MAX_GROUPS} group names.`, { param: 'groups' });
  }
  const unknown = value.find((g) => !services.config.groups.has(g));
  if (unknown !== undefined) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `No group named "${unknown}"; the groups are ${[...services.config.groups.keys()].join(', ')}.`, { param: 'groups' });
  }
  return [...new Set(value)];
}
