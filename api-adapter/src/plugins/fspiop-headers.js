'use strict'

// FSPIOP header rules for one API resource, as a plugin: a content-type
// parser for its versioned JSON media type (which keeps the body's text, see
// bodyText), and an onRequest hook that checks the headers before the body is
// read. Which headers a route requires comes from the route's own
// `schema.headers` (built with fspiopHeadersSchema), so the rule and the
// OpenAPI document cannot disagree; the hook only adds the FSPIOP error codes
// a generic schema check cannot give:
// missing → 3102, malformed → 3101, unsupported version → 406 3001.

const { createFspiopError } = require('@switchyard/shared/errors')
const { parseAccept, parseContentType, negotiateVersion, toVersionExtensionList, SUPPORTED_VERSIONS } = require('../headers/media-type')
const { isHttpDate } = require('../headers/http-date')

// FspId (FSPIOP data model): String(1..32).
const MAX_FSP_ID_LENGTH = 32

// What the plugin learns of a request and its route reads, on the request:
// decorations (slots fastify's Request objects are built with), not WeakMap
// entries per request.
const BODY_TEXT = 'fspiopBodyText'
const ANSWER_VERSION = 'fspiopAnswerVersion'
/** The request with its decorations, which fastify's types do not know. @param {import('fastify').FastifyRequest} request */
const slots = (request) => /** @type {Record<string, any>} */ (request)

/**
 * The request's body as the participant sent it (before parsing), when it
 * came with the resource's media type: what the hub forwards, since a JWS
 * signature (FSPIOP-Signature) covers these exact characters, and parsing
 * loses spacing and escapes such as "\u00e9" or "\/".
 * @param {import('fastify').FastifyRequest} request
 * @returns {string | undefined}
 */
const bodyText = (request) => slots(request)[BODY_TEXT] ?? undefined

/**
 * The version the hub answers the request in (the callbacks it writes itself
 * to the sender: a rejection, a GET's state): the highest supported version
 * its Accept allows, or without Accept (a PUT need not send one) its
 * Content-Type's version.
 * @param {import('fastify').FastifyRequest} request
 * @returns {string | undefined}
 */
const answerVersion = (request) => slots(request)[ANSWER_VERSION] ?? undefined

/**
 * The headers schema of an FSPIOP route. Content-Type and Accept are
 * required where the route says so (FSPIOP requires Content-Type on every
 * request, Accept on POST and GET); when present they are checked all the
 * same.
 *
 * @param {string} resource e.g. 'transfers'
 * @param {{ contentType?: boolean, accept?: boolean }} required
 */
function fspiopHeadersSchema (resource, { contentType = false, accept = false }) {
  const media = `application/vnd.interoperability.${resource}+json`
  const text = (/** @type {string} */ description) => ({ type: 'string', description })
  return {
    type: 'object',
    required: [...(contentType ? ['content-type'] : []), ...(accept ? ['accept'] : []), 'date', 'fspiop-source'],
    properties: {
      'content-type': text(`${media};version=X.Y, X.Y one of ${SUPPORTED_VERSIONS.join(', ')}`),
      accept: text(`${media}, optionally with ;version=X or ;version=X.Y; several may be listed`),
      date: text('RFC 1123 date, e.g. Sun, 06 Nov 1994 08:49:37 GMT'),
      'fspiop-source': text('FSP id of the sender (1 to 32 characters)'),
      'fspiop-destination': text('FSP id of the receiver, when known (1 to 32 characters)'),
      'fspiop-signature': text('JWS signature of the request, passed on unchanged'),
      'fspiop-encryption': text('Encryption details, passed on unchanged'),
      'fspiop-uri': text('URI the signature covers, passed on unchanged'),
      'fspiop-http-method': text('HTTP method the signature covers, passed on unchanged'),
      traceparent: text('W3C trace context, continued on every hop'),
      tracestate: text('W3C trace context, continued on every hop')
    }
  }
}

/**
 * @param {string} name header name as written in errors
 * @param {string | undefined} value
 * @param {boolean} required
 * @returns {value is string} true when there is a value to check
 */
