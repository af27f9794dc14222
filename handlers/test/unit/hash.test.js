'use strict'

const crypto = require('node:crypto')
const { canonicalJson, requestHash, fulfilmentMatches, isValidCondition } = require('../../src/common/hash')
const { FULFILMENT, CONDITION, OTHER_FULFILMENT, nonCanonical, preparePayload } = require('./fixtures')

describe('canonicalJson', () => {
  test('key order does not matter, at every level', () => {
    const a = { b: 1, a: { y: [1, { q: 1, p: 2 }], x: 'x' } }
    const b = { a: { x: 'x', y: [1, { p: 2, q: 1 }] }, b: 1 }
    expect(canonicalJson(a)).toBe(canonicalJson(b))
    expect(canonicalJson(a)).toBe('{"a":{"x":"x","y":[1,{"p":2,"q":1}]},"b":1}')
  })

  test('array order does matter', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]))
  })

  test.each([
    ['string', 'a"b', '"a\\"b"'],
    ['number', 1.5, '1.5'],
    ['null', null, 'null'],
    ['boolean', false, 'false'],
    ['empty object', {}, '{}'],
    ['empty array', [], '[]']
  ])('scalars and empties are plain JSON: %s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected)
  })

  test('is valid JSON that parses back to an equal value', () => {
    const value = { amount: { currency: 'USD', amount: '10' }, extensionList: { extension: [{ key: 'k', value: 'v' }] } }
    expect(JSON.parse(canonicalJson(value))).toEqual(value)
  })
})

describe('requestHash', () => {
  test('is a stable sha256 hex of the canonical body', () => {
    const body = preparePayload()
    expect(requestHash(body)).toMatch(/^[0-9a-f]{64}$/)
    expect(requestHash(body)).toBe(requestHash(preparePayload()))
    expect(requestHash(body)).toBe(crypto.createHash('sha256').update(canonicalJson(body)).digest('hex'))
  })

  test('the same body with keys reordered is the same request', () => {
    const body = preparePayload()
    const reordered = Object.fromEntries(Object.entries(body).reverse())
    reordered.amount = { currency: 'USD', amount: '10' }
    expect(requestHash(reordered)).toBe(requestHash(body))
  })

  test.each([
    ['amount', { amount: { amount: '10.5', currency: 'USD' } }],
    ['currency', { amount: { amount: '10', currency: 'EUR' } }],
    ['expiration', { expiration: '2025-03-01T12:01:00.001Z' }],
    ['extension list', { extensionList: { extension: [{ key: 'k', value: 'v' }] } }]
  ])('a different %s is a different request', (_name, change) => {
    expect(requestHash(preparePayload(change))).not.toBe(requestHash(preparePayload()))
  })
})

describe('fulfilmentMatches', () => {
  test.each([
    ['the preimage of the condition', true, FULFILMENT, CONDITION],
    ['another 32-byte value', false, OTHER_FULFILMENT, CONDITION],
    ['the condition itself', false, CONDITION, CONDITION],
    ['31 bytes', false, Buffer.alloc(31, 7).toString('base64url'), CONDITION],
    ['33 bytes', false, Buffer.alloc(33, 7).toString('base64url'), CONDITION],
    ['empty', false, '', CONDITION],
    ['a non-canonical spelling of the right bytes', false, nonCanonical(FULFILMENT), CONDITION],
    ['the right bytes in base64 with padding', false, Buffer.alloc(32, 7).toString('base64'), CONDITION],
    ['the right bytes against a non-canonical condition', false, FULFILMENT, nonCanonical(CONDITION)]
  ])('%s → %s', (_name, expected, fulfilment, condition) => {
    expect(fulfilmentMatches(fulfilment, condition)).toBe(expected)
  })

  test('the non-canonical spelling really decodes to the same bytes (so only canonicality rejects it)', () => {
    expect(nonCanonical(FULFILMENT)).not.toBe(FULFILMENT)
    expect(Buffer.from(nonCanonical(FULFILMENT), 'base64url')).toEqual(Buffer.from(FULFILMENT, 'base64url'))
  })
})

describe('isValidCondition', () => {
  test.each([
    ['sha256 in base64url (43 characters)', true, CONDITION],
    ['32 zero bytes', true, Buffer.alloc(32).toString('base64url')],
    ['43 characters, same bytes, non-canonical last character', false, nonCanonical(CONDITION)],
    ['base64 with padding (44 characters)', false, Buffer.from(CONDITION, 'base64url').toString('base64')],
    ['31 bytes', false, Buffer.alloc(31, 1).toString('base64url')],
    ['33 bytes', false, Buffer.alloc(33, 1).toString('base64url')],
    ['empty', false, ''],
    ['hex of 32 bytes', false, Buffer.alloc(32, 1).toString('hex')]
  ])('%s → %s', (_name, expected, condition) => {
    expect(isValidCondition(condition)).toBe(expected)
  })
})
