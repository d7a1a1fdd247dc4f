// Rules the schema cannot express: unique names, keys and routes; keys naming declared groups; channel formats;
// the body cap against the body limit.

import { formatPath } from './config-path.js';
import { SERVER_DEFAULTS } from './defaults.js';
import type { ValidDocument } from './section.js';
import type { EndpointRegistry } from '../endpoints/registry.js';
import { parseMoney } from '../money/decimal.js';
import { knownTimezone } from '../money/spend-period.js';
import { parseCidr } from '../keys/address-list.js';
import type { Amount, GatewayConfig, GroupLimits, Limits, PeriodicSpend } from './gateway.gen.js';
import type { ConfigIssue } from './issues.js';
import type { ConfigPath } from './resolved.js';

/** Cross-field checks on schema-valid data. Never puts a key value in a message. */
export function checkSemantics(config: GatewayConfig, endpoints: EndpointRegistry): ConfigIssue[] {
  const keys = config.keys ?? [];
  const routes = config.routes ?? [];
  return [
    ...findDuplicates(
      config.channels.map((c) => c.name),
      (i) => ['channels', i, 'name'],
      (name, first) => `duplicate channel name "${name}"; first defined at ${formatPath(['channels', first])}`,
    ),
    ...findDuplicates(
      keys.map((k) => k.name),
      (i) => ['keys', i, 'name'],
      (name, first) => `duplicate key name "${name}"; first defined at ${formatPath(['keys', first])}`,
    ),
    ...findDuplicates(
      keys.map((k) => k.key),
      (i) => ['keys', i, 'key'],
      (_secret, first) => `same key as ${formatPath(['keys', first, 'key'])}; every gateway key must be unique`,
    ),
    ...checkGroups(config),
    ...findDuplicates(
      (config.accounts ?? []).map((a) => a.name),
      (i) => ['accounts', i, 'name'],
      (name, first) => `duplicate account name "${name}"; first defined at ${formatPath(['accounts', first])}`,
    ),
    ...checkAccounts(config),
    ...checkAmounts(config),
    ...checkSpendZones(config),
    ...checkFormats(config, endpoints),
    ...checkDailyZones(config),
    // The features' own checks of their keys.
    ...endpoints.sections.flatMap((section) => section.check?.(config as unknown as ValidDocument) ?? []),
    ...checkBodyCap(config),
    ...(config.server?.trusted_proxies ?? []).flatMap((text, i): ConfigIssue[] =>
      parseCidr(text) === null ? [{ path: ['server', 'trusted_proxies', i], message: `"${text}" is not an address or a CIDR (such as 10.0.0.0/8 or 2001:db8::/32)` }] : [],
    ),
    ...findDuplicates(
      routes.map((r) => r.path),
      (i) => ['routes', i, 'path'],
      (path, first) => `duplicate route "${path}"; first defined at ${formatPath(['routes', first])}`,
    ),
  ];
}

/** A channel can only speak formats its type's provider sends natively (translation is another matter). */
function checkFormats(config: GatewayConfig, endpoints: EndpointRegistry): ConfigIssue[] {
  return config.channels.flatMap((channel, i): ConfigIssue[] => {
    const native = endpoints.nativeFormats(channel.type);
    return (channel.formats ?? []).flatMap((format, j): ConfigIssue[] =>
      native.includes(format)
        ? []
        : [{ path: ['channels', i, 'formats', j], message: `type ${channel.type} cannot speak ${format}; it speaks ${native.join(', ')}` }],
    );
  });
}

/** A cap on the bytes of bodies read at once below the largest body would refuse that body forever (503, not 413). */
function checkBodyCap(config: GatewayConfig): ConfigIssue[] {
  const limit = config.server?.body_limit ?? SERVER_DEFAULTS.bodyLimit;
  const cap = config.server?.max_inflight_body_bytes ?? SERVER_DEFAULTS.maxInflightBodyBytes;
  return cap >= limit
    ? []
    : [{ path: ['server', 'max_inflight_body_bytes'], message: `must be at least server.body_limit (${limit}), or a body that size could never be read` }];
}

function checkGroups(config: GatewayConfig): ConfigIssue[] {
  const declared = Object.keys(config.groups ?? {});
  const known = declared.length === 0 ? 'no groups are declared' : `declared groups: ${declared.join(', ')}`;
  return (config.keys ?? []).flatMap((key, i): ConfigIssue[] =>
    declared.includes(key.group)
      ? []
      : [{ path: ['keys', i, 'group'], message: `unknown group "${key.group}"; ${known}` }],
  );
}

