'use strict'

// What the schema cannot say about an amount: that the currency exists, that
// the amount has no more decimals than the currency (DESIGN.md rule 6), and
// that the ledger can hold it. All three are 3100, the code Mojaloop's
// central-ledger uses for an amount that exceeds the currency's scale;
// checked here, synchronously, so the payer hears at once.

const { createFspiopError } = require('@switchyard/shared/errors')
const { isKnownCurrency, currencyScale, fitsCurrency, parseAmount, formatAmount, LEDGER_MAX } = require('@switchyard/shared/money')

/**
 * @param {{ amount: string, currency: string }} money already valid against the Money schema
 * @param {string} [where] the element's name in error descriptions
 * @throws {import('@switchyard/shared/errors').FspiopError} 3100
 */
function validateMoney ({ amount, currency }, where = 'amount') {
  if (!isKnownCurrency(currency)) {
    throw createFspiopError('VALIDATION_ERROR', `${where}.currency ${currency} is not an ISO 4217 currency`)
  }
  if (!fitsCurrency(amount, currency)) {
    const scale = currencyScale(currency)
    throw createFspiopError('VALIDATION_ERROR', `${where} has more decimals than ${currency} allows (${scale})`)
  }
  if (parseAmount(amount) > LEDGER_MAX) {
    throw createFspiopError('VALIDATION_ERROR', `${where} is larger than the ledger holds (${formatAmount(LEDGER_MAX)})`)
  }
}

module.exports = { validateMoney }
