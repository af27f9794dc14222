'use strict'

// Every admin error is an FSPIOP errorInformation body (DESIGN.md rule 10).
// Schema failures are coded as the participant API codes them (after
// Mojaloop's ml-api-adapter): required 3102, additionalProperties 3103,
// type 3101, any other rule (pattern, format, enum, length) 3100.
// Codes the admin API answers with:
//   3100 validation (the rules above, and rules beyond the schema)
//   3101 malformed syntax (wrong JSON type, invalid JSON), 3102 missing, 3103 unknown property
//   3000 a request that conflicts with what exists (duplicate, already set, inactive,
//        missing hub account; also 401 for a missing or wrong admin token)
//   3106 a funds transfer id reused with a different request
//   3200 unknown participant, account or position (404), 3208 unknown funds transfer (404)
//   3002 unknown URI (404), 4001 funds out beyond liquidity, 2002 isProxy (501),
//   2003 the database unreachable, restarting or deadlocked (503: send it again
//        later; a funds transfer repeated with its id is recognised as a repeat),
//   2001 anything unexpected (500)

const { FspiopError, createFspiopError } = require('@switchyard/shared/errors')
const { isRetriable } = require('@switchyard/shared/kafka')
const { FORMATS } = require('./schemas')

/**
 * How a field is named in a description: "amount.currency" in the body,
 * "query parameter currency", "path parameter id".
 * @param {string} context fastify's validationContext
 * @param {string} instancePath ajv's JSON pointer
 * @param {string} [child] a property below it
 */
function fieldName (context, instancePath, child) {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (child !== undefined) parts.push(child)
  const path = parts.join('.')
  if (context === 'querystring') return path ? `query parameter ${path}` : 'query'
  if (context === 'params') return path ? `path parameter ${path}` : 'path'
  if (context === 'headers') return path ? `${path} header` : 'headers'
  return path || 'body'
}

/**
 * Turns the first ajv error of a failed schema validation into an FSPIOP error.
 * @param {Array<{ keyword: string, instancePath: string, params: Record<string, any>, message?: string }>} validation
 * @param {string} context
 * @returns {FspiopError}
 */
function toValidationError (validation, context) {
  const [error] = validation
  const { keyword, params } = error
  const field = fieldName(context, error.instancePath)
  switch (keyword) {
    case 'required':
      return createFspiopError('MISSING_ELEMENT', fieldName(context, error.instancePath, params.missingProperty))
    case 'additionalProperties':
      return createFspiopError('TOO_MANY_ELEMENTS', `${fieldName(context, error.instancePath, params.additionalProperty)} is not allowed`)
    case 'type':
      return createFspiopError('MALFORMED_SYNTAX', `${field} must be ${[].concat(params.type).join(' or ')}`)
    case 'format':
      return createFspiopError('VALIDATION_ERROR', `${field} must be ${FORMATS[params.format]?.text ?? `a valid ${params.format}`}`)
    case 'enum':
      return createFspiopError('VALIDATION_ERROR', `${field} must be one of ${params.allowedValues.join(', ')}`)
    default:
      return createFspiopError('VALIDATION_ERROR', `${field} ${error.message}`)
  }
}

/**
 * @param {import('fastify').FastifyError & { validation?: any[], validationContext?: string }} error
 * @param {import('fastify').FastifyRequest} request
 * @param {import('fastify').FastifyReply} reply
 */
function adminErrorHandler (error, request, reply) {
  if (error instanceof FspiopError) {
    if (error.httpStatus >= 500) request.log.error({ err: error }, 'admin request failed')
    return reply.code(error.httpStatus).send(error.toErrorInformation())
  }
  if (error.validation) {
    return reply.code(400).send(toValidationError(error.validation, error.validationContext).toErrorInformation())
  }
  // fastify's own client errors: invalid or empty JSON, unsupported media
  // type, body too large. Keep its status, say what it said.
  if (error.statusCode >= 400 && error.statusCode < 500) {
    return reply.code(error.statusCode).send(createFspiopError('MALFORMED_SYNTAX', error.message).toErrorInformation())
  }
  // The database unreachable, restarting, failing over, or a deadlock: the
  // request may succeed if sent again, and an operator's script should be
  // told so rather than that the switch is broken.
  if (isRetriable(error)) {
    request.log.warn({ err: error }, 'admin request failed: the database is not available')
    return reply.code(503).send(createFspiopError('SERVICE_CURRENTLY_UNAVAILABLE', 'the database is not available').toErrorInformation())
  }
  request.log.error({ err: error }, 'admin request failed')
  return reply.code(500).send(createFspiopError('INTERNAL_SERVER_ERROR').toErrorInformation())
}

/**
 * @param {import('fastify').FastifyRequest} request
 * @param {import('fastify').FastifyReply} reply
 */
function adminNotFoundHandler (request, reply) {
  return reply.code(404).send(createFspiopError('UNKNOWN_URI', `${request.method} ${request.url.split('?')[0]}`).toErrorInformation())
}

/** @param {string} what e.g. "participant dfsp1" */
const notFound = (what) => createFspiopError('ID_NOT_FOUND', `${what} not found`)

/** @param {string} detail */
const conflict = (detail) => createFspiopError('CLIENT_ERROR', detail)

/** @param {unknown} err */
const isDuplicateKey = (err) => /** @type {any} */ (err)?.code === 'ER_DUP_ENTRY'

module.exports = { toValidationError, adminErrorHandler, adminNotFoundHandler, notFound, conflict, isDuplicateKey }
