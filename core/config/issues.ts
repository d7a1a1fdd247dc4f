// One problem in a config, and how a list of them becomes the one-line-each messages of ConfigError.

import { formatPath } from './config-path.js';
import type { ConfigPath } from './resolved.js';
import type { SourceLines } from './source-lines.js';

export interface ConfigIssue {
  /** The path shown to the reader. */
  readonly path: ConfigPath;
  readonly message: string;
  /** The node whose line is shown, when it differs from `path` (an unknown field points at its key). */
  readonly at?: ConfigPath;
}

/** `<path>: <message> (<file>:<line>)`, sorted by line, duplicates dropped. */
export function formatIssues(issues: readonly ConfigIssue[], lines: SourceLines): string[] {
  const rendered = issues.map((issue) => {
    const line = lines.lineOf(issue.at ?? issue.path);
    return { line, text: `${formatPath(issue.path)}: ${issue.message} (${lines.label}:${line})` };
  });
  rendered.sort((a, b) => a.line - b.line);
  return [...new Set(rendered.map((r) => r.text))];
}

/** Drops issues about a node that already has an issue in `first` (a missing variable explains a bad value). */
export function dropShadowed(issues: readonly ConfigIssue[], first: readonly ConfigIssue[]): ConfigIssue[] {
  const taken = new Set(first.map((issue) => formatPath(issue.path)));
  return issues.filter((issue) => !taken.has(formatPath(issue.path)));
}
