'use strict'

const { validatePrepare } = require('../../src/prepare/validate')
const {
  PAYER, PAYEE, PAYER_ACCOUNT, PAYEE_ACCOUNT, NOW, EXPIRES_AT, CONDITION,
  participant, participants, preparePayload, headers, nonCanonical
} = require('./fixtures')

const validate = ({ payload = {}, hdrs = headers(PAYER, PAYEE), parts = participants(), nowMs = NOW } = {}) =>
  validatePrepare({ headers: hdrs, payload: preparePayload(payload) }, parts, nowMs)

/** participants() with one entry replaced (or removed with undefined). */
const withParticipant = (name, view) => {
  const parts = participants()
  if (view) parts.set(name, view)
  else parts.delete(name)
  return parts
}

test('a valid prepare is accepted with both account ids and the amount in ledger units', () => {
  expect(validate()).toEqual({ ok: true, payerAccountId: PAYER_ACCOUNT, payeeAccountId: PAYEE_ACCOUNT, amount: 100000n })
})

test.each([
  ['the smallest USD amount', { amount: { amount: '0.01', currency: 'USD' } }, 100n],
  ['a whole JPY amount', { amount: { amount: '500', currency: 'JPY' } }, 5000000n],
  ['the ledger maximum', { amount: { amount: '99999999999999.99', currency: 'USD' } }, 999999999999999900n]
])('accepted: %s', (_name, payload, units) => {
  expect(validate({ payload })).toMatchObject({ ok: true, amount: units })
})

test('FSPIOP-Destination may be omitted', () => {
  expect(validate({ hdrs: headers(PAYER) }).ok).toBe(true)
})

test('the JPY account is chosen for a JPY transfer', () => {
  expect(validate({ payload: { amount: { amount: '5', currency: 'JPY' } } })).toMatchObject({ ok: true, payerAccountId: 12, payeeAccountId: 23 })
})

describe('rules and their error codes', () => {
  test.each([
    ['payer not registered', { parts: withParticipant(PAYER) }, '3202', /payerfsp is not a registered participant/],
    ['payee not registered', { parts: withParticipant(PAYEE) }, '3203', /payeefsp is not a registered participant/],
    ['payer inactive', { parts: withParticipant(PAYER, participant([['USD', PAYER_ACCOUNT]], false)) }, '3100', /Payer FSP payerfsp is inactive/],
    ['payee inactive', { parts: withParticipant(PAYEE, participant([['USD', PAYEE_ACCOUNT]], false)) }, '3100', /Payee FSP payeefsp is inactive/],
    ['payer has no account in the currency', { parts: withParticipant(PAYER, participant([['EUR', 1]])) }, '4103', /no USD position account/],
    ['payer account inactive', { parts: withParticipant(PAYER, participant([['USD', PAYER_ACCOUNT, false]])) }, '4103', /USD account is inactive/],
    ['payee has no account in the currency', { parts: withParticipant(PAYEE, participant([['EUR', 2]])) }, '5106', /no USD position account/],
    ['payee account inactive', { parts: withParticipant(PAYEE, participant([['USD', PAYEE_ACCOUNT, false]])) }, '5106', /USD account is inactive/],
    ['FSPIOP-Source is not the payer', { hdrs: headers('otherfsp', PAYEE) }, '3100', /FSPIOP-Source otherfsp does not match payerFsp/],
    ['FSPIOP-Source is the payee', { hdrs: headers(PAYEE, PAYEE) }, '3100', /FSPIOP-Source/],
    ['FSPIOP-Destination is not the payee', { hdrs: headers(PAYER, 'otherfsp') }, '3100', /FSPIOP-Destination otherfsp does not match payeeFsp/],
    ['payer and payee are the same', { payload: { payeeFsp: PAYER }, hdrs: headers(PAYER, PAYER) }, '3100', /same participant/],
    ['more decimals than USD allows', { payload: { amount: { amount: '10.123', currency: 'USD' } } }, '3100', /more decimals than USD/],
    ['any decimals in JPY', { payload: { amount: { amount: '1.5', currency: 'JPY' } } }, '3100', /more decimals than JPY/],
    ['amount zero', { payload: { amount: { amount: '0', currency: 'USD' } } }, '3100', /greater than zero/],
    ['amount not an FSPIOP amount', { payload: { amount: { amount: '-5', currency: 'USD' } } }, '3100', /not a valid FSPIOP amount/],
    ['amount with a trailing zero', { payload: { amount: { amount: '10.10', currency: 'USD' } } }, '3100', /not a valid FSPIOP amount/],
    ['amount missing', { payload: { amount: undefined } }, '3100', /not a valid FSPIOP amount/],
    ['amount above the ledger maximum', { payload: { amount: { amount: '100000000000000', currency: 'USD' } } }, '3100', /ledger maximum/],
    ['condition of 43 characters, 32 bytes, non-canonical last character', { payload: { condition: nonCanonical(CONDITION) } }, '3100', /32 bytes/],
    ['condition of 31 bytes', { payload: { condition: Buffer.alloc(31, 1).toString('base64url') } }, '3100', /32 bytes/],
    ['condition missing', { payload: { condition: undefined } }, '3100', /32 bytes/],
    ['condition not a string', { payload: { condition: 42 } }, '3100', /32 bytes/],
    ['expiration in the past', { payload: { expiration: '2025-03-01T11:59:59.999Z' } }, '3100', /is in the past/],
    ['expiration exactly now', { payload: { expiration: new Date(NOW).toISOString() } }, '3100', /is in the past/],
    ['expiration not a date', { payload: { expiration: 'tomorrow' } }, '3100', /is not a date/],
    ['expiration missing', { payload: { expiration: undefined } }, '3100', /is not a date/],
    ['expiration past what the ledger holds', { payload: { expiration: '9999-12-31T23:59:59.999-19:59' } }, '3100', /is after 9999-12-31T23:59:59.999Z/]
  ])('%s → %s', (_name, input, code, detail) => {
    const verdict = validate(input)
    expect(verdict.ok).toBe(false)
    expect(verdict.error.errorCode).toBe(code)
    expect(verdict.error.errorDescription).toMatch(detail)
    expect(verdict.payerAccountId).toBeUndefined()
  })
})

test('the non-canonical condition really decodes to 32 bytes', () => {
  const c = nonCanonical(CONDITION)
  expect(c).toHaveLength(43)
  expect(Buffer.from(c, 'base64url')).toHaveLength(32)
})

test('an expiration one millisecond after now is accepted', () => {
  expect(validate({ nowMs: EXPIRES_AT - 1 }).ok).toBe(true)
})

test('the message rules are checked before the participants: a spoofed source hears 3100, not 3202', () => {
  expect(validate({ hdrs: headers('otherfsp', PAYEE), parts: new Map() }).error.errorCode).toBe('3100')
})

test('the payer is checked before the payee', () => {
  expect(validate({ parts: new Map() }).error.errorCode).toBe('3202')
})
