'use strict'

// The admin API's pure helpers: amounts, endpoint values, funds rules,
// validation errors and the bearer token parser.

const { readAmount, readPositiveAmount, toApiAmount } = require('../../src/admin/amounts')
const { checkEndpoint } = require('../../src/admin/endpoint-rules')
const rules = require('../../src/admin/funds-rules')
const { toValidationError } = require('../../src/admin/errors')
const { bearerToken } = require('../../src/admin/auth')

/** @param {() => unknown} fn */
function codeOf (fn) {
  try {
    fn()
  } catch (err) {
    return [err.code, err.message]
  }
  return undefined
}

describe('readAmount', () => {
  test.each([
    ['100', 'USD', 1000000n],
    ['12.5', 'USD', 125000n],
    ['0', 'USD', 0n],
    [5000, 'USD', 50000000n],
    ['1.234', 'BHD', 12340n],
    ['99999999999999.99', 'USD', 999999999999999900n]
  ])('%j %s is %s units', (value, currency, units) => {
    expect(readAmount(value, currency, 'x')).toBe(units)
  })

  test.each([
    ['10.123', 'USD', '3100', 'x has more decimals than USD allows (2)'],
    ['1.5', 'JPY', '3100', 'x has more decimals than JPY allows (0)'],
    ['100000000000000', 'USD', '3100', 'x is larger than the ledger holds (14 integer digits)'],
    ['10.50', 'USD', '3100', 'x must be an amount such as "100" or "12.5"'],
    ['-1', 'USD', '3100', 'x must be an amount such as "100" or "12.5"'],
    [10.5, 'USD', '3101', 'x must be a string such as "12.5"; JSON numbers only as whole numbers'],
    [2 ** 53, 'USD', '3101', 'x must be a string such as "12.5"; JSON numbers only as whole numbers'],
    [-5, 'USD', '3100', 'x must not be negative'],
    [null, 'USD', '3100', 'x must be an amount such as "100" or "12.5"']
  ])('refuses %j %s with %s', (value, currency, code, detail) => {
    const [gotCode, message] = codeOf(() => readAmount(value, currency, 'x'))
    expect([gotCode, message.split(' - ')[1]]).toEqual([code, detail])
  })

  test('readPositiveAmount refuses 0', () => {
    expect(codeOf(() => readPositiveAmount('0', 'USD', 'amount'))).toEqual(['3100', 'Generic validation error - amount must be greater than 0'])
  })

  test('toApiAmount gives the canonical form of a DECIMAL(18,4) column', () => {
    expect(['-100.5000', '0.0000', '12.3400', '7.0001'].map(toApiAmount)).toEqual(['-100.5', '0', '12.34', '7.0001'])
  })
})

describe('checkEndpoint', () => {
  test.each([
    ['FSPIOP_CALLBACK_URL_TRANSFER_POST', 'http://dfsp:8444/transfers'],
    ['FSPIOP_CALLBACK_URL_TRANSFER_PUT', 'https://dfsp/transfers/{{transferId}}'],
    ['FSPIOP_CALLBACK_URL_TRANSFER_ERROR', 'https://dfsp/transfers/{{transferId}}/error'],
    ['FSPIOP_CALLBACK_URL_TRANSFER_PUT', 'https://dfsp/transfers/{{ transferId }}'],
    ['FSPIOP_CALLBACK_URL_QUOTES', 'http://dfsp'],
    // Other services' callbacks are not delivered here: their placeholders are theirs.
    ['FSPIOP_CALLBACK_URL_QUOTES', 'http://dfsp/quotes/{{quoteId}}'],
    ['FSPIOP_CALLBACK_URL', 'http://dfsp'],
    ['NET_DEBIT_CAP_ADJUSTMENT_EMAIL', 'ops@dfsp.example']
  ])('accepts %s %s', (type, value) => {
    expect(checkEndpoint(type, value)).toBeUndefined()
  })

  test.each([
    ['FSPIOP_CALLBACK_URL_TRANSFER_POST', 'dfsp/transfers', 'value must be an absolute http(s) URL'],
    ['FSPIOP_CALLBACK_URL_TRANSFER_POST', 'ftp://dfsp/transfers', 'value must be an http or https URL'],
    ['FSPIOP_CALLBACK_URL_TRANSFER_POST', 'http://user:pw@dfsp/', 'value must not carry credentials'],
    ['FSPIOP_CALLBACK_URL_TRANSFER_PUT', 'http://dfsp/{{transferId}', 'value has a malformed {{template}}'],
    // Accepted, every callback to it would fail at delivery: refused when registered.
    ['FSPIOP_CALLBACK_URL_TRANSFER_PUT', 'http://dfsp/transfers/{{id}}', 'value has {{id}}; transfer callbacks fill in only {{transferId}}'],
    ['FSPIOP_CALLBACK_URL_TRANSFER_ERROR', 'http://dfsp/{{transferId}}/{{ fsp }}/error', 'value has {{fsp}}; transfer callbacks fill in only {{transferId}}'],
    ['NET_DEBIT_CAP_ADJUSTMENT_EMAIL', 'not-an-address', 'value must be an e-mail address'],
    ['fspiop_callback_url_transfer_post', 'http://dfsp', 'type fspiop_callback_url_transfer_post is not an FSPIOP_CALLBACK_URL_* type or a notification e-mail type']
  ])('refuses %s %s', (type, value, problem) => {
    expect(checkEndpoint(type, value)).toBe(problem)
  })
})

