// Builds every route's chain once per config load; every mistake fails here, naming its YAML path and line.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { ConfigError, type ResolvedConfig, type ResolvedRoute } from '../config/resolved.js';
import { findSchemaDir } from '../config/schema-dir.js';
import { schemaCompiler } from '../config/schema-compiler.js';
import type { EndpointRegistry } from '../endpoints/registry.js';
import type { ClientFormat } from '../formats/format.js';
import type { Chain } from './chain.js';
import { PHASES, type GatewayServices, type Phase, type Plugin, type PluginFactory } from './plugin.js';

const KNOWN_KEYS: ReadonlySet<string> = new Set<string>(['name', ...PHASES]);

export function buildChains(
  config: ResolvedConfig,
  factories: ReadonlyMap<string, PluginFactory>,
  formats: ReadonlyMap<string, ClientFormat>,
  services: GatewayServices,
  endpoints: EndpointRegistry,
): Map<string, Chain> {
  const issues: string[] = [];
  const validators = new Map<string, ValidateFunction>();
  const ajv = schemaCompiler({ allErrors: true, strict: false, useDefaults: true });
  const chains = new Map<string, Chain>();
  for (const route of config.routes) {
    const chain = buildChain(route);
    if (chain !== null) chains.set(route.path, chain);
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return chains;

  function validatorFor(name: string): ValidateFunction | null {
    const cached = validators.get(name);
    if (cached !== undefined) return cached;
    const file = join(findSchemaDir(), 'plugins', `${name}.schema.json`);
    if (!existsSync(file)) return null;
    const validate = ajv.compile(JSON.parse(readFileSync(file, 'utf8')) as object);
    validators.set(name, validate);
    return validate;
  }

  function buildChain(route: ResolvedRoute): Chain | null {
    const format = formats.get(route.path);
    if (format === undefined) {
      issues.push(`${config.locate(route.at)}: no client format serves ${route.path}`);
      return null;
    }
    const plugins: Plugin[] = [];
    const seen = new Set<string>();
    for (const use of route.plugins) {
      const where = config.locate(use.path);
      const factory = factories.get(use.use);
      if (factory === undefined) {
        // The answering plugins of a feature's routes (models, billing and the rest) became their handlers.
        const handled = endpoints.byKey(route.path)?.handler === undefined ? '' : `; ${route.path} answers with its own handler: list its middleware only`;
        issues.push(`${where}: unknown plugin "${use.use}" (known: ${[...factories.keys()].join(', ')})${handled}`);
        continue;
      }
      if (seen.has(use.use)) {
        issues.push(`${where}: plugin "${use.use}" appears twice in this route`);
        continue;
      }
      seen.add(use.use);
      const options = structuredClone(use.with) as Record<string, unknown>;
      const validate = validatorFor(use.use);
      if (validate === null ? Object.keys(options).length > 0 : !validate(options)) {
        const detail = validate?.errors
          ?.map((e) =>
            e.keyword === 'additionalProperties'
              ? `unknown option "${String(e.params['additionalProperty'])}"`
              : `${e.instancePath || 'with'} ${e.message ?? 'is invalid'}`,
          )
          .join('; ');
        issues.push(`${where}: invalid "with" for plugin ${use.use}: ${detail ?? 'this plugin takes no options'}`);
        continue;
      }
      const plugin = factory.create(options, servicesFor(services, factory.uses));
      const unknown = Object.keys(plugin).filter((k) => !KNOWN_KEYS.has(k));
      if (unknown.length > 0) issues.push(`${where}: plugin ${use.use} has unknown phase(s): ${unknown.join(', ')}`);
      plugins.push(plugin);
    }
    issues.push(...slotIssues(route, factories, config));
    const relays = plugins.filter((p) => p.relay !== undefined);
    // A feature's route answers with its handler, after its chain's middleware; a model route with its relay plugin.
    const handler = endpoints.byKey(route.path)?.handler;
    if (handler !== undefined) {
      if (relays.length > 0) {
        issues.push(`${config.locate(route.at)}: route ${route.path} answers with its own handler; plugin ${relays.map((p) => p.name).join(', ')} cannot relay it`);
        return null;
      }
      relays.push({ name: route.path, relay: (ctx) => handler(ctx, services) });
    } else if (relays.length !== 1) {
      issues.push(`${config.locate(route.at)}: route ${route.path} needs exactly one relay plugin, has ${relays.length}`);
      return null;
    }
    const relay = relays[0] as Plugin & { relay: NonNullable<Plugin['relay']> };
    const reversed = [...plugins].reverse();
    return {
      route: route.path,
      format,
      plugins,
      head: plugins.filter((p) => p.head !== undefined),
      request: plugins.filter((p) => p.request !== undefined),
      relay,
      response: reversed.filter((p) => p.response !== undefined),
      frame: reversed.filter((p) => p.frame !== undefined),
      finish: plugins.filter((p) => p.finish !== undefined),
      overheadHeader: config.server.overheadHeader,
    };
  }
}

/** The services a plugin declares it uses, and no others. */
function servicesFor<K extends keyof GatewayServices>(services: GatewayServices, uses: readonly K[]): Pick<GatewayServices, K> {
  return Object.fromEntries(uses.map((name) => [name, services[name]])) as Pick<GatewayServices, K>;
}

/** Phases in the order a request meets them; within one, config order but for the two that run in reverse. */
const PHASE_ORDER: ReadonlyMap<Phase, number> = new Map(PHASES.map((phase, i) => [phase, i]));
const REVERSED: ReadonlySet<Phase> = new Set<Phase>(['response', 'frame']);

/** Whether what plugin `from` (at position `i`) does in phase `a` happens before what `j` does in `b`. */
function runsBefore(a: Phase, i: number, b: Phase, j: number): boolean {
  const pa = PHASE_ORDER.get(a) ?? 0;
  const pb = PHASE_ORDER.get(b) ?? 0;
  if (pa !== pb) return pa < pb;
  return REVERSED.has(a) ? i > j : i < j;
}

/**
 * The route's slots, checked from what each plugin declares: a slot it requires is provided by another plugin of the
 * route, and a slot it requires or reads is provided, by one of them at least, before the phase that reads it.
 */
function slotIssues(route: ResolvedRoute, factories: ReadonlyMap<string, PluginFactory>, config: ResolvedConfig): string[] {
  const chain = route.plugins.map((use) => ({ use, factory: factories.get(use.use) }));
  const issues: string[] = [];
  chain.forEach(({ use, factory }, i) => {
    if (factory === undefined) return;
    const wants = [...(factory.requires ?? []).map((need) => ({ need, required: true })), ...(factory.reads ?? []).map((need) => ({ need, required: false }))];
    for (const { need, required } of wants) {
      // The plugin's own earlier phases count as providers too (meter's finish reads what its frames found).
      const providers = chain.flatMap(({ use: other, factory: by }, j) =>
        by === undefined ? [] : (by.provides ?? []).filter((p) => p.slot === need.slot && (j !== i || runsBefore(p.phase, j, need.phase, i))).map((p) => ({ name: other.use, phase: p.phase, j })),
      );
      const where = config.locate(use.path);
      if (providers.length === 0) {
        if (!required) continue;
        const could = [...factories.values()].filter((f) => f.name !== use.use && f.provides?.some((p) => p.slot === need.slot)).map((f) => `"${f.name}"`);
        issues.push(`${where}: plugin "${use.use}" requires ${need.slot.name}, which no plugin of this route provides${could.length === 0 ? '' : ` (add ${could.join(' or ')})`}`);
      } else if (!providers.some((p) => runsBefore(p.phase, p.j, need.phase, i))) {
        const names = [...new Set(providers.map((p) => `"${p.name}"`))].join(', ');
        // In a phase that runs in reverse (response, frame), running earlier means standing later in the route.
        const side = REVERSED.has(need.phase) ? 'after' : 'before';
        issues.push(`${where}: plugin "${use.use}" reads ${need.slot.name} in its ${need.phase} phase, but ${names} provides it only later: put ${names} ${side} "${use.use}"`);
      }
    }
  });
  return issues;
}
