// Money as every page shows it: one format, in the gateway's currency (the session says which), so a balance on the
// dashboard and a key's spend on Tokens read alike ("$12.50", or "12.50 credits").

import { useApp } from '../app-context.js';
import { formatMoney } from './format-number.js';

export function useMoney(): (amount: string | number | null | undefined) => string {
  const currency = useApp().session?.currency;
  return (amount) => formatMoney(amount, currency);
}
