'use strict'

// What the notification dispatcher reports for one attempt, from what the
// attempt got back or threw.

const { callbackOutcome } = require('../../src/notification/deliver')
const { EndpointError } = require('../../src/notification/url')

const coded = (code) => Object.assign(new Error(code), { code })

test.each([
  ['a 2xx answer', 200, undefined, 'delivered'],
  ['a 202 answer', 202, undefined, 'delivered'],
  ['a 4xx answer', 404, undefined, 'http_error'],
  ['a 5xx answer', 503, undefined, 'http_error'],
  ['a 3xx answer (redirects are not followed)', 302, undefined, 'http_error'],
  ['no answer within CALLBACK_TIMEOUT_MS', null, coded('CALLBACK_TIMEOUT'), 'timeout'],
  ['a connect timeout', null, coded('UND_ERR_CONNECT_TIMEOUT'), 'timeout'],
  ['a headers timeout', null, coded('UND_ERR_HEADERS_TIMEOUT'), 'timeout'],
  ['a refused connection', null, coded('ECONNREFUSED'), 'network_error'],
  ['an unknown host', null, coded('ENOTFOUND'), 'network_error'],
  ['a reset socket', null, coded('UND_ERR_SOCKET'), 'network_error'],
  ['an abort at shutdown', null, new DOMException('aborted', 'AbortError'), 'network_error'],
  ['no endpoint registered', null, new EndpointError('participant x has no endpoint'), 'no_endpoint']
])('%s → %s', (_what, statusCode, err, outcome) => {
  expect(callbackOutcome(statusCode, err)).toBe(outcome)
})
