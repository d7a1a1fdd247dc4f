#!/usr/bin/env node
// The command line: serve, config check, keys create|list|revoke, accounts create|list|show|credit|audit, and the
// features' own commands (core/feature/command.ts).

import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../core/config/load.js';
import { BUILTIN_ENDPOINTS, FEATURES, STORE_PARTS } from '../features/index.js';
import { ConfigError } from '../core/config/resolved.js';
import { createKey, describeKey, updateKey } from '../core/keys/key-admin.js';
import { KEY_FLAG_OPTIONS, keyFields } from './key-flags.js';
import { ConsoleSignIn } from '../core/console/sign-in.js';
import { createConsoleUser } from '../core/console/users.js';
import { MemoryLimiter } from '../core/limits/memory-limiter.js';
import { createAccount, creditAccount, describeAccount, describeEntry } from '../core/money/account-admin.js';
import { auditBooks } from '../core/money/audit.js';
import { formatMoney } from '../core/money/decimal.js';
import type { Store } from '../core/store/store.js';
import type { FeatureCommand } from '../core/feature/command.js';
import { createLogger } from '../core/logging/logger.js';
import { openStore } from '../core/store/open-store.js';
import { describeStoreUrl } from '../core/store/store-url.js';

const USAGE = `usage:
  gateway serve [--config FILE]                 run the gateway (PORT overrides server.port)
  gateway config check [--config FILE]          validate a config file and exit
  gateway keys create --name NAME --group GROUP [--account ACCOUNT] [--max-spend AMOUNT]
                      [--rpm N] [--tpm N] [--concurrency N]      limits: the key's own, over its group's
                      [--expires ISO-TIME] [--models A,B] [--ips CIDR,...] [--disable] [--config FILE]
  gateway keys update ID_OR_NAME [--name NEW] [--max-spend AMOUNT|none] [--rpm N] [--tpm N] [--concurrency N]
                      [--clear-limits] [--expires ISO-TIME|never] [--models A,B|group] [--ips CIDR,...|any]
                      [--enable|--disable] [--config FILE]       only what is given changes
  gateway keys list [--config FILE]
  gateway keys revoke ID_OR_NAME [--config FILE]
  gateway admin create-user NAME [--config FILE]   an operator of the console; prints a one-time link to set its password
  gateway accounts create NAME [--description TEXT] [--config FILE]
  gateway accounts list [--config FILE]
  gateway accounts show NAME [--config FILE]     balance and recent ledger
  gateway accounts credit NAME AMOUNT --idempotency-key KEY [--note TEXT] [--config FILE]
  gateway accounts audit [--config FILE]         every balance from its ledger, every charge from its usage
                                                record, every account below zero; exits 1 on any of them
${FEATURES.flatMap((feature) => feature.commands ?? []).map((command) => command.usage).join('\n')}
The config file is --config, else $GATEWAY_CONFIG, else ./gateway.yaml.`;

/** Core's own command words: a feature's command may not take one (it would never run). */
const CORE_COMMANDS: ReadonlySet<string> = new Set(['serve', 'config', 'keys', 'admin', 'accounts']);

const COMMANDS: ReadonlyMap<string, FeatureCommand> = commandsOf(FEATURES.flatMap((feature) => feature.commands ?? []));

