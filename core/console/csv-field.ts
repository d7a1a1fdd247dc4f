// One CSV field as the console's exports write it (the usage log's, the top-up codes').

/** Quoted when it must be, and a text that a spreadsheet would run as a formula made inert. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