describe('funds rules', () => {
  const settlement = { accountId: 2, value: -1000000n } // 100 deposited
  const hubReconciliation = { accountId: 9, value: 5000000n }

  test('funds in moves settlement and hub reconciliation by opposite amounts', () => {
    expect(rules.planFundsIn({ amount: 10000n, settlement, hubReconciliation })).toEqual([
      { accountId: 2, change: -10000n, valueAfter: -1010000n },
      { accountId: 9, change: 10000n, valueAfter: 5010000n }
    ])
  })

  test('funds out reserves while the liquidity left covers the position, exactly at the limit too', () => {
    const position = { accountId: 1, value: 300000n } // 30 owed
    expect(rules.planFundsOutReserve({ amount: 700000n, currency: 'USD', settlement, position }))
      .toEqual([{ accountId: 2, change: 700000n, valueAfter: -300000n }])
    expect(codeOf(() => rules.planFundsOutReserve({ amount: 700100n, currency: 'USD', settlement, position }))).toEqual([
      '4001', 'Payer FSP insufficient liquidity - USD liquidity after this funds out would be 29.99, below the position 30'
    ])
  })

  test('commit takes the amount from the hub, abort gives it back to the settlement account', () => {
    expect(rules.planFundsOutCommit({ amount: 10000n, hubReconciliation })).toEqual([{ accountId: 9, change: -10000n, valueAfter: 4990000n }])
    expect(rules.planFundsOutAbort({ amount: 10000n, settlement })).toEqual([{ accountId: 2, change: -10000n, valueAfter: -1010000n }])
  })

  test('a change past DECIMAL(18,4) is refused instead of failing the UPDATE', () => {
    expect(codeOf(() => rules.move({ accountId: 3, value: 10n ** 18n - 1n }, 1n))?.[0]).toBe('3100')
  })

  test('isSameFundsRequest compares every field of the request', () => {
    const stored = { participant_id: 1, account_id: 2, action: 'recordFundsIn', amount: '10.5000', currency: 'USD', reason: 'r', external_reference: 'e' }
    const request = { participantId: 1, accountId: 2, action: 'recordFundsIn', amount: 105000n, currency: 'USD', reason: 'r', externalReference: 'e' }
    expect(rules.isSameFundsRequest(stored, request)).toBe(true)
    for (const change of [{ amount: 105001n }, { reason: 'x' }, { externalReference: 'x' }, { accountId: 3 }, { action: 'recordFundsOutPrepareReserve' }]) {
      expect(rules.isSameFundsRequest(stored, { ...request, ...change })).toBe(false)
    }
  })
})

describe('toValidationError', () => {
  test.each([
    [{ keyword: 'required', instancePath: '/amount', params: { missingProperty: 'currency' } }, 'body', '3102', 'Missing mandatory element - amount.currency'],
    [{ keyword: 'type', instancePath: '/isActive', params: { type: 'boolean' } }, 'body', '3101', 'Malformed syntax - isActive must be boolean'],
    [{ keyword: 'type', instancePath: '/limit/value', params: { type: ['string', 'integer'] } }, 'body', '3101', 'Malformed syntax - limit.value must be string or integer'],
    [{ keyword: 'format', instancePath: '', params: { format: 'currency' } }, 'querystring', '3100', 'Generic validation error - query must be a known ISO 4217 currency code'],
    [{ keyword: 'format', instancePath: '/currency', params: { format: 'currency' } }, 'querystring', '3100', 'Generic validation error - query parameter currency must be a known ISO 4217 currency code'],
    [{ keyword: 'format', instancePath: '/transferId', params: { format: 'uuid' } }, 'body', '3100', 'Generic validation error - transferId must be a valid uuid'],
    [{ keyword: 'pattern', instancePath: '/id', params: {}, message: 'must match pattern "^[1-9]"' }, 'params', '3100', 'Generic validation error - path parameter id must match pattern "^[1-9]"'],
    [{ keyword: 'additionalProperties', instancePath: '/limit', params: { additionalProperty: 'colour' } }, 'body', '3103', 'Too many elements - limit.colour is not allowed'],
    [{ keyword: 'enum', instancePath: '/action', params: { allowedValues: ['a', 'b'] } }, 'body', '3100', 'Generic validation error - action must be one of a, b'],
    [{ keyword: 'maximum', instancePath: '/x', params: {}, message: 'must be <= 100' }, 'body', '3100', 'Generic validation error - x must be <= 100']
  ])('%j in %s is %s', (error, context, code, description) => {
    expect(toValidationError([error], context).toErrorInformation()).toEqual({ errorInformation: { errorCode: code, errorDescription: description } })
  })
})

describe('bearerToken', () => {
  test.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer  abc ', 'abc'],
    ['abc', undefined],
    ['Basic abc', undefined],
    ['Bearer a b', undefined],
    [undefined, undefined]
  ])('%j → %j', (header, token) => {
    expect(bearerToken(header)).toBe(token)
  })
})
