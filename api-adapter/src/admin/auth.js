'use strict'

// ADMIN_TOKEN: when set, every admin request must carry
// `Authorization: Bearer <token>`. The admin API moves money, so the check runs
// before routing, for every path, and compares in constant time. Without a
// token it listens on loopback only, unless an operator says otherwise
// (ADMIN_ALLOW_UNAUTHENTICATED): an empty token from a Secret must not open it
// to the pod network.

const crypto = require('node:crypto')
const { createFspiopError } = require('@switchyard/shared/errors')

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i

/** @param {string} text */
const digest = (text) => crypto.createHash('sha256').update(text, 'utf8').digest()

/**
 * The token presented in an Authorization header, or undefined.
 * @param {unknown} header
 * @returns {string | undefined}
 */
function bearerToken (header) {
  if (typeof header !== 'string') return undefined
  return BEARER.exec(header)?.[1]
}

/**
 * An onRequest hook answering 401 unless the request carries the token.
 * Both sides are hashed first so the comparison takes the same time whatever
 * the length of what was sent.
 * @param {string} token
 */
function createAdminAuth (token) {
  const expected = digest(token)
  /**
   * @param {import('fastify').FastifyRequest} request
   * @param {import('fastify').FastifyReply} reply
   */
  return async function adminAuth (request, reply) {
    const presented = bearerToken(request.headers.authorization)
    if (presented !== undefined && crypto.timingSafeEqual(digest(presented), expected)) return
    const error = createFspiopError('CLIENT_ERROR', 'the admin API needs Authorization: Bearer <ADMIN_TOKEN>')
    return reply.code(401).header('www-authenticate', 'Bearer realm="switchyard-admin"').send(error.toErrorInformation())
  }
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])

/**
 * The token admin requests must carry, or null for none. Surrounding
 * whitespace is not part of it (a token file's newline would otherwise lock
 * every operator out: a bearer token has none). Throws when the admin API
 * would be open to the network without one.
 * @param {import('@switchyard/shared/config').Config} config ADMIN_TOKEN, ADMIN_HOST, ADMIN_ALLOW_UNAUTHENTICATED
 * @returns {string | null}
 */
function requiredToken (config) {
  const token = config.ADMIN_TOKEN.trim()
  if (/\s/.test(token)) throw new Error('ADMIN_TOKEN contains whitespace: a bearer token cannot carry it, so no request could ever match')
  if (token) return token
  if (!LOOPBACK.has(config.ADMIN_HOST) && !config.ADMIN_ALLOW_UNAUTHENTICATED) {
    throw new Error(`ADMIN_TOKEN is empty and ADMIN_HOST is ${config.ADMIN_HOST}: anything that reaches it could move funds and change limits. ` +
      'Set ADMIN_TOKEN, set ADMIN_HOST to 127.0.0.1, or accept the risk with ADMIN_ALLOW_UNAUTHENTICATED=true')
  }
  return null
}

module.exports = { createAdminAuth, bearerToken, requiredToken }
