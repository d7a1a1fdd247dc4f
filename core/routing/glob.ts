// Model-name globs: `*` matches any run of characters (slashes included, since model ids contain them), `?` one.

export type ModelMatcher = (model: string) => boolean;

export function isGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

export function compileGlob(pattern: string): ModelMatcher {
  if (!isGlob(pattern)) return (model) => model === pattern;
  const source = pattern
    .split('')
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const re = new RegExp(`^${source}$`, 's');
  return (model) => re.test(model);
}

export function compileGlobs(patterns: readonly string[]): ModelMatcher {
  const matchers = patterns.map(compileGlob);
  return (model) => matchers.some((m) => m(model));
}
