// ISO 8601 times as the gateway takes them from callers: a date (midnight UTC) or a date and time with `Z` or an
// offset. Never the server's local time (whose midnight?), never a day that rolls over (2027-02-30 is not March 2).

/** Epoch ms, or null when `text` is not such a time. */
export function parseIsoTime(text: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/.exec(text);
  if (match === null) return null;
  const [, y, mo, d, h = '0', mi = '0', se = '0'] = match;
  if (Number(h) > 23 || Number(mi) > 59 || Number(se) > 59) return null;
  const sameDay = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d))).toISOString().startsWith(text.slice(0, 10));
  const at = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  return sameDay && Number.isFinite(at) ? at : null;
}
