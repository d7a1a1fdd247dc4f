// The series of one metric in a Prometheus text exposition: `{label="value",...}` -> value.

export function series(text: string, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const at = line.lastIndexOf(' ');
    out[line.slice(name.length, at)] = Number(line.slice(at + 1));
  }
  return out;
}
