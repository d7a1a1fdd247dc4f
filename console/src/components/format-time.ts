// Times as the pages show them: UTC throughout, as the server buckets days and months in UTC, so a chart's day,
// a table's time and a date filter all mean the same day wherever the browser is.

const pad = (n: number): string => String(n).padStart(2, '0');

/** "2025-01-31 14:05:09" (UTC), or without the seconds; "—" for none. */
export function formatTime(iso: string | null | undefined, seconds = true): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const minute = `${formatDate(at)} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}`;
  return seconds ? `${minute}:${pad(at.getUTCSeconds())}` : minute;
}

/** "14:05" (UTC); "—" for none. */
export function formatClock(iso: string | null | undefined): string {
  const at = iso === null || iso === undefined ? NaN : Date.parse(iso);
  if (Number.isNaN(at)) return '—';
  const date = new Date(at);
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}

/** "2025-01-31" (UTC), as an <input type="date"> takes it. */
export function formatDate(at: Date): string {
  return `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`;
}

/** The UTC date of an ISO time, for a date input; '' for none. */
export function dateOf(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? '' : formatDate(at);
}

/** The ISO time a "YYYY-MM-DD" date input means: that day's start, UTC. */
export function startOfDate(date: string, plusDays = 0): string {
  const at = new Date(`${date}T00:00:00.000Z`);
  at.setUTCDate(at.getUTCDate() + plusDays);
  return at.toISOString();
}
