'use strict'

const { validateMoney } = require('../../src/validate-money')

const answer = (/** @type {{ amount: string, currency: string }} */ money) => {
  try {
    validateMoney(money)
    return 'ok'
  } catch (err) {
    return err.toErrorInformation()
  }
}

test.each([
  ['10', 'USD'], ['10.12', 'USD'], ['10', 'JPY'], ['0.123', 'BHD'], ['99999999999999.99', 'USD']
])('%s %s is fine', (amount, currency) => {
  expect(answer({ amount, currency })).toBe('ok')
})

test('more decimals than the currency has → 3100', () => {
  expect(answer({ amount: '10.123', currency: 'USD' })).toEqual({
    errorInformation: { errorCode: '3100', errorDescription: 'Generic validation error - amount has more decimals than USD allows (2)' }
  })
  expect(answer({ amount: '1.5', currency: 'JPY' }).errorInformation.errorDescription).toMatch(/JPY allows \(0\)$/)
})

test('an unknown currency → 3100', () => {
  expect(answer({ amount: '10', currency: 'XYZ' })).toEqual({
    errorInformation: { errorCode: '3100', errorDescription: 'Generic validation error - amount.currency XYZ is not an ISO 4217 currency' }
  })
})

test('an amount the ledger cannot hold → 3100', () => {
  expect(answer({ amount: '100000000000000', currency: 'USD' })).toEqual({
    errorInformation: { errorCode: '3100', errorDescription: 'Generic validation error - amount is larger than the ledger holds (99999999999999.9999)' }
  })
})
