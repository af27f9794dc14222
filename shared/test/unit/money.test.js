'use strict'

const {
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
} = require('../../src/money')

const MAX_API_AMOUNT = '999999999999999999.9999'

describe('constants', () => {
  it('counts in units of 0.0001 and bounds the ledger to DECIMAL(18,4)', () => {
    expect(LEDGER_SCALE).toBe(4)
    expect(LEDGER_MAX).toBe(999999999999999999n)
    expect(AMOUNT_PATTERN.source).toBe('^([0]|([1-9][0-9]{0,17}))([.][0-9]{0,3}[1-9])?$')
  })
})

describe('isValidAmount', () => {
  it.each([
    '0', '1', '0.1', '0.0001', '100.5', '10.25', '123.4567', '5.0005',
    '999999999999999999', MAX_API_AMOUNT
  ])('accepts %j', (amount) => {
    expect(isValidAmount(amount)).toBe(true)
  })

  it.each([
    ['trailing zero', '100.50'],
    ['DB form', '100.5000'],
    ['zero with decimals', '0.0'],
    ['trailing point', '100.'],
    ['leading point', '.5'],
    ['leading zero', '01'],
    ['negative', '-1'],
    ['plus sign', '+1'],
    ['five decimals', '1.00001'],
    ['19 integer digits', '1000000000000000000'],
    ['exponent', '1e5'],
    ['comma', '1,5'],
    ['space', ' 1'],
    ['empty', ''],
    ['a number', 1],
    ['a bigint', 1n],
    ['null', null]
  ])('rejects %s (%p)', (_, amount) => {
    expect(isValidAmount(amount)).toBe(false)
  })
})

describe('currencyScale and isKnownCurrency', () => {
  it.each([
    ['USD', 2], ['EUR', 2], ['KES', 2], ['JPY', 0], ['KRW', 0], ['XOF', 0], ['XAF', 0],
    ['UGX', 0], ['RWF', 0], ['KWD', 3], ['BHD', 3], ['JOD', 3], ['OMR', 3], ['TND', 3],
    ['IQD', 3], ['LYD', 3], ['CLF', 4], ['UYW', 4], ['ZWG', 2], ['XCG', 2], ['SLE', 2]
  ])('%s has %i decimals', (code, scale) => {
    expect(currencyScale(code)).toBe(scale)
    expect(isKnownCurrency(code)).toBe(true)
  })

  it.each([
    ['lower case', 'usd'], ['made up', 'ABC'], ['withdrawn', 'HRK'], ['withdrawn', 'ZWL'],
    ['no minor unit', 'XAU'], ['no minor unit', 'XDR'], ['test code', 'XTS'],
    ['prototype key', 'constructor'], ['prototype key', '__proto__'], ['empty', '']
  ])('%s code %j is unknown', (_, code) => {
    expect(currencyScale(code)).toBeUndefined()
    expect(isKnownCurrency(code)).toBe(false)
  })
})

describe('fitsCurrency', () => {
  it.each([
    ['10', 'USD', true],
    ['10.1', 'USD', true],
    ['10.12', 'USD', true],
    ['10.123', 'USD', false],
    ['10.1200', 'USD', true],
    ['10.1230', 'USD', false],
    ['10', 'JPY', true],
    ['10.0000', 'JPY', true],
    ['10.5', 'JPY', false],
    ['10.123', 'KWD', true],
    ['10.1234', 'KWD', false],
    ['10.1234', 'CLF', true],
    ['-10.12', 'USD', true],
    ['10', 'ABC', false],
    ['10.1', 'usd', false],
    ['abc', 'USD', false],
    ['10.12345', 'CLF', false]
  ])('fitsCurrency(%j, %j) is %s', (amount, currency, expected) => {
    expect(fitsCurrency(amount, currency)).toBe(expected)
  })

  it.each([
    [101200n, 'USD', true],
    [101230n, 'USD', false],
    [100000n, 'JPY', true],
    [100001n, 'JPY', false],
    [-55n, 'KWD', false],
    [-50n, 'KWD', true],
    [1n, 'CLF', true],
    [1n, 'ABC', false]
  ])('fitsCurrency(%p units, %j) is %s', (units, currency, expected) => {
    expect(fitsCurrency(units, currency)).toBe(expected)
  })
})

