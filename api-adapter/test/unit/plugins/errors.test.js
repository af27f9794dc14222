'use strict'

const { toFspiopError } = require('../../../src/plugins/errors')
const { createFspiopError } = require('@switchyard/shared/errors')

/** What fastify's errors become, as the participant sees them. */
const answer = (/** @type {object} */ err) => {
  const error = toFspiopError(err, 65536)
  return { status: error.httpStatus, ...error.toErrorInformation() }
}
const fastifyError = (/** @type {string} */ code, /** @type {number} */ statusCode) => Object.assign(new Error(code), { code, statusCode })

test('an FspiopError passes through unchanged', () => {
  const err = createFspiopError('TRANSFER_EXPIRED')
  expect(toFspiopError(err, 1)).toBe(err)
})

test.each([
  ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 400, '3104', 'Too large payload - the body is larger than 65536 bytes'],
  ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 400, '3101', 'Malformed syntax - the body is not valid JSON'],
  ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 400, '3101', 'Malformed syntax - the body is empty'],
  ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 400, '3101', 'Malformed syntax - unsupported Content-Type'],
  ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 400, '3101', 'Malformed syntax - Content-Length does not match the body'],
  ['FST_ERR_SOMETHING_ELSE', 400, 400, '3000', 'Generic client error']
])('%s → %s %s', (code, statusCode, status, errorCode, errorDescription) => {
  expect(answer(fastifyError(code, statusCode))).toEqual({ status, errorInformation: { errorCode, errorDescription } })
})

test('a schema error fastify did not format goes through the same mapping', () => {
  const err = Object.assign(new Error('x'), {
    validation: [{ keyword: 'required', instancePath: '', params: { missingProperty: 'amount' } }],
    validationContext: 'body'
  })
  expect(answer(err)).toEqual({ status: 400, errorInformation: { errorCode: '3102', errorDescription: 'Missing mandatory element - amount' } })
})

test('anything else is a bug: 500 2001, with no detail for the participant', () => {
  expect(answer(new TypeError('cannot read properties of undefined'))).toEqual({
    status: 500, errorInformation: { errorCode: '2001', errorDescription: 'Internal server error' }
  })
})
