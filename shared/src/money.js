'use strict'

// Exact money (DESIGN.md rule 6). An amount is a decimal string on the wire,
// DECIMAL(18,4) in MySQL and a BigInt count of ledger units (0.0001) in
// JavaScript. No function here ever builds a JS number from an amount, and
// none rounds: anything that cannot be represented exactly is refused.
// Arithmetic is plain BigInt (`a + b`, `a < b`), which is already exact, so
// this module only converts and checks.

const { CURRENCY_MINOR_UNITS } = require('./currencies')

/** Decimal places of a ledger unit: amounts are counted in 0.0001. */
const LEDGER_SCALE = 4
const UNITS_PER_WHOLE = 10n ** BigInt(LEDGER_SCALE)

// FSPIOP API "Amount": up to 18 integer digits, up to 4 decimals, no leading
// zeros, no trailing zeros after the point, no sign.
const AMOUNT_PATTERN = /^([0]|([1-9][0-9]{0,17}))([.][0-9]{0,3}[1-9])?$/

// What parseAmount accepts: the API form plus what MySQL returns for a
// DECIMAL(18,4) column ("100.5000", "-12.3400", "0.0000"). Still no exponent,
// no leading "+" or ".", no whitespace, at most 18 integer digits.
const DECIMAL_PATTERN = /^(-?)(0|[1-9][0-9]{0,17})(?:\.([0-9]+))?$/

// DECIMAL(18,4) keeps 18 digits of which 4 are decimals, so the ledger holds
// at most 14 integer digits: 99999999999999.9999, i.e. 10^18 - 1 units, on
// either side of zero. The API allows 18 integer digits, so a valid API amount
// can still be too large for the ledger; callers compare with LEDGER_MAX and
// answer with a validation error instead of letting the INSERT fail.
const LEDGER_MAX = 10n ** 18n - 1n

/**
 * @param {unknown} value
 * @returns {boolean} true for a string that is a valid FSPIOP API amount
 */
function isValidAmount (value) {
  return typeof value === 'string' && AMOUNT_PATTERN.test(value)
}

/**
 * @param {string} code ISO 4217 alphabetic code, upper case
 * @returns {number | undefined} the currency's minor-unit decimals, undefined if unknown
 */
function currencyScale (code) {
  return CURRENCY_MINOR_UNITS.get(code)
}

/**
 * @param {string} code
 * @returns {boolean}
 */
function isKnownCurrency (code) {
  return CURRENCY_MINOR_UNITS.has(code)
}

/**
 * Whether an amount has no more decimals than its currency allows
 * (`fitsCurrency('10.123', 'USD') === false`). Trailing zeros do not count,
 * so the DB form "10.1200" fits USD. False for an unknown currency or a string
 * that is not a decimal amount.
 *
 * @param {string | bigint} amount decimal string, or ledger units
 * @param {string} currency
 * @returns {boolean}
 */
function fitsCurrency (amount, currency) {
  const scale = currencyScale(currency)
  if (scale === undefined) return false
  if (typeof amount === 'bigint') return amount % 10n ** BigInt(LEDGER_SCALE - scale) === 0n
  const match = typeof amount === 'string' ? DECIMAL_PATTERN.exec(amount) : null
  if (!match) return false
  const fraction = (match[3] || '').replace(/0+$/, '')
  return fraction.length <= scale
}

/**
 * Converts a decimal string to ledger units. Accepts API amounts and the
 * DECIMAL(18,4) strings MySQL returns, negative ones included (positions).
 * More lenient than AMOUNT_PATTERN on purpose: the API layer validates with
 * isValidAmount; this function's job is exact conversion.
 *
 * @param {string} str
 * @returns {bigint}
 * @throws {RangeError} if str is not a string, not a plain decimal, has more
 *   than 4 decimals (that would need rounding) or more than 18 integer digits
 */
function parseAmount (str) {
  if (typeof str !== 'string') {
    throw new RangeError(`Amount must be a decimal string, got ${typeof str}`)
  }
  const match = DECIMAL_PATTERN.exec(str)
  if (!match) {
    throw new RangeError(`Amount ${JSON.stringify(str)} is not a decimal with at most 18 integer digits`)
  }
  const [, sign, whole, fraction = ''] = match
  if (fraction.length > LEDGER_SCALE) {
    throw new RangeError(`Amount ${JSON.stringify(str)} has more than ${LEDGER_SCALE} decimals (the ledger keeps ${LEDGER_SCALE} and never rounds)`)
  }
  const units = BigInt(whole) * UNITS_PER_WHOLE + BigInt(fraction.padEnd(LEDGER_SCALE, '0'))
  return sign === '-' ? -units : units
}

/**
 * @param {bigint} units
 * @returns {{ sign: string, whole: string, fraction: string }} fraction has LEDGER_SCALE digits
 */
function splitUnits (units) {
  if (typeof units !== 'bigint') throw new TypeError(`Ledger amount must be a bigint, got ${typeof units}`)
  const abs = units < 0n ? -units : units
  return {
    sign: units < 0n ? '-' : '',
    whole: (abs / UNITS_PER_WHOLE).toString(),
    fraction: (abs % UNITS_PER_WHOLE).toString().padStart(LEDGER_SCALE, '0')
  }
}

/**
 * Canonical API form: no trailing zeros, no trailing point, "0" for zero,
 * a leading "-" for negatives (positions; the API itself has no negative
 * amounts). A non-negative value below 10^22 units matches AMOUNT_PATTERN.
 *
 * @param {bigint} units
 * @returns {string}
 */
function formatAmount (units) {
  const { sign, whole, fraction } = splitUnits(units)
  const decimals = fraction.replace(/0+$/, '')
  return `${sign}${whole}${decimals ? `.${decimals}` : ''}`
}

/**
 * Fixed four-decimal string for a DECIMAL(18,4) column, e.g. "100.5000".
 *
 * @param {bigint} units
 * @returns {string}
 * @throws {RangeError} if |units| > LEDGER_MAX (the column would reject it)
 */
function toDbDecimal (units) {
  const { sign, whole, fraction } = splitUnits(units)
  if (units > LEDGER_MAX || units < -LEDGER_MAX) {
    throw new RangeError(`Amount ${sign}${whole}.${fraction} does not fit DECIMAL(18,4) (at most 14 integer digits)`)
  }
  return `${sign}${whole}.${fraction}`
}

module.exports = {
  LEDGER_SCALE,
  LEDGER_MAX,
  AMOUNT_PATTERN,
  isValidAmount,
  currencyScale,
  isKnownCurrency,
  fitsCurrency,
  parseAmount,
  formatAmount,
  toDbDecimal
}
