'use strict'

// ADMIN_TOKEN: when set, every admin request must carry
// `Authorization: Bearer <token>`. The admin API moves money, so the check runs
// before routing, for every path, and compares in constant time.

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

module.exports = { createAdminAuth, bearerToken }