function present (name, value, required) {
  // An empty header carries nothing: the same as no header (Mojaloop: any.empty → 3102).
  if (value !== undefined && value !== '') return true
  if (required) throw createFspiopError('MISSING_ELEMENT', `${name} header`)
  return false
}

/** @param {string} resource */
function checkers (resource) {
  const media = `application/vnd.interoperability.${resource}+json`
  const unsupported = (/** @type {string} */ detail) =>
    createFspiopError('UNACCEPTABLE_VERSION', `${detail}; see extensionList for the supported versions`,
      { extensionList: toVersionExtensionList() })
  return {
    /**
     * @param {string | undefined} value @param {boolean} required
     * @returns {string | undefined} the version negotiated, when there is an Accept
     */
    accept (value, required) {
      if (!present('Accept', value, required)) return
      const ranges = parseAccept(resource, value)
      if (!ranges) throw createFspiopError('MALFORMED_SYNTAX', `Accept header must be ${media}[;version=X[.Y]]`)
      const version = negotiateVersion(ranges)
      if (!version) throw unsupported('no version in the Accept header is supported')
      return version
    },
    /**
     * @param {string | undefined} value @param {boolean} required
     * @returns {string | undefined} the body's version, when there is a Content-Type
     */
    contentType (value, required) {
      if (!present('Content-Type', value, required)) return
      const version = parseContentType(resource, value)
      if (!version) throw createFspiopError('MALFORMED_SYNTAX', `Content-Type header must be ${media};version=X.Y`)
      if (!SUPPORTED_VERSIONS.includes(version)) throw unsupported(`Content-Type version ${version} is not supported`)
      return version
    },
    /** @param {string | undefined} value */
    date (value) {
      if (!present('Date', value, true)) return
      if (!isHttpDate(value)) throw createFspiopError('MALFORMED_SYNTAX', 'Date header must be an RFC 1123 date such as Sun, 06 Nov 1994 08:49:37 GMT')
    },
    /** @param {string} name @param {string | undefined} value @param {boolean} required */
    fspId (name, value, required) {
      if (!present(name, value, required)) return
      if (value.length > MAX_FSP_ID_LENGTH) throw createFspiopError('MALFORMED_SYNTAX', `${name} header must be 1 to ${MAX_FSP_ID_LENGTH} characters`)
    }
  }
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ resource: string }} opts
 */
async function fspiopHeaders (app, { resource }) {
  const check = checkers(resource)
  // The versioned media type is JSON; parse it with fastify's own JSON parser
  // (prototype-poisoning safe). Plain application/json never gets this far:
  // the hook below rejects it, as Mojaloop does.
  const vndJson = new RegExp(`^application/vnd\\.interoperability\\.${resource}\\+json(?:\\s*;|$)`, 'i')
  const parseJson = app.getDefaultJsonParser('error', 'error')
  if (!app.hasRequestDecorator(BODY_TEXT)) app.decorateRequest(BODY_TEXT, null)
  if (!app.hasRequestDecorator(ANSWER_VERSION)) app.decorateRequest(ANSWER_VERSION, null)
  app.addContentTypeParser(vndJson, { parseAs: 'string' }, (request, body, done) => {
    slots(request)[BODY_TEXT] = body
    parseJson(request, /** @type {string} */ (body), done)
  })

  app.addHook('onRequest', async (request) => {
    const schema = /** @type {{ required?: string[] } | undefined} */ (request.routeOptions.schema?.headers)
    if (!schema) return
    const required = schema.required || []
    const h = /** @type {Record<string, string | undefined>} */ (request.headers)
    // Mojaloop's order: Accept, then Content-Type, then the rest.
    const accepted = check.accept(h.accept, required.includes('accept'))
    const sent = check.contentType(h['content-type'], required.includes('content-type'))
    slots(request)[ANSWER_VERSION] = accepted || sent || null
    check.date(h.date)
    check.fspId('FSPIOP-Source', h['fspiop-source'], true)
    check.fspId('FSPIOP-Destination', h['fspiop-destination'], false)
  })
}

// Like fastify-plugin: the parser and hook apply to the routes of the
// context that registers this plugin, not to a child context of their own.
fspiopHeaders[Symbol.for('skip-override')] = true

module.exports = { fspiopHeaders, fspiopHeadersSchema, bodyText, answerVersion }
