'use strict'

const { toTransferCommand, pickHeaders, FORWARDED_HEADERS } = require('../../src/commands')

const config = /** @type {any} */ ({ KAFKA_TOPIC_PREFIX: 'sy.' })
const headers = {
  'content-type': 'application/vnd.interoperability.transfers+json;version=1.1',
  accept: 'application/vnd.interoperability.transfers+json;version=1',
  date: 'Sun, 06 Nov 1994 08:49:37 GMT',
  'fspiop-source': 'payerfsp',
  'fspiop-destination': 'payeefsp',
  'fspiop-signature': '{"signature":"x"}',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  host: 'localhost',
  'user-agent': 'curl',
  'content-length': '123'
}
const fspiop = {
  'content-type': headers['content-type'],
  accept: headers.accept,
  date: headers.date,
  'fspiop-source': 'payerfsp',
  'fspiop-destination': 'payeefsp',
  'fspiop-signature': '{"signature":"x"}',
  traceparent: headers.traceparent
}

test('a prepare goes to the prepare topic, keyed by transferId, with the FSPIOP headers and trace context', () => {
  const payload = { transferId: 't1', amount: { amount: '1', currency: 'USD' } }
  expect(toTransferCommand(config, 'prepare', { transferId: 't1', headers, payload })).toEqual({
    topic: 'sy.transfer-prepare',
    key: 't1',
    value: { type: 'prepare', transferId: 't1', headers: fspiop, payload },
    headers: { traceparent: headers.traceparent }
  })
})

test.each(['fulfil', 'error'])('%s goes to the fulfil topic with its payload', (type) => {
  const command = toTransferCommand(config, /** @type {any} */ (type), { transferId: 't2', headers, payload: { a: 1 } })
  expect(command.topic).toBe('sy.transfer-fulfil')
  expect(command.key).toBe('t2')
  expect(command.value).toEqual({ type, transferId: 't2', headers: fspiop, payload: { a: 1 } })
})

test('a get goes to the fulfil topic without a payload', () => {
  expect(toTransferCommand(config, 'get', { transferId: 't3', headers: { date: 'd', 'fspiop-source': 'p' } })).toEqual({
    topic: 'sy.transfer-fulfil',
    key: 't3',
    value: { type: 'get', transferId: 't3', headers: { date: 'd', 'fspiop-source': 'p' } },
    headers: {}
  })
})

test('pickHeaders keeps only the named headers that are present, joining repeated ones', () => {
  expect(pickHeaders({ a: '1', b: ['2', '3'], c: undefined, d: '4' }, ['a', 'b', 'c'])).toEqual({ a: '1', b: '2, 3' })
  expect(FORWARDED_HEADERS).toEqual(expect.arrayContaining(['fspiop-uri', 'fspiop-http-method', 'fspiop-encryption', 'tracestate']))
})

describe('the body as sent', () => {
  const payload = { transferId: 't1', amount: { amount: '1', currency: 'USD' }, note: 'café / ok' }

  test('a compact body, which JSON.stringify gives back, adds nothing to the command', () => {
    const command = toTransferCommand(config, 'prepare', { transferId: 't1', headers, payload, text: JSON.stringify(payload) })
    expect(Object.keys(command.value)).toEqual(['type', 'transferId', 'headers', 'payload'])
  })

  test.each([
    ['spacing', JSON.stringify(payload, null, 2)],
    ['\\u escapes', '{"transferId":"t1","amount":{"amount":"1","currency":"USD"},"note":"caf\\u00e9 / ok"}'],
    ['escaped slashes', '{"transferId":"t1","amount":{"amount":"1","currency":"USD"},"note":"café \\/ ok"}']
  ])('a body with %s goes with its text, to be forwarded as sent', (_name, text) => {
    expect(JSON.parse(text)).toEqual(payload)
    const command = toTransferCommand(config, 'fulfil', { transferId: 't1', headers, payload, text })
    expect(command.value).toEqual({ type: 'fulfil', transferId: 't1', headers: fspiop, payload, raw: text })
  })

  test('a GET has no body to keep', () => {
    expect(toTransferCommand(config, 'get', { transferId: 't3', headers, text: '' }).value).not.toHaveProperty('raw')
  })
})

describe('the version to answer in', () => {
  test('1.1, the version a command leaves unsaid, adds nothing', () => {
    expect(toTransferCommand(config, 'get', { transferId: 't3', headers, version: '1.1' }).value).not.toHaveProperty('version')
  })

  test.each(['1.0', '2.0'])('%s goes with the command', (version) => {
    expect(toTransferCommand(config, 'get', { transferId: 't3', headers, version }).value).toEqual({ type: 'get', transferId: 't3', headers: fspiop, version })
  })
})
