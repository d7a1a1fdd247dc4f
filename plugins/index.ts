// The built-in plugins by `use:` name.

import type { PluginFactory } from '../core/pipeline/plugin.js';
import { authPlugin } from './auth/index.js';
import { consoleSessionPlugin } from './console-session/index.js';
import { meterPlugin } from './meter/index.js';
import { quotaPlugin } from './quota/index.js';
import { rateLimitPlugin } from './rate-limit/index.js';
import { relayPlugin } from './relay/index.js';

export function builtinPlugins(): ReadonlyMap<string, PluginFactory> {
  return new Map([authPlugin, rateLimitPlugin, quotaPlugin, meterPlugin, relayPlugin, consoleSessionPlugin].map((factory) => [factory.name, factory]));
}