function commandsOf(commands: readonly FeatureCommand[]): ReadonlyMap<string, FeatureCommand> {
  const byName = new Map<string, FeatureCommand>();
  for (const command of commands) {
    if (CORE_COMMANDS.has(command.name) || byName.has(command.name)) throw new Error(`a feature's command "${command.name}" is taken already`);
    byName.set(command.name, command);
  }
  return byName;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      name: { type: 'string' },
      group: { type: 'string' },
      account: { type: 'string' },
      'max-spend': { type: 'string' },
      ...KEY_FLAG_OPTIONS,
      description: { type: 'string' },
      note: { type: 'string' },
      'idempotency-key': { type: 'string' },
      key: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const configPath = resolve(values.config ?? process.env['GATEWAY_CONFIG'] ?? 'gateway.yaml');
  const [command, sub, arg, arg2] = positionals;
  if (values.help === true || command === undefined) {
    console.log(USAGE);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  if (command === 'serve') return serve(configPath);
  if (command === 'config' && sub === 'check') {
    const config = await loadConfigFile(configPath, BUILTIN_ENDPOINTS);
    console.log(`${configPath}: ok (${config.channels.length} channels, ${config.groups.size} groups, ${config.keys.length} keys)`);
    return 0;
  }
  if (command === 'keys') {
    const config = await loadConfigFile(configPath, BUILTIN_ENDPOINTS);
    const store = await openStore(config.store.url, STORE_PARTS, { poolMax: config.store.poolMax });
    try {
      if (sub === 'create') {
        const created = await createKey(store, config, Object.assign({ group: values.group, account: values.account }, keyFields(values)));
        console.log(JSON.stringify(Object.assign(describeKey(created.record), { key: created.key }), null, 2));
        // Which database it went into: a gateway on another store would answer 401 to this key.
        console.error(`Created in ${describeStoreUrl(config.store.url)}. Store this key now: it is not shown again.`);
      } else if (sub === 'update' && arg !== undefined) {
        console.log(JSON.stringify(describeKey(await updateKey(store, config, arg, keyFields(values)))));
        console.error('Running gateways apply it within 5 s (their key cache).');
      } else if (sub === 'list') {
        for (const k of await store.listKeys()) console.log(JSON.stringify(describeKey(k)));
      } else if (sub === 'revoke' && arg !== undefined) {
        const revoked = await store.revokeKey(arg, Date.now());
        if (revoked === undefined) {
          console.error(`no key with id or name "${arg}"`);
          return 1;
        }
        console.log(JSON.stringify(describeKey(revoked)));
      } else {
        console.error(USAGE);
        return 2;
      }
    } finally {
      await store.close();
    }
    return 0;
  }
  if (command === 'admin' && sub === 'create-user' && arg !== undefined) {
    const config = await loadConfigFile(configPath, BUILTIN_ENDPOINTS);
    const store = await openStore(config.store.url, STORE_PARTS, { poolMax: config.store.poolMax });
    try {
      const signIn = new ConsoleSignIn({ store: store.console, limiter: new MemoryLimiter(), adminToken: () => null });
      const made = await createConsoleUser(store.console, signIn, arg, null);
      console.log(JSON.stringify(made, null, 2));
      console.error(`Open <gateway URL>${made.link} to set the password (once, until ${made.link_expires_at}).`);
    } finally {
      await store.close();
    }
    return 0;
  }
  if (command === 'accounts') {
    const config = await loadConfigFile(configPath, BUILTIN_ENDPOINTS);
    const store = await openStore(config.store.url, STORE_PARTS, { poolMax: config.store.poolMax });
    try {
      // The file's accounts exist as soon as any command runs, as when the server starts.
      await store.ledger.ensureAccounts(config.accounts, Date.now());
      return await accounts(store, config.pricing.currency, sub, arg, arg2, values);
    } finally {
      await store.close();
    }
  }
  const featureCommand = COMMANDS.get(command);
  if (featureCommand !== undefined) {
    const config = await loadConfigFile(configPath, BUILTIN_ENDPOINTS);
    const store = await openStore(config.store.url, STORE_PARTS, { poolMax: config.store.poolMax });
    try {
      const code = await featureCommand.run([sub, arg, arg2], values, { config, store });
      if (code !== 2) return code;
    } finally {
      await store.close();
    }
  }
  console.error(USAGE);
  return 2;
}

async function accounts(
  store: Store,
  currency: string,
  sub: string | undefined,
  name: string | undefined,
  amount: string | undefined,
  values: { readonly description?: string | undefined; readonly note?: string | undefined; readonly 'idempotency-key'?: string | undefined },
): Promise<number> {
  const { ledger } = store;
  if (sub === 'create' && name !== undefined) {
    console.log(JSON.stringify(describeAccount(await createAccount(ledger, { name, description: values.description }), currency)));
  } else if (sub === 'list') {
    for (const a of await ledger.listAccounts()) console.log(JSON.stringify(describeAccount(a, currency)));
  } else if (sub === 'show' && name !== undefined) {
    const account = await ledger.getAccount(name);
    if (account === undefined) {
      console.error(`no account named "${name}"`);
      return 1;
    }
    const entries = await ledger.listLedger(name, 50);
    console.log(JSON.stringify(Object.assign(describeAccount(account, currency), { ledger: entries.map(describeEntry) }), null, 2));
  } else if (sub === 'credit' && name !== undefined && amount !== undefined) {
    const credited = await creditAccount(ledger, name, { amount, note: values.note, idempotency_key: values['idempotency-key'] });
    console.log(JSON.stringify({ account: describeAccount(credited.account, currency), entry: describeEntry(credited.entry), applied: credited.applied }));
    if (!credited.applied) console.error('This idempotency key was used before: nothing was credited again.');
  } else if (sub === 'audit') {
    const report = await auditBooks(store);
    for (const problem of report.problems) console.error(problem);
    for (const o of report.overdrawn) console.error(`account "${o.account}" is below zero by ${formatMoney(o.by)} ${currency}`);
    const verdict = report.problems.length > 0 ? 'MISMATCH' : report.overdrawn.length > 0 ? 'OVERDRAWN' : 'ok';
    console.log(`${verdict}: ${report.accounts} accounts, ${report.pricedRecords} priced usage records, ${report.problems.length} problems, ${report.overdrawn.length} accounts below zero`);
    return verdict === 'ok' ? 0 : 1;
  } else {
    console.error(USAGE);
    return 2;
  }
  return 0;
}

async function serve(configPath: string): Promise<number> {
  const logger = createLogger();
  const portEnv = process.env['PORT'];
  // The server and its plugins are loaded for `serve` only: the other commands start in half the time without them.
  const [{ startGateway }, { builtinPlugins }] = await Promise.all([import('../core/serve.js'), import('../plugins/index.js')]);
  const gateway = await startGateway({
    configPath,
    features: FEATURES,
    factories: builtinPlugins(),
    logger,
    ...(portEnv === undefined || portEnv === '' ? {} : { port: Number(portEnv) }),
  });
  logger.info({ url: gateway.url, config: configPath, store: gateway.store }, 'gateway listening');
  process.on('SIGHUP', () => void gateway.reload());
  return new Promise<number>((done) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      // The handlers stay installed: a Ctrl-C under `npm start` arrives twice (from the terminal, and forwarded
      // by npm), and a signal with no handler left would kill the process before the usage records are written.
      if (stopping) {
        logger.info({ signal }, 'already shutting down');
        return;
      }
      stopping = true;
      logger.info({ signal, inFlight: gateway.runtime.inFlightCount }, 'shutting down');
      gateway.close().then(
        () => done(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed; some usage records may not have been written');
          done(1);
        },
      );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError) console.error(err.message);
    else console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
