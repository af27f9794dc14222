'use strict'

const fs = require('node:fs')
const path = require('node:path')
const {
  ERROR_CATALOG,
  findErrorEntry,
  FspiopError,
  createFspiopError,
  isFspiopCode,
  fromErrorInformation
} = require('../../src/errors')

const DOC_FILE = path.join(__dirname, '..', '..', '..', 'docs', 'errors.md')

// The codes of the FSPIOP API Definition v1.1 plus Mojaloop's 3040.
const EXPECTED_CODES = [
  '1000', '1001',
  '2000', '2001', '2002', '2003', '2004', '2005',
  '3000', '3001', '3002', '3003', '3040',
  '3100', '3101', '3102', '3103', '3104', '3105', '3106', '3107',
  '3200', '3201', '3202', '3203', '3204', '3205', '3206', '3207', '3208', '3209', '3210',
  '3300', '3301', '3302', '3303',
  '4000', '4001', '4100', '4101', '4102', '4103', '4200', '4300', '4400',
  '5000', '5001', '5100', '5101', '5102', '5103', '5104', '5105', '5106', '5200', '5300', '5400'
]

/** Rows of the markdown table between the markers, as catalog entries. */
function readDocTable () {
  const doc = fs.readFileSync(DOC_FILE, 'utf8')
  const between = doc.split('<!-- errors:start -->')[1].split('<!-- errors:end -->')[0]
  const lines = between.split('\n').filter((line) => line.startsWith('|'))
  expect(lines.slice(0, 2)).toEqual(['| Code | Key | Description | HTTP status |', '| --- | --- | --- | --- |'])
  return lines.slice(2).map((line) => {
    const [code, key, description, httpStatus] = line.slice(1, -1).split('|').map((cell) => cell.trim())
    return { code, key, description, httpStatus: Number(httpStatus) }
  })
}

describe('catalog', () => {
  it('has exactly the FSPIOP codes, in order', () => {
    expect(ERROR_CATALOG.map((e) => e.code)).toEqual(EXPECTED_CODES)
  })

  it('has unique codes and unique keys', () => {
    expect(new Set(ERROR_CATALOG.map((e) => e.code)).size).toBe(ERROR_CATALOG.length)
    expect(new Set(ERROR_CATALOG.map((e) => e.key)).size).toBe(ERROR_CATALOG.length)
  })

  it('has well-formed entries', () => {
    for (const entry of ERROR_CATALOG) {
      expect(Object.keys(entry)).toEqual(['code', 'key', 'description', 'httpStatus'])
      expect(entry.code).toMatch(/^[1-5][0-9]{3}$/)
      expect(entry.key).toMatch(/^[A-Z][A-Z0-9_]*$/)
      expect(entry.description.length).toBeGreaterThan(0)
      expect(entry.description).not.toContain('|')
      expect([400, 404, 406, 500, 501, 503]).toContain(entry.httpStatus)
    }
  })

  it.each([
    ['1000', 503], ['2001', 500], ['2002', 501], ['2003', 503], ['3000', 400], ['3001', 406],
    ['3002', 404], ['3101', 400], ['3104', 400], ['3106', 400], ['3201', 400], ['3208', 404],
    ['3303', 400], ['4001', 400], ['4200', 400], ['5104', 400]
  ])('answers %s synchronously with HTTP %i', (code, status) => {
    expect(findErrorEntry(code)?.httpStatus).toBe(status)
  })

  it('is frozen', () => {
    expect(Object.isFrozen(ERROR_CATALOG)).toBe(true)
    expect(Object.isFrozen(ERROR_CATALOG[0])).toBe(true)
  })

  it('finds an entry by code or by key, nothing else', () => {
    const malformed = { code: '3101', key: 'MALFORMED_SYNTAX', description: 'Malformed syntax', httpStatus: 400 }
    expect(findErrorEntry('3101')).toEqual(malformed)
    expect(findErrorEntry('MALFORMED_SYNTAX')).toEqual(malformed)
    expect(findErrorEntry('3999')).toBeUndefined()
    expect(findErrorEntry('malformed_syntax')).toBeUndefined()
    expect(findErrorEntry('constructor')).toBeUndefined()
  })
})

describe('docs/errors.md', () => {
  const docRows = readDocTable()

  it('lists every catalog entry exactly', () => {
    for (const entry of ERROR_CATALOG) expect(docRows).toContainEqual({ ...entry })
  })

  it('lists nothing that is not in the catalog', () => {
    for (const row of docRows) expect(ERROR_CATALOG).toContainEqual(row)
  })

  it('matches the catalog row for row (run `node scripts/docs-errors.js --write` after a change)', () => {
    expect(docRows).toEqual(ERROR_CATALOG.map((entry) => ({ ...entry })))
  })
})

