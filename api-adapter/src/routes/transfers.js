'use strict'

// The participant-facing FSPIOP /transfers resource. Each route checks its
// request (headers by the fspiop-headers plugin, the body by its schema),
// turns it into a command and answers once the command is durably on Kafka;
// everything else happens in the handlers and comes back as callbacks.

const { createFspiopError, fromErrorInformation } = require('@switchyard/shared/errors')
const { fspiopHeaders, bodyText, answerVersion } = require('../plugins/fspiop-headers')
const { toTransferCommand } = require('../commands')
const { createPublisher } = require('../publish')
const { validateMoney } = require('../validate-money')
const { ledgerTime } = require('@switchyard/shared/ledger-time')
const schemas = require('../schemas/transfers')

/**
 * @typedef {{ transferId: string, amount: { amount: string, currency: string }, expiration: string }} TransfersPostRequest
 * @typedef {{ errorInformation: import('../../../shared/src/errors/fspiop-error').ErrorInformation }} ErrorInformationObject
 * @typedef {{ id: string }} IdParams
 */

/**
 * The errorCode must be one the handlers can pass on: a catalog code, or a
 * code in a catalog category (a payee's own 5107 counts as 5100). Mojaloop
 * answers other codes with 3100 (validateIncomingErrorCode).
 *
 * @param {ErrorInformationObject} body
 */
function checkErrorCode (body) {
  try {
    fromErrorInformation(body)
  } catch {
    throw createFspiopError('VALIDATION_ERROR', `errorInformation.errorCode ${body.errorInformation.errorCode} is not an FSPIOP error code`)
  }
}

/**
 * A date-time the schema accepts but the ledger cannot hold (ledger-time.js) is a 3100.
 * @param {string} value @param {string} where the element's name
 */
function checkLedgerTime (value, where) {
  const { problem } = ledgerTime(value)
  if (problem) throw createFspiopError('VALIDATION_ERROR', `${where} ${value} ${problem}`)
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ config: import('@switchyard/shared/config').Config,
 *   producer?: ReturnType<typeof import('@switchyard/shared/kafka').createProducer> }} opts
 */
async function transferRoutes (app, { config, producer }) {
  await app.register(fspiopHeaders, { resource: schemas.RESOURCE })
  const publish = createPublisher(producer)

  app.post('/transfers', { schema: schemas.postTransfers }, async (request, reply) => {
    const body = /** @type {TransfersPostRequest} */ (request.body)
    validateMoney(body.amount)
    checkLedgerTime(body.expiration, 'expiration')
    await publish(toTransferCommand(config, 'prepare', { transferId: body.transferId, headers: request.headers, payload: body, text: bodyText(request), version: answerVersion(request) }), request)
    return reply.code(202).send()
  })

  app.put('/transfers/:id', { schema: schemas.putTransfer }, async (request, reply) => {
    const { id } = /** @type {IdParams} */ (request.params)
    checkLedgerTime(/** @type {{ completedTimestamp: string }} */ (request.body).completedTimestamp, 'completedTimestamp')
    await publish(toTransferCommand(config, 'fulfil', { transferId: id, headers: request.headers, payload: /** @type {object} */ (request.body), text: bodyText(request), version: answerVersion(request) }), request)
    return reply.code(200).send()
  })

  app.put('/transfers/:id/error', { schema: schemas.putTransferError }, async (request, reply) => {
    const { id } = /** @type {IdParams} */ (request.params)
    const body = /** @type {ErrorInformationObject} */ (request.body)
    checkErrorCode(body)
    await publish(toTransferCommand(config, 'error', { transferId: id, headers: request.headers, payload: body, text: bodyText(request), version: answerVersion(request) }), request)
    return reply.code(200).send()
  })

  // No automatic HEAD twin: a HEAD must not ask the hub for a callback.
  app.get('/transfers/:id', { schema: schemas.getTransfer, exposeHeadRoute: false }, async (request, reply) => {
    const { id } = /** @type {IdParams} */ (request.params)
    await publish(toTransferCommand(config, 'get', { transferId: id, headers: request.headers, version: answerVersion(request) }), request)
    return reply.code(202).send()
  })

  app.patch('/transfers/:id', { schema: schemas.patchTransfer }, async () => {
    throw createFspiopError('NOT_IMPLEMENTED', 'PATCH /transfers/{ID} is sent by the hub to the payee, not accepted from participants')
  })
}

module.exports = { transferRoutes }
