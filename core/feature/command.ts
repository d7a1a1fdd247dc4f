// A feature's commands on the command line (`gateway <name> ...`), run by bin/gateway.ts against the config file and
// the store it names, like core's own commands.

import type { ResolvedConfig } from '../config/resolved.js';
import type { Store } from '../store/store.js';

export interface CommandEnv {
  readonly config: ResolvedConfig;
  /** Opened with every feature's part, migrated; closed by the caller. */
  readonly store: Store;
}

export interface FeatureCommand {
  /** The command's word: `gateway <name> ...`. */
  readonly name: string;
  /** Its lines of the CLI's usage text. */
  readonly usage: string;
  /**
   * Runs with the words after its name and the CLI's parsed flags (`--account`, `--key`, ...: one set for every
   * command, bin/gateway.ts); the exit code (2 for a use the usage does not describe:
   * the CLI then prints the usage).
   */
  run(args: readonly (string | undefined)[], flags: Readonly<Record<string, string | boolean | undefined>>, env: CommandEnv): Promise<number>;
}
