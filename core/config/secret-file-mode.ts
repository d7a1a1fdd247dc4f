// A config file that holds secrets (keys, tokens, passwords written in it rather than as `${VAR}`) should be readable
// by its owner alone. The gateway does not refuse to start over it (an operator may have reasons, a container whose
// only user is the gateway), but says so at start, naming the file and the fix.

import { stat } from 'node:fs/promises';
import { holdsSecrets } from './redact-config.js';

/** Read permission for others (o+r). */
const OTHERS_READ = 0o004;

/** The warning for `file` (its `text` as read), or null when it holds no secret or others cannot read it. */
export async function worldReadableSecretsWarning(file: string, text: string): Promise<string | null> {
  // Windows has no such mode bits: what stat reports there says nothing about who may read the file.
  if (process.platform === 'win32') return null;
  let mode: number;
  try {
    mode = (await stat(file)).mode;
  } catch {
    return null;
  }
  if ((mode & OTHERS_READ) === 0 || !holdsSecrets(text)) return null;
  const octal = (mode & 0o777).toString(8).padStart(3, '0');
  return `${file} holds secrets (keys, tokens or passwords) and is readable by every user of this machine (mode ${octal}): run "chmod 600 ${file}", or move the secrets to environment variables (\${VAR})`;
}
