// Numbers as the pages show them, in one fixed locale (en-US) so every screen and every test reads the same digits.
// Money arrives as decimal strings; it is shown rounded to at most 6 places, never computed with.

const LOCALE = 'en-US';
const count = new Intl.NumberFormat(LOCALE);
const compact = new Intl.NumberFormat(LOCALE, { notation: 'compact', maximumFractionDigits: 1 });
const plainMoney = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 6 });
// A memo of immutable formatters (building one per table cell is slow), not state: any entry is rebuilt the same.
const currencyFormats = new Map<string, Intl.NumberFormat>();

function currencyFormat(currency: string): Intl.NumberFormat {
  let format = currencyFormats.get(currency);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat(LOCALE, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 6 });
    } catch {
      // Not an ISO 4217 code (a gateway may bill in "credits"): the number, then the name.
      format = plainMoney;
    }
    currencyFormats.set(currency, format);
  }
  return format;
}

/** "$12.50" for ("12.5", "USD"); "12.50" without a currency; "—" for none. */
export function formatMoney(amount: string | number | null | undefined, currency?: string): string {
  if (amount === null || amount === undefined || amount === '') return '—';
  const value = Number(amount);
  if (!Number.isFinite(value)) return String(amount);
  if (currency === undefined || currency === '') return plainMoney.format(value);
  const format = currencyFormat(currency);
  return format === plainMoney ? `${plainMoney.format(value)} ${currency}` : format.format(value);
}

export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : count.format(value);
}

/** "12.3K": a chart axis's counts. */
export function formatCompact(value: number): string {
  return compact.format(value);
}

/** "1,234 ms", or "1.2 s" from ten seconds up. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${count.format(Math.round(ms))} ms`;
}

/** 0.0512 -> "5.1%". */
export function formatRate(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? '—' : `${(rate * 100).toFixed(1)}%`;
}
