'use strict'

const {
  parseAccept, parseContentType, negotiateVersion, toVersionExtensionList, SUPPORTED_VERSIONS
} = require('../../../src/headers/media-type')

const T = 'application/vnd.interoperability.transfers+json'

describe('parseAccept', () => {
  test.each([
    [T, [{ major: null, minor: null }]],
    [`${T};version=1`, [{ major: 1, minor: null }]],
    [`${T};version=1.1`, [{ major: 1, minor: 1 }]],
    [`${T} ; version=2.0`, [{ major: 2, minor: 0 }]],
    [`${T};version=1.0,${T};version=2.0`, [{ major: 1, minor: 0 }, { major: 2, minor: 0 }]],
    [`${T};version=1.0, ${T};version=2.0`, [{ major: 1, minor: 0 }, { major: 2, minor: 0 }]],
    ['Application/Vnd.Interoperability.Transfers+JSON;Version=1.1', [{ major: 1, minor: 1 }]]
  ])('%s', (header, ranges) => {
    expect(parseAccept('transfers', header)).toEqual(ranges)
  })

  test.each([
    'application/json',
    '*/*',
    'application/vnd.interoperability.quotes+json;version=1.1',
    `${T};version=`,
    `${T};version=1.1.1`,
    `${T};charset=utf-8`,
    `${T};version=1.1,application/json`,
    ''
  ])('rejects %j', (header) => {
    expect(parseAccept('transfers', header)).toBeNull()
  })
})

describe('parseContentType', () => {
  test.each([
    [`${T};version=1.1`, '1.1'],
    [`${T}; version=2.0`, '2.0'],
    [`${T};version=3.0`, '3.0'],
    [`${T};version=01.1`, '1.1']
  ])('%s → %s', (header, version) => {
    expect(parseContentType('transfers', header)).toBe(version)
  })

  test.each([
    'application/json',
    T,
    `${T};version=1`,
    `${T};version=1.1,${T};version=2.0`,
    `${T};version=1.1;charset=utf-8`
  ])('rejects %j', (header) => {
    expect(parseContentType('transfers', header)).toBeNull()
  })
})

describe('negotiateVersion', () => {
  const v = (/** @type {string} */ header) => negotiateVersion(parseAccept('transfers', header))

  test('no version: the highest supported', () => expect(v(T)).toBe('2.0'))
  test('a major version: its highest minor', () => expect(v(`${T};version=1`)).toBe('1.1'))
  test('an exact version', () => expect(v(`${T};version=1.0`)).toBe('1.0'))
  test('several: the highest supported among them', () => {
    expect(v(`${T};version=1.0,${T};version=1.1,${T};version=3.0`)).toBe('1.1')
  })
  test('none supported: undefined', () => {
    expect(v(`${T};version=3.0`)).toBeUndefined()
    expect(v(`${T};version=1.2`)).toBeUndefined()
    expect(v(`${T};version=3`)).toBeUndefined()
  })
  test('against another list of supported versions', () => {
    expect(negotiateVersion([{ major: null, minor: null }], ['1.0', '1.1'])).toBe('1.1')
  })
})

test('toVersionExtensionList: key = major, value = minor, as FSPIOP and Mojaloop send with 3001', () => {
  expect(SUPPORTED_VERSIONS).toEqual(['1.0', '1.1', '2.0'])
  expect(toVersionExtensionList()).toEqual({
    extension: [{ key: '1', value: '0' }, { key: '1', value: '1' }, { key: '2', value: '0' }]
  })
})
