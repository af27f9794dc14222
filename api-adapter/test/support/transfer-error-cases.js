'use strict'

// Refused /transfers requests and the whole answer each must get. Each case
// changes one thing in a valid request. `ids`: the transfer ids involved, so
// the test can check nothing was produced for them.

const crypto = require('node:crypto')
const { versioned, transferHeaders, prepareBody, fulfilBody, errorBody } = require('./transfers')

const VERSIONS = { extension: [{ key: '1', value: '0' }, { key: '1', value: '1' }, { key: '2', value: '0' }] }
const UNACCEPTABLE = 'Unacceptable version requested - '
const SEE_LIST = '; see extensionList for the supported versions'

/**
 * A POST /transfers with changed headers and/or body.
 * @param {Record<string, string | undefined>} headers
 * @param {Record<string, unknown>} [body]
 */
function post (headers, body = {}) {
  const payload = prepareBody(body)
  return { request: { method: 'POST', url: '/transfers', headers: transferHeaders(headers), payload }, ids: [payload.transferId] }
}

/**
 * A PUT to /transfers/{id}[/error].
 * @param {string} suffix '' or '/error'
 * @param {unknown} payload
 * @param {string} [id]
 */
function put (suffix, payload, id = crypto.randomUUID()) {
  return { request: { method: 'PUT', url: `/transfers/${id}${suffix}`, headers: transferHeaders({ accept: undefined }), payload }, ids: [id] }
}

