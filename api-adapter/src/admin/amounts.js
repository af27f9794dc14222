'use strict'

// Request amounts → exact ledger units (BigInt), and ledger values → response
// strings. Amounts go out as canonical decimal strings rather than the JSON
// numbers central-ledger returns: a JSON number is a binary float, and a
// position such as 12345678901234.5678 has no exact float.

const { isValidAmount, fitsCurrency, currencyScale, parseAmount, formatAmount, LEDGER_MAX } = require('@switchyard/shared/money')
const { createFspiopError } = require('@switchyard/shared/errors')

/**
 * Reads an amount from a request and checks it against its currency.
 *
 * A JSON number is accepted only when JSON.parse produced a safe integer
 * (central-ledger clients send limits as numbers): every integer up to
 * 2^53 - 1 is exactly representable, and any integer literal above it parses
 * to 2^53 or more, which is refused. A number with a fraction is refused
 * rather than guessed at: 0.1 in JSON is already not 0.1.
 *
 * @param {unknown} value FSPIOP amount string, or a whole JSON number
 * @param {string} currency
 * @param {string} field the field's name for the error message
 * @returns {bigint} ledger units (0.0001)
 * @throws {import('@switchyard/shared/errors').FspiopError} 3101 a JSON number with a fraction,
 *   3100 not an amount, or not fitting the currency or the ledger
 */
function readAmount (value, currency, field) {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw createFspiopError('MALFORMED_SYNTAX', `${field} must be a string such as "12.5"; JSON numbers only as whole numbers`)
  }
  if (typeof value === 'number' && value < 0) throw createFspiopError('VALIDATION_ERROR', `${field} must not be negative`)
  const text = typeof value === 'number' ? String(value) : value
  if (typeof text !== 'string' || !isValidAmount(text)) {
    throw createFspiopError('VALIDATION_ERROR', `${field} must be an amount such as "100" or "12.5"`)
  }
  if (!fitsCurrency(text, currency)) {
    throw createFspiopError('VALIDATION_ERROR', `${field} has more decimals than ${currency} allows (${currencyScale(currency)})`)
  }
  const units = parseAmount(text)
  if (units > LEDGER_MAX) throw createFspiopError('VALIDATION_ERROR', `${field} is larger than the ledger holds (14 integer digits)`)
  return units
}

/**
 * Like readAmount, and the amount must be more than zero.
 * @param {unknown} value
 * @param {string} currency
 * @param {string} field
 */
function readPositiveAmount (value, currency, field) {
  const units = readAmount(value, currency, field)
  if (units === 0n) throw createFspiopError('VALIDATION_ERROR', `${field} must be greater than 0`)
  return units
}

/**
 * @param {string} dbValue a DECIMAL(18,4) column as mysql2 returns it ("-100.5000")
 * @returns {string} canonical form ("-100.5")
 */
const toApiAmount = (dbValue) => formatAmount(parseAmount(dbValue))

module.exports = { readAmount, readPositiveAmount, toApiAmount }
