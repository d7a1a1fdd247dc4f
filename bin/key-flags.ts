// The `keys create` and `keys update` flags as the admin API's fields (core/keys/key-admin.ts checks them alike).

/** The flags parseArgs reads for keys. */
export interface KeyFlags {
  readonly name?: string | undefined;
  readonly 'max-spend'?: string | undefined;
  readonly rpm?: string | undefined;
  readonly tpm?: string | undefined;
  readonly concurrency?: string | undefined;
  readonly 'clear-limits'?: boolean | undefined;
  readonly expires?: string | undefined;
  readonly models?: string | undefined;
  readonly ips?: string | undefined;
  readonly enable?: boolean | undefined;
  readonly disable?: boolean | undefined;
}

export const KEY_FLAG_OPTIONS = {
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  concurrency: { type: 'string' },
  'clear-limits': { type: 'boolean' },
  expires: { type: 'string' },
  models: { type: 'string' },
  ips: { type: 'string' },
  enable: { type: 'boolean' },
  disable: { type: 'boolean' },
} as const;

/**
 * The fields the flags set: only those given (`none`, `never`, `group`, `any` and --clear-limits clear one; a limit
 * given replaces that limit only). Contradicting flags are refused.
 */
export function keyFields(flags: KeyFlags): Record<string, unknown> {
  if (flags.enable === true && flags.disable === true) throw new Error('--enable and --disable contradict each other');
  if (flags['clear-limits'] === true && (['rpm', 'tpm', 'concurrency'] as const).some((n) => flags[n] !== undefined)) {
    throw new Error('--clear-limits and --rpm/--tpm/--concurrency contradict each other');
  }
  const fields: Record<string, unknown> = {};
  if (flags.name !== undefined) fields['name'] = flags.name;
  if (flags['max-spend'] !== undefined) fields['max_spend'] = flags['max-spend'] === 'none' ? null : flags['max-spend'];
  const limits = (['rpm', 'tpm', 'concurrency'] as const).filter((n) => flags[n] !== undefined);
  // Digits only become numbers (`1e3`, `0x10` or ` 7 ` stay text, which the check refuses as not a whole number).
  if (limits.length > 0) fields['limits'] = Object.fromEntries(limits.map((n) => [n, /^[0-9]+$/.test(flags[n] ?? '') ? Number(flags[n]) : flags[n]]));
  if (flags['clear-limits'] === true) fields['limits'] = null;
  if (flags.expires !== undefined) fields['expires_at'] = flags.expires === 'never' ? null : flags.expires;
  if (flags.models !== undefined) fields['models'] = flags.models === 'group' ? null : list(flags.models);
  if (flags.ips !== undefined) fields['ips'] = flags.ips === 'any' ? null : list(flags.ips);
  if (flags.enable === true) fields['enabled'] = true;
  if (flags.disable === true) fields['enabled'] = false;
  return fields;
}

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
