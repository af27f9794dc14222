'use strict'

const { toValidationError, toDottedPath } = require('../../src/validation-error')

/** The answer a participant sees for one ajv error. */
const answer = (error, dataVar = 'body') => toValidationError([{ params: {}, ...error }], dataVar).toErrorInformation()

test('toDottedPath', () => {
  expect(toDottedPath('')).toBe('')
  expect(toDottedPath('/amount/amount')).toBe('amount.amount')
  expect(toDottedPath('/extensionList/extension/0/key')).toBe('extensionList.extension[0].key')
  expect(toDottedPath('/a~1b/c~0d')).toBe('a/b.c~d')
})

describe('toValidationError maps ajv keywords as Mojaloop does', () => {
  test('required → 3102 naming the missing element', () => {
    expect(answer({ keyword: 'required', instancePath: '', params: { missingProperty: 'transferId' } })).toEqual({
      errorInformation: { errorCode: '3102', errorDescription: 'Missing mandatory element - transferId' }
    })
    expect(answer({ keyword: 'required', instancePath: '/amount', params: { missingProperty: 'currency' } })).toEqual({
      errorInformation: { errorCode: '3102', errorDescription: 'Missing mandatory element - amount.currency' }
    })
  })

  test('additionalProperties → 3103', () => {
    expect(answer({ keyword: 'additionalProperties', instancePath: '/amount', params: { additionalProperty: 'x' } })).toEqual({
      errorInformation: { errorCode: '3103', errorDescription: 'Too many elements - amount.x is not allowed' }
    })
  })

  test('type → 3101', () => {
    expect(answer({ keyword: 'type', instancePath: '/amount/amount', message: 'must be string' })).toEqual({
      errorInformation: { errorCode: '3101', errorDescription: 'Malformed syntax - amount.amount must be string' }
    })
    expect(answer({ keyword: 'type', instancePath: '', message: 'must be object' })).toEqual({
      errorInformation: { errorCode: '3101', errorDescription: 'Malformed syntax - body must be object' }
    })
  })

  test('pattern → 3100 with the type name and a short pattern', () => {
    expect(answer({ keyword: 'pattern', instancePath: '/condition', params: { pattern: '^[A-Za-z0-9-_]{43}$' }, parentSchema: { title: 'IlpCondition' } })).toEqual({
      errorInformation: { errorCode: '3100', errorDescription: 'Generic validation error - condition must match the IlpCondition pattern ^[A-Za-z0-9-_]{43}$' }
    })
  })

  test('pattern → 3100 with the type described in words when the pattern is long', () => {
    const parentSchema = { title: 'DateTime', description: 'yyyy-MM-ddTHH:mm:ss.SSS plus Z or ±HH:MM' }
    expect(answer({ keyword: 'pattern', instancePath: '/expiration', params: { pattern: 'x'.repeat(65) }, parentSchema })).toEqual({
      errorInformation: { errorCode: '3100', errorDescription: 'Generic validation error - expiration must be a valid DateTime: yyyy-MM-ddTHH:mm:ss.SSS plus Z or ±HH:MM' }
    })
  })

  test('enum → 3100 listing the allowed values', () => {
    expect(answer({ keyword: 'enum', instancePath: '/transferState', params: { allowedValues: ['COMMITTED', 'RESERVED'] } })).toEqual({
      errorInformation: { errorCode: '3100', errorDescription: 'Generic validation error - transferState must be one of COMMITTED, RESERVED' }
    })
  })

  test('other keywords → 3100 with ajv\'s message', () => {
    expect(answer({ keyword: 'maxItems', instancePath: '/extensionList/extension', message: 'must NOT have more than 16 items' })).toEqual({
      errorInformation: { errorCode: '3100', errorDescription: 'Generic validation error - extensionList.extension must NOT have more than 16 items' }
    })
  })

  test('path parameters and headers are named as such', () => {
    expect(answer({ keyword: 'pattern', instancePath: '/id', params: { pattern: '^a$' } }, 'params').errorInformation.errorDescription)
      .toBe('Generic validation error - path parameter id must match the pattern ^a$')
    expect(answer({ keyword: 'required', instancePath: '', params: { missingProperty: 'date' } }, 'headers').errorInformation.errorDescription)
      .toBe('Missing mandatory element - date header')
  })
})
