'use strict'

// Every error answer is an FSPIOP body, { errorInformation: { errorCode,
// errorDescription[, extensionList] } }, whatever failed: a thrown
// FspiopError, a schema violation, a body fastify could not read, an unknown
// URI or method, or a bug.

const { FspiopError, createFspiopError } = require('@switchyard/shared/errors')
const { toValidationError } = require('../validation-error')

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

/**
 * fastify's own errors (body parsing, limits) as FSPIOP errors. Mojaloop's
 * hapi answers bad JSON with 3000 and a too-large body with 2001; FSPIOP has
 * codes for both (3101 malformed syntax, 3104 too large payload).
 *
 * @param {any} err
 * @param {number} bodyLimit
 * @returns {FspiopError}
 */
function toFspiopError (err, bodyLimit) {
  if (err instanceof FspiopError) return err
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return createFspiopError('TOO_LARGE_PAYLOAD', `the body is larger than ${bodyLimit} bytes`)
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return createFspiopError('MALFORMED_SYNTAX', 'the body is not valid JSON')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return createFspiopError('MALFORMED_SYNTAX', 'the body is empty')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return createFspiopError('MALFORMED_SYNTAX', 'unsupported Content-Type')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return createFspiopError('MALFORMED_SYNTAX', 'Content-Length does not match the body')
  }
  if (Array.isArray(err.validation)) return toValidationError(err.validation, err.validationContext)
  const status = Number(err.statusCode)
  if (status >= 400 && status < 500) return createFspiopError('CLIENT_ERROR', undefined, { cause: err })
  return createFspiopError('INTERNAL_SERVER_ERROR', undefined, { cause: err })
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ bodyLimit: number }} opts
 */
async function fspiopErrors (app, { bodyLimit }) {
  app.setSchemaErrorFormatter(toValidationError)

  app.setErrorHandler(async (err, request, reply) => {
    const error = toFspiopError(err, bodyLimit)
    // A participant's mistake is its business; a bug (an error that is not
    // an FspiopError) and a broker outage are ours.
    if (error.code === '2001') request.log.error({ err }, 'unexpected error answering a request')
    else if (error.retriable) request.log.warn({ err: error.cause ?? error }, error.message)
    return reply.code(error.httpStatus).send(error.toErrorInformation())
  })

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]
    const allowed = METHODS.filter((method) => request.server.findRoute({ method, url: path }))
    if (allowed.length) {
      // Mojaloop answers a known URI with a wrong method 405 3000 and an Allow header.
      const error = createFspiopError('CLIENT_ERROR', `Method not allowed - ${request.method} ${path}`)
      return reply.code(405).header('allow', allowed.join(', ')).send(error.toErrorInformation())
    }
    const error = createFspiopError('UNKNOWN_URI', `${request.method} ${path}`)
    return reply.code(error.httpStatus).send(error.toErrorInformation())
  })
}

// Like fastify-plugin: the handlers apply to the whole app.
fspiopErrors[Symbol.for('skip-override')] = true

module.exports = { fspiopErrors, toFspiopError }
