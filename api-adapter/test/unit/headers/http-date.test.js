'use strict'

const { isHttpDate } = require('../../../src/headers/http-date')

describe('isHttpDate', () => {
  test.each([
    'Sun, 06 Nov 1994 08:49:37 GMT',
    'Thu, 29 Feb 2024 23:59:59 GMT',
    'Sat, 01 Jan 2000 00:00:00 GMT'
  ])('accepts %s', (value) => {
    expect(isHttpDate(value)).toBe(true)
  })

  test('accepts what Date#toUTCString writes', () => {
    expect(isHttpDate(new Date(0).toUTCString())).toBe(true)
  })

  test.each([
    ['RFC 850', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['asctime', 'Sun Nov  6 08:49:37 1994'],
    ['ISO 8601', '1994-11-06T08:49:37Z'],
    ['another zone', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['single-digit day', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['lower-case month', 'Sun, 06 nov 1994 08:49:37 GMT'],
    ['wrong weekday', 'Mon, 06 Nov 1994 08:49:37 GMT'],
    ['a day that does not exist', 'Sat, 30 Feb 2019 08:49:37 GMT'],
    ['hour 24', 'Sun, 06 Nov 1994 24:00:00 GMT'],
    ['trailing space', 'Sun, 06 Nov 1994 08:49:37 GMT '],
    ['empty', ''],
    ['not a string', 784111777000]
  ])('rejects %s', (_name, value) => {
    expect(isHttpDate(value)).toBe(false)
  })
})