/** @param {import('@switchyard/shared/config').Config} config */
function errorCases (config) {
  const limit = config.API_BODY_LIMIT_BYTES
  const getId = crypto.randomUUID()
  return [
    // Headers: missing → 3102, malformed → 3101, unsupported version → 406 3001.
    { name: 'missing Date', ...post({ date: undefined }), status: 400, body: errorBody('3102', 'Missing mandatory element - Date header') },
    { name: 'missing FSPIOP-Source', ...post({ 'fspiop-source': undefined }), status: 400, body: errorBody('3102', 'Missing mandatory element - FSPIOP-Source header') },
    { name: 'empty FSPIOP-Source', ...post({ 'fspiop-source': '' }), status: 400, body: errorBody('3102', 'Missing mandatory element - FSPIOP-Source header') },
    { name: 'missing Content-Type', ...post({ 'content-type': undefined }), status: 400, body: errorBody('3102', 'Missing mandatory element - Content-Type header') },
    { name: 'missing Accept on POST', ...post({ accept: undefined }), status: 400, body: errorBody('3102', 'Missing mandatory element - Accept header') },
    {
      name: 'missing Accept on GET',
      request: { method: 'GET', url: `/transfers/${getId}`, headers: transferHeaders({ accept: undefined }) },
      ids: [getId],
      status: 400,
      body: errorBody('3102', 'Missing mandatory element - Accept header')
    },
    {
      name: 'missing Content-Type on GET (required on every request, with or without a body)',
      request: { method: 'GET', url: `/transfers/${getId}`, headers: transferHeaders({ 'content-type': undefined }) },
      ids: [getId],
      status: 400,
      body: errorBody('3102', 'Missing mandatory element - Content-Type header')
    },
    {
      name: 'malformed Date (not RFC 1123)',
      ...post({ date: '2026-01-05T10:00:00Z' }),
      status: 400,
      body: errorBody('3101', 'Malformed syntax - Date header must be an RFC 1123 date such as Sun, 06 Nov 1994 08:49:37 GMT')
    },
    {
      name: 'Date with the wrong weekday',
      ...post({ date: 'Sun, 05 Jan 2026 10:00:00 GMT' }),
      status: 400,
      body: errorBody('3101', 'Malformed syntax - Date header must be an RFC 1123 date such as Sun, 06 Nov 1994 08:49:37 GMT')
    },
    { name: 'FSPIOP-Source longer than 32', ...post({ 'fspiop-source': 'x'.repeat(33) }), status: 400, body: errorBody('3101', 'Malformed syntax - FSPIOP-Source header must be 1 to 32 characters') },
    {
      name: 'Accept asking for version 3.0 only',
      ...post({ accept: versioned('3.0') }),
      status: 406,
      body: errorBody('3001', `${UNACCEPTABLE}no version in the Accept header is supported${SEE_LIST}`, VERSIONS)
    },
    {
      name: 'Content-Type in version 3.0',
      ...post({ 'content-type': versioned('3.0') }),
      status: 406,
      body: errorBody('3001', `${UNACCEPTABLE}Content-Type version 3.0 is not supported${SEE_LIST}`, VERSIONS)
    },
    {
      name: 'plain application/json Content-Type (Mojaloop rejects it too)',
      ...post({ 'content-type': 'application/json' }),
      status: 400,
      body: errorBody('3101', 'Malformed syntax - Content-Type header must be application/vnd.interoperability.transfers+json;version=X.Y')
    },
    {
      name: 'Accept: */*',
      ...post({ accept: '*/*' }),
      status: 400,
      body: errorBody('3101', 'Malformed syntax - Accept header must be application/vnd.interoperability.transfers+json[;version=X[.Y]]')
    },
    // Bodies fastify cannot read.
    {
      name: 'malformed JSON',
      request: { method: 'POST', url: '/transfers', headers: transferHeaders(), payload: '{"transferId": "' },
      status: 400,
      body: errorBody('3101', 'Malformed syntax - the body is not valid JSON')
    },
    {
      name: 'body larger than API_BODY_LIMIT_BYTES',
      ...post({}, { ilpPacket: 'A'.repeat(limit) }),
      status: 400,
      body: errorBody('3104', `Too large payload - the body is larger than ${limit} bytes`)
    },
    // Body schema: missing → 3102, wrong type → 3101, pattern and the rest → 3100, unknown property → 3103.
    { name: 'missing transferId', ...post({}, { transferId: undefined }), status: 400, body: errorBody('3102', 'Missing mandatory element - transferId') },
    { name: 'missing amount', ...post({}, { amount: undefined }), status: 400, body: errorBody('3102', 'Missing mandatory element - amount') },
    { name: 'missing amount.currency', ...post({}, { amount: { amount: '1' } }), status: 400, body: errorBody('3102', 'Missing mandatory element - amount.currency') },
    ...['not-a-uuid', crypto.randomUUID().toUpperCase()].map((transferId) => ({
      name: `bad transferId ${transferId}`,
      ...post({}, { transferId }),
      status: 400,
      body: errorBody('3100', 'Generic validation error - transferId must be a valid CorrelationId: lowercase UUID (RFC 4122/9562) or uppercase ULID')
    })),
    {
      name: 'condition of 42 characters',
      ...post({}, { condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAf' }),
      status: 400,
      body: errorBody('3100', 'Generic validation error - condition must match the IlpCondition pattern ^[A-Za-z0-9-_]{43}$')
    },
    {
      name: 'amount 10.123 in USD (more decimals than the currency)',
      ...post({}, { amount: { amount: '10.123', currency: 'USD' } }),
      status: 400,
      body: errorBody('3100', 'Generic validation error - amount has more decimals than USD allows (2)')
    },
    {
      name: 'amount 10.10 (trailing zero)',
      ...post({}, { amount: { amount: '10.10', currency: 'USD' } }),
      status: 400,
      body: errorBody('3100', 'Generic validation error - amount.amount must match the Amount pattern ^([0]|([1-9][0-9]{0,17}))([.][0-9]{0,3}[1-9])?$')
    },
    {
      name: 'unknown currency',
      ...post({}, { amount: { amount: '10', currency: 'XYZ' } }),
      status: 400,
      body: errorBody('3100', 'Generic validation error - amount.currency XYZ is not an ISO 4217 currency')
    },
    { name: 'amount as a number', ...post({}, { amount: { amount: 10, currency: 'USD' } }), status: 400, body: errorBody('3101', 'Malformed syntax - amount.amount must be string') },
    {
      name: 'expiration without milliseconds',
      ...post({}, { expiration: '2030-01-01T00:00:00Z' }),
      status: 400,
      body: errorBody('3100', 'Generic validation error - expiration must be a valid DateTime: yyyy-MM-ddTHH:mm:ss.SSS plus Z or ±HH:MM')
    },
    {
      // Valid on the wire, but in UTC it is the year 10000, which the ledger cannot store.
      name: 'expiration past what the ledger holds',
      ...post({}, { expiration: '9999-12-31T23:59:59.999-19:59' }),
      status: 400,
      body: errorBody('3100', 'Generic validation error - expiration 9999-12-31T23:59:59.999-19:59 is after 9999-12-31T23:59:59.999Z')
    },
    { name: 'a property FSPIOP does not have', ...post({}, { note: 'hi' }), status: 400, body: errorBody('3103', 'Too many elements - note is not allowed') },
    // PUT /transfers/{id} and /error.
    {
      name: 'PUT with an invalid path id',
      ...put('', fulfilBody(), 'abc'),
      status: 400,
      body: errorBody('3100', 'Generic validation error - path parameter id must be a valid CorrelationId: lowercase UUID (RFC 4122/9562) or uppercase ULID')
    },
    { name: 'PUT without fulfilment', ...put('', fulfilBody({ fulfilment: undefined })), status: 400, body: errorBody('3102', 'Missing mandatory element - fulfilment') },
    {
      name: 'PUT with a completedTimestamp past what the ledger holds',
      ...put('', fulfilBody({ completedTimestamp: '9999-12-31T23:59:59.999-00:01' })),
      status: 400,
      body: errorBody('3100', 'Generic validation error - completedTimestamp 9999-12-31T23:59:59.999-00:01 is after 9999-12-31T23:59:59.999Z')
    },
    {
      name: 'PUT with transferState ABORTED (a rejection is PUT .../error)',
      ...put('', fulfilBody({ transferState: 'ABORTED' })),
      status: 400,
      body: errorBody('3100', 'Generic validation error - transferState must be one of COMMITTED, RESERVED')
    },
    {
      name: 'PUT .../error with a code FSPIOP does not have',
      ...put('/error', errorBody('9999', 'Made up')),
      status: 400,
      body: errorBody('3100', 'Generic validation error - errorInformation.errorCode 9999 is not an FSPIOP error code')
    },
    {
      name: 'PUT .../error with a description over 128 characters',
      ...put('/error', errorBody('5100', 'x'.repeat(129))),
      status: 400,
      body: errorBody('3100', 'Generic validation error - errorInformation.errorDescription must NOT have more than 128 characters')
    },
    // URIs and methods.
    {
      name: 'unknown route',
      request: { method: 'POST', url: '/transferz?x=1', headers: transferHeaders(), payload: prepareBody() },
      status: 404,
      body: errorBody('3002', 'Unknown URI - POST /transferz')
    },
    {
      name: 'a method the URI does not have (405 with Allow, as Mojaloop)',
      request: { method: 'DELETE', url: `/transfers/${getId}`, headers: transferHeaders() },
      status: 405,
      headers: { allow: 'GET, PUT, PATCH' },
      body: errorBody('3000', `Generic client error - Method not allowed - DELETE /transfers/${getId}`)
    }
  ]
}

module.exports = { errorCases }
