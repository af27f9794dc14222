'use strict'

// buildAdminApp(deps) makes the operator-facing admin API: participants,
// accounts, limits, endpoints and funds in/out, in the shapes of Mojaloop
// central-ledger's admin API so existing provisioning scripts work. It is a
// separate fastify app so it can listen on its own interface and port
// (ADMIN_HOST, ADMIN_PORT), away from participants.

const fastify = require('fastify')
const { addAdminFormats, errorInformationSchema, participantSchema } = require('./schemas')
const { adminErrorHandler, adminNotFoundHandler } = require('./errors')
const { createAdminAuth, requiredToken } = require('./auth')
const { participantRoutes } = require('./routes/participants')
const { accountRoutes } = require('./routes/accounts')
const { limitRoutes } = require('./routes/limits')
const { endpointRoutes } = require('./routes/endpoints')
const { fundsRoutes } = require('./routes/funds')

/**
 * @typedef {object} AdminAppDeps
 * @property {import('@switchyard/shared/config').Config} config ADMIN_TOKEN, ADMIN_HOST, ADMIN_ALLOW_UNAUTHENTICATED, HUB_NAME
 * @property {import('pino').Logger} logger
 * @property {import('knex').Knex} db
 */

/** @param {AdminAppDeps} deps */
function buildAdminApp ({ config, logger, db }) {
  const token = requiredToken(config)
  const app = fastify({
    loggerInstance: logger,
    ajv: {
      // No coercion: an amount sent as a JSON number must not silently become
      // a string through a float, and `"true"` is not a boolean. Unknown
      // properties are refused, as central-ledger's validation does, so a
      // misspelt field is reported instead of ignored.
      customOptions: { coerceTypes: false, removeAdditional: false, allowUnionTypes: true },
      plugins: [addAdminFormats]
    }
  })
  app.addSchema(errorInformationSchema)
  app.addSchema(participantSchema)
  app.setErrorHandler(adminErrorHandler)
  app.setNotFoundHandler(adminNotFoundHandler)
  if (token) app.addHook('onRequest', createAdminAuth(token))

  const deps = { db, config }
  app.register(participantRoutes, deps)
  app.register(accountRoutes, deps)
  app.register(limitRoutes, deps)
  app.register(endpointRoutes, deps)
  app.register(fundsRoutes, deps)
  return app
}

module.exports = { buildAdminApp }