describe('parseAmount', () => {
  it.each([
    ['0', 0n],
    ['0.0000', 0n],
    ['-0.0000', 0n],
    ['1', 10000n],
    ['0.0001', 1n],
    ['100.5', 1005000n],
    ['100.5000', 1005000n],
    ['100.50', 1005000n],
    ['-12.3400', -123400n],
    ['-0.0001', -1n],
    ['123.4567', 1234567n],
    ['99999999999999.9999', LEDGER_MAX],
    ['-99999999999999.9999', -LEDGER_MAX],
    [MAX_API_AMOUNT, 9999999999999999999999n]
  ])('parses %j to %p units', (str, units) => {
    expect(parseAmount(str)).toBe(units)
  })

  it.each([
    ['a number', 10.5, /decimal string, got number/],
    ['a bigint', 10n, /decimal string, got bigint/],
    ['undefined', undefined, /decimal string, got undefined/],
    ['five decimals', '1.00001', /more than 4 decimals/],
    ['five decimals, all zero', '1.00000', /more than 4 decimals/],
    ['a float artefact', '0.30000000000000004', /more than 4 decimals/],
    ['19 integer digits', '1000000000000000000', /at most 18 integer digits/],
    ['empty', '', /is not a decimal/],
    ['exponent', '1e5', /is not a decimal/],
    ['exponent with point', '1.5E+3', /is not a decimal/],
    ['trailing point', '1.', /is not a decimal/],
    ['leading point', '.5', /is not a decimal/],
    ['leading zero', '007', /is not a decimal/],
    ['plus sign', '+1', /is not a decimal/],
    ['whitespace', ' 1 ', /is not a decimal/],
    ['Infinity', 'Infinity', /is not a decimal/],
    ['NaN', 'NaN', /is not a decimal/],
    ['hex', '0x10', /is not a decimal/],
    ['thousands separator', '1,000', /is not a decimal/]
  ])('rejects %s with a RangeError', (_, input, message) => {
    expect(() => parseAmount(input)).toThrow(RangeError)
    expect(() => parseAmount(input)).toThrow(message)
  })
})

describe('formatAmount', () => {
  it.each([
    [0n, '0'],
    [1n, '0.0001'],
    [10n, '0.001'],
    [10000n, '1'],
    [1005000n, '100.5'],
    [1234567n, '123.4567'],
    [-123400n, '-12.34'],
    [-1n, '-0.0001'],
    [LEDGER_MAX, '99999999999999.9999'],
    [9999999999999999999999n, MAX_API_AMOUNT]
  ])('formats %p units as %j', (units, str) => {
    expect(formatAmount(units)).toBe(str)
  })

  it('refuses anything but a bigint', () => {
    expect(() => formatAmount(100.5)).toThrow(TypeError)
  })
})

describe('toDbDecimal', () => {
  it.each([
    [0n, '0.0000'],
    [1n, '0.0001'],
    [1005000n, '100.5000'],
    [-123400n, '-12.3400'],
    [LEDGER_MAX, '99999999999999.9999'],
    [-LEDGER_MAX, '-99999999999999.9999']
  ])('writes %p units as %j', (units, str) => {
    expect(toDbDecimal(units)).toBe(str)
  })

  it.each([LEDGER_MAX + 1n, -LEDGER_MAX - 1n, 9999999999999999999999n])('refuses %p units: too large for DECIMAL(18,4)', (units) => {
    expect(() => toDbDecimal(units)).toThrow(RangeError)
    expect(() => toDbDecimal(units)).toThrow(/does not fit DECIMAL\(18,4\)/)
  })

  it('refuses anything but a bigint', () => {
    expect(() => toDbDecimal('100.5')).toThrow(TypeError)
  })
})

describe('round trips', () => {
  it.each([
    '0', '1', '0.0001', '0.001', '0.01', '0.1', '100.5', '10.25', '123.4567', '5.0005',
    '1000000', '99999999999999.9999', '100000000000000', MAX_API_AMOUNT
  ])('formatAmount(parseAmount(%j)) gives it back', (str) => {
    expect(formatAmount(parseAmount(str))).toBe(str)
  })

  // A seeded generator (mulberry32) so a failure reproduces; values spread
  // over every length from 1 to 22 digits, both signs.
  function createRandom (seed) {
    let state = seed
    return () => {
      state = (state + 0x6d2b79f5) | 0
      let t = Math.imul(state ^ (state >>> 15), 1 | state)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
  }

  function randomUnits (random, maxDigits) {
    const length = 1 + Math.floor(random() * maxDigits)
    let digits = ''
    for (let i = 0; i < length; i++) digits += Math.floor(random() * 10)
    const units = BigInt(digits)
    return random() < 0.5 ? -units : units
  }

  it('holds for 2,000 random values', () => {
    const random = createRandom(20240611)
    for (let i = 0; i < 2000; i++) {
      const units = randomUnits(random, 22)
      const api = formatAmount(units)
      expect(parseAmount(api)).toBe(units)
      if (units >= 0n) expect(api).toMatch(AMOUNT_PATTERN)
      if (units <= LEDGER_MAX && units >= -LEDGER_MAX) {
        const db = toDbDecimal(units)
        expect(db).toMatch(/^-?(0|[1-9][0-9]{0,13})\.[0-9]{4}$/)
        expect(parseAmount(db)).toBe(units)
      } else {
        expect(() => toDbDecimal(units)).toThrow(RangeError)
      }
    }
  })
})
