'use strict'

const { toJob, invalidToDeadLetter, failedToDeadLetter } = require('../../src/notification/message')

const record = (value) => ({ topic: 'p.notification', partition: 2, offset: 41n, key: 'payerfsp', value, headers: { traceparent: 'tp' }, timestamp: 0, raw: null })
const valid = {
  to: 'payerfsp',
  transferId: 'b51ec534-ee48-4575-b6a9-ead2955b8069',
  endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT',
  method: 'put',
  path: '/transfers/b51ec534-ee48-4575-b6a9-ead2955b8069',
  headers: { 'FSPIOP-Source': 'payeefsp', date: 'now', ignored: null },
  body: { transferState: 'COMMITTED' }
}

test('the id names the record for good: with the Kafka cluster\'s id, whose offsets start again at 0 on a new cluster', () => {
  const { callbackIdOf } = require('../../src/notification/message')
  const here = callbackIdOf({ ...record(valid), cluster: 'Xk2c9' })
  expect(here).toBe('p.notification:2:41@Xk2c9')
  // The same topic, partition and offset on a rebuilt cluster is another record, so another callback.
  expect(callbackIdOf({ ...record(valid), cluster: 'Qw7r1' })).not.toBe(here)
  expect(toJob({ ...record(valid), cluster: 'Xk2c9' }).job.callbackId).toBe(here)
})

test('a notification becomes a job whose id is derived from the record', () => {
  expect(toJob(record(valid)).job).toEqual({
    callbackId: 'p.notification:2:41',
    participant: 'payerfsp',
    transferId: valid.transferId,
    endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT',
    method: 'PUT',
    path: valid.path,
    headers: { 'fspiop-source': 'payeefsp', date: 'now' },
    body: '{"transferState":"COMMITTED"}',
    attempts: 0,
    dueInMs: 0
  })
})

test('a string body is kept byte for byte; no body is null', () => {
  expect(toJob(record({ ...valid, body: '{ "a":1 }' })).job.body).toBe('{ "a":1 }')
  expect(toJob(record({ ...valid, body: undefined })).job.body).toBe(null)
})

test.each([
  ['not an object', 'x', /not a JSON object/],
  ['no participant', { ...valid, to: '' }, /"to"/],
  ['a transfer id longer than the column', { ...valid, transferId: 'x'.repeat(37) }, /"transferId"/],
  ['no endpoint type', { ...valid, endpointType: undefined }, /"endpointType"/],
  ['a GET', { ...valid, method: 'GET' }, /"method" must be one of POST, PUT, PATCH/],
  ['a relative path', { ...valid, path: 'transfers/1' }, /"path"/],
  ['headers as an array', { ...valid, headers: [] }, /"headers"/]
])('refuses %s', (_name, value, problem) => {
  expect(toJob(record(value)).problem).toMatch(problem)
})

test('an invalid notification is dead-lettered in the runner\'s shape with the reason', () => {
  const msg = invalidToDeadLetter(record({ to: 1 }), 'bad', 'p.notification.dlq')
  expect(msg).toEqual({
    topic: 'p.notification.dlq',
    key: 'payerfsp',
    value: { topic: 'p.notification', partition: 2, offset: '41', key: 'payerfsp', value: { to: 1 }, headers: { traceparent: 'tp' }, error: { message: 'invalid notification: bad', code: 'INVALID_NOTIFICATION', attempts: 0 } },
    headers: { traceparent: 'tp', 'x-error': 'invalid notification: bad' }
  })
})

test('a failed callback is dead-lettered with the original notification, so it can be produced again', () => {
  const { job } = toJob(record(valid))
  const msg = failedToDeadLetter({ ...job, attempts: 8, lastError: 'HTTP 503 from http://dfsp' }, 'p.notification.dlq')
  expect(msg.value).toEqual({
    callbackId: 'p.notification:2:41',
    notification: { to: 'payerfsp', transferId: valid.transferId, endpointType: valid.endpointType, method: 'PUT', path: valid.path, headers: job.headers, body: valid.body },
    error: { message: 'HTTP 503 from http://dfsp', code: 'CALLBACK_FAILED', attempts: 8 }
  })
  expect(msg.key).toBe('payerfsp')
})

test('a dead-lettered body JSON would not give back as it is stays text, so producing it again sends it byte for byte', () => {
  const text = '{\n  "errorInformation": { "errorCode": "5101", "errorDescription": "Refus\\u00e9 \\/ no" }\n}'
  const { job } = toJob(record({ ...valid, body: text }))
  const msg = failedToDeadLetter({ ...job, attempts: 8, lastError: 'HTTP 503' }, 'p.notification.dlq')
  expect(msg.value.notification.body).toBe(text)
  expect(toJob(record(msg.value.notification)).job.body).toBe(text)
})
