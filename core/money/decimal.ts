// Money as integers: every amount is a bigint count of nano-units (1e-9 of the currency), fine enough that one
// token of a $0.05-per-1M model (50 nano) is not rounded away, and a bigint so no balance outgrows exactness.
// People write and read decimals ("12.5", 0.05 in YAML); these two functions are the only way between them.

/** Nano-units per unit of the currency. */
export const NANOS_PER_UNIT = 1_000_000_000n;
const SCALE = 9;

const DECIMAL = /^([+-]?)(\d{1,30})(?:\.(\d{1,30}))?(?:[eE]([+-]?\d{1,2}))?$/;

/**
 * The largest amount taken from people (a credit, a max_spend): 10^9 units. A balance is a signed 64-bit count of
 * nano-units in the store (at most ~9.2 x 10^9 units), so no single amount may come near it.
 */
export const MAX_AMOUNT = 1_000_000_000n * 1_000_000_000n;

/**
 * A decimal (a string such as "12.50" or "-0.000000001", or a number as YAML gives it) in nano-units; throws
 * naming the problem for anything else or for more than 9 decimal places (which a nano-unit cannot hold).
 */
export function parseMoney(value: string | number): bigint {
  // A number is read through its shortest round-trip text (0.1 -> "0.1", 1e-7 -> "1e-7"), never multiplied as a float.
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const match = DECIMAL.exec(text);
  // Bounded digits and exponent: a decimal of an amount of money, not a number of any size.
  if (match === null) throw new RangeError(`"${String(value)}" is not a decimal amount`);
  const [, sign, whole = '0', fraction = '', exponentText] = match;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  // digits * 10^(exponent - fraction.length), in nano-units: digits * 10^(exponent - fraction.length + SCALE).
  const digits = BigInt(whole + fraction);
  const shift = exponent - fraction.length + SCALE;
  let nanos: bigint;
  if (shift >= 0) {
    nanos = digits * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    if (digits % divisor !== 0n) throw new RangeError(`"${String(value)}" has more than ${SCALE} decimal places`);
    nanos = digits / divisor;
  }
  return sign === '-' ? -nanos : nanos;
}

/** Nano-units as a decimal string without trailing zeros ("12.5", "0", "-0.000000001"). */
export function formatMoney(nanos: bigint): string {
  // What a free or unpriced request is told on every answer (x-gateway-cost): no arithmetic for it.
  if (nanos === 0n) return '0';
  const negative = nanos < 0n;
  const abs = negative ? -nanos : nanos;
  const whole = abs / NANOS_PER_UNIT;
  const fraction = (abs % NANOS_PER_UNIT).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A non-negative decimal factor (a group's price_multiplier) as an exact fraction. */
export interface Ratio {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

export const ONE: Ratio = { numerator: 1n, denominator: 1n };

export function parseRatio(value: string | number): Ratio {
  return { numerator: parseMoney(value), denominator: NANOS_PER_UNIT };
}

/** ceil(a / b) for a >= 0, b > 0: a charge is never rounded down, so rounding can only favour the operator by < 1 nano. */
export function divCeil(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
