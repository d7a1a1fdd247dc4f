// The groups an account's users may make keys in: gateway.yaml's `accounts[].groups` and those the operator gave the
// account in the console, of the groups the running config has.

import { GatewayError } from '../../core/errors.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';

const MAX_GROUPS = 100;

export async function keyGroupsOf(services: GatewayServices, account: string): Promise<string[]> {
  return groupsOf(services, account, (await services.store.ledger.getAccount(account))?.keyGroups ?? []).groups;
}

/**
 * An account's groups by where they come from: gateway.yaml's (fixed here), the console's, and both together (what
 * its users may use), each of the running config's groups.
 */
export function groupsOf(
  services: GatewayServices,
  account: string,
  fromConsole: readonly string[],
): { groups: string[]; file_groups: string[]; console_groups: string[] } {
  const { config } = services;
  const known = (names: readonly string[]): string[] => names.filter((g) => config.groups.has(g));
  const file = known(config.accounts.find((a) => a.name === account)?.groups ?? []);
  const console = known(fromConsole);
  return { groups: [...new Set([...file, ...console])], file_groups: file, console_groups: console };
}

/** A `groups` field as the operator sends it: a list of the config's group names. */
export function readGroups(services: GatewayServices, value: unknown): string[] {
  if (!Array.isArray(value) || value.length > MAX_GROUPS || !value.every((g): g is string => typeof g === 'string')) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `groups must be a list of at most ${MAX_GROUPS} group names.`, { param: 'groups' });
  }
  const unknown = value.find((g) => !services.config.groups.has(g));
  if (unknown !== undefined) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `No group named "${unknown}"; the groups are ${[...services.config.groups.keys()].join(', ')}.`, {
      param: 'groups',
    });
  }
  return [...new Set(value)];
}