describe('createFspiopError', () => {
  it('builds an error from a code, with the catalog fields', () => {
    const error = createFspiopError('3101')
    expect(error).toBeInstanceOf(FspiopError)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({
      name: 'FspiopError',
      message: 'Malformed syntax',
      code: '3101',
      key: 'MALFORMED_SYNTAX',
      description: 'Malformed syntax',
      httpStatus: 400,
      retriable: false,
      extensionList: undefined
    })
    expect(error.stack).toContain('FspiopError: Malformed syntax')
  })

  it('builds the same error from the key', () => {
    expect(createFspiopError('MALFORMED_SYNTAX').toErrorInformation())
      .toStrictEqual(createFspiopError('3101').toErrorInformation())
  })

  it('appends a detail to the description, Mojaloop style', () => {
    const error = createFspiopError('MALFORMED_SYNTAX', 'amount.amount must match the Amount pattern')
    expect(error.message).toBe('Malformed syntax - amount.amount must match the Amount pattern')
    expect(error.toErrorInformation()).toStrictEqual({
      errorInformation: {
        errorCode: '3101',
        errorDescription: 'Malformed syntax - amount.amount must match the Amount pattern'
      }
    })
  })

  it('carries an extension list and a cause', () => {
    const cause = new Error('connect ECONNREFUSED')
    const extensionList = { extension: [{ key: 'field', value: 'payeeFsp' }] }
    const error = createFspiopError('3201', 'payeefsp "dfsp9" is not registered', { extensionList, cause })
    expect(error.cause).toBe(cause)
    expect(error.toErrorInformation()).toStrictEqual({
      errorInformation: {
        errorCode: '3201',
        errorDescription: 'Destination FSP Error - payeefsp "dfsp9" is not registered',
        extensionList: { extension: [{ key: 'field', value: 'payeeFsp' }] }
      }
    })
  })

  it('has no cause property unless one is given', () => {
    expect('cause' in createFspiopError('2001')).toBe(false)
  })

  it('cuts the wire description to 128 characters but keeps the whole message', () => {
    const error = createFspiopError('3100', 'x'.repeat(200))
    expect(error.message).toHaveLength('Generic validation error - '.length + 200)
    expect(error.toErrorInformation().errorInformation.errorDescription).toBe(error.message.slice(0, 128))
  })

  it.each([
    ['1000', true], ['1001', true], ['2000', false], ['2001', false], ['2002', false],
    ['2003', true], ['2004', true], ['2005', true], ['3101', false], ['4001', false], ['5000', false]
  ])('makes %s retriable: %s', (code, retriable) => {
    expect(createFspiopError(code).retriable).toBe(retriable)
  })

  it('lets the caller override retriable', () => {
    expect(createFspiopError('2001', 'deadlock', { retriable: true }).retriable).toBe(true)
    expect(createFspiopError('2003', undefined, { retriable: false }).retriable).toBe(false)
  })

  it.each(['9999', '3999', 'NOT_A_KEY', '', 'malformed_syntax'])('throws on unknown %j (a bug, not a client error)', (codeOrKey) => {
    expect(() => createFspiopError(codeOrKey)).toThrow(RangeError)
    expect(() => createFspiopError(codeOrKey)).toThrow(/Unknown FSPIOP error code or key/)
  })
})

describe('isFspiopCode', () => {
  it.each([
    ['3101', true], ['5400', true], ['3040', true], ['3999', false], ['5107', false],
    ['MALFORMED_SYNTAX', false], ['310', false], [3101, false], [undefined, false]
  ])('isFspiopCode(%p) is %s', (code, expected) => {
    expect(isFspiopCode(code)).toBe(expected)
  })
})

describe('fromErrorInformation', () => {
  it('passes a payee error through unchanged', () => {
    const body = {
      errorInformation: {
        errorCode: '5104',
        errorDescription: 'Customer account is closed',
        extensionList: { extension: [{ key: 'reason', value: 'CLOSED' }] }
      }
    }
    const error = fromErrorInformation(body)
    expect(error).toMatchObject({ code: '5104', key: 'PAYEE_REJECTED_TXN', httpStatus: 400, retriable: false })
    expect(error.toErrorInformation()).toStrictEqual(body)
  })

  it('accepts the errorInformation object itself', () => {
    const info = { errorCode: '5001', errorDescription: 'Payee FSP insufficient liquidity' }
    expect(fromErrorInformation(info).toErrorInformation()).toStrictEqual({ errorInformation: info })
  })

  it('keeps a code outside the catalog whose category is known', () => {
    const body = { errorInformation: { errorCode: '5107', errorDescription: 'Payee identifier no longer valid' } }
    const error = fromErrorInformation(body)
    expect(error).toMatchObject({ code: '5107', key: 'PAYEE_REJECTION', description: 'Generic Payee rejection' })
    expect(error.toErrorInformation()).toStrictEqual(body)
  })

  it('is never retriable, whatever the code', () => {
    expect(fromErrorInformation({ errorCode: '2003', errorDescription: 'Down' }).retriable).toBe(false)
  })

  it('falls back to the catalog description when the participant sent none', () => {
    expect(fromErrorInformation({ errorInformation: { errorCode: '5100', errorDescription: '' } }).toErrorInformation())
      .toStrictEqual({ errorInformation: { errorCode: '5100', errorDescription: 'Generic Payee rejection' } })
  })

  it.each([
    ['an unknown category', { errorInformation: { errorCode: '3999', errorDescription: 'x' } }],
    ['a six-digit code', { errorInformation: { errorCode: '510400', errorDescription: 'x' } }],
    ['a numeric code', { errorInformation: { errorCode: 5104, errorDescription: 'x' } }],
    ['no code', { errorInformation: { errorDescription: 'x' } }],
    ['null', null],
    ['a string', '5104']
  ])('answers %s with 3101', (_, body) => {
    let thrown
    try {
      fromErrorInformation(/** @type {any} */ (body))
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(FspiopError)
    expect(thrown.code).toBe('3101')
    expect(thrown.message).toMatch(/^Malformed syntax - errorInformation.errorCode .* is not an FSPIOP error code$/)
  })
})