/** A key's account must be one the file declares (a run-time account is for run-time keys). */
function checkAccounts(config: GatewayConfig): ConfigIssue[] {
  const declared = [...new Set((config.accounts ?? []).map((a) => a.name))];
  const known = declared.length === 0 ? 'no accounts are declared' : `declared accounts: ${declared.join(', ')}`;
  const groups = Object.keys(config.groups ?? {});
  return [
    ...(config.keys ?? []).flatMap((key, i): ConfigIssue[] =>
      key.account === undefined || declared.includes(key.account)
        ? []
        : [{ path: ['keys', i, 'account'], message: `unknown account "${key.account}"; ${known}` }],
    ),
    ...(config.accounts ?? []).flatMap((account, i) =>
      (account.groups ?? []).flatMap((group, j): ConfigIssue[] =>
        groups.includes(group) ? [] : [{ path: ['accounts', i, 'groups', j], message: `unknown group "${group}"; declared groups: ${groups.join(', ') || '(none)'}` }],
      ),
    ),
  ];
}

/** A periodic max_spend's timezone must be one this runtime knows (a typo would otherwise fail every request). */
function checkSpendZones(config: GatewayConfig): ConfigIssue[] {
  const capped = (section: 'keys' | 'accounts', list: readonly { readonly max_spend?: Amount | PeriodicSpend | undefined }[]): ConfigIssue[] =>
    list.flatMap((k, i): ConfigIssue[] => {
      const zone = typeof k.max_spend === 'object' ? k.max_spend.timezone : undefined;
      return zone === undefined || knownTimezone(zone) ? [] : [{ path: [section, i, 'max_spend', 'timezone'], message: `unknown timezone "${zone}"; use an IANA name such as Europe/Berlin` }];
    });
  return [...capped('keys', config.keys ?? []), ...capped('accounts', config.accounts ?? [])];
}

/** Every amount must fit a nano-unit (the schema checks a string's form, not a number's decimals). */
function checkAmounts(config: GatewayConfig): ConfigIssue[] {
  const amounts: [ConfigPath, Amount | undefined][] = [
    ...Object.entries(config.groups ?? {}).map(([name, g]): [ConfigPath, Amount | undefined] => [['groups', name, 'price_multiplier'], g?.price_multiplier]),
    ...(config.keys ?? []).map((k, i): [ConfigPath, Amount | undefined] =>
      typeof k.max_spend === 'object' ? [['keys', i, 'max_spend', 'amount'], k.max_spend.amount] : [['keys', i, 'max_spend'], k.max_spend],
    ),
    ...(config.accounts ?? []).map((a, i): [ConfigPath, Amount | undefined] =>
      typeof a.max_spend === 'object' ? [['accounts', i, 'max_spend', 'amount'], a.max_spend.amount] : [['accounts', i, 'max_spend'], a.max_spend],
    ),
    ...Object.entries(config.pricing?.models ?? {}).flatMap(([pattern, price]) =>
      Object.entries(price ?? {}).map(([kind, amount]): [ConfigPath, Amount | undefined] => [['pricing', 'models', pattern, kind], amount]),
    ),
    ...Object.entries(config.pricing?.calls ?? {}).map(([op, amount]): [ConfigPath, Amount | undefined] => [['pricing', 'calls', op], amount]),
  ];
  return amounts.flatMap(([path, amount]): ConfigIssue[] => {
    if (amount === undefined) return [];
    try {
      parseMoney(amount);
      return [];
    } catch (err) {
      return [{ path, message: (err as Error).message }];
    }
  });
}

function findDuplicates(
  values: readonly string[],
  pathOf: (index: number) => ConfigPath,
  describe: (value: string, firstIndex: number) => string,
): ConfigIssue[] {
  const firstSeen = new Map<string, number>();
  const issues: ConfigIssue[] = [];
  values.forEach((value, index) => {
    const first = firstSeen.get(value);
    if (first === undefined) firstSeen.set(value, index);
    else issues.push({ path: pathOf(index), message: describe(value, first) });
  });
  return issues;
}

/** A tokens_per_day's timezone, wherever limits are written (keys, accounts, groups and their models). */
function checkDailyZones(config: GatewayConfig): ConfigIssue[] {
  const places: [ConfigPath, Limits | GroupLimits | undefined][] = [
    ...(config.keys ?? []).map((k, i): [ConfigPath, Limits | undefined] => [['keys', i, 'limits'], k.limits]),
    ...(config.accounts ?? []).map((a, i): [ConfigPath, Limits | undefined] => [['accounts', i, 'limits'], a.limits]),
    ...Object.entries(config.groups ?? {}).flatMap(([name, g]): [ConfigPath, Limits | GroupLimits | undefined][] => [
      [['groups', name, 'limits'], g?.limits],
      ...Object.entries(g?.limits?.models ?? {}).map(([pattern, l]): [ConfigPath, Limits | undefined] => [['groups', name, 'limits', 'models', pattern], l]),
    ]),
  ];
  return places.flatMap(([path, limits]): ConfigIssue[] => {
    const daily = limits?.tokens_per_day;
    const zone = typeof daily === 'object' ? daily.timezone : undefined;
    return zone === undefined || knownTimezone(zone) ? [] : [{ path: [...path, 'tokens_per_day', 'timezone'], message: `unknown timezone "${zone}"; use an IANA name such as Europe/Berlin` }];
  });
}
