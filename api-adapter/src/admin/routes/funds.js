'use strict'

// Funds in and funds out through a participant's SETTLEMENT account.

const s = require('../schemas')
const { recordFunds, completeFundsOut } = require('../funds')
const { ExtensionList } = require('../../schemas/fspiop')

// A UUID as the funds_transfer key holds it (36 characters, no urn: prefix).
const transferId = { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }
const reason = { type: 'string', minLength: 1, maxLength: 512 }

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ db: import('knex').Knex, config: import('@switchyard/shared/config').Config }} deps
 */
async function fundsRoutes (app, deps) {
  app.post('/participants/:name/accounts/:id', {
    schema: {
      summary: 'Record funds in, or reserve funds out, on a SETTLEMENT account',
      params: s.accountParams,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['transferId', 'externalReference', 'action', 'reason', 'amount'],
        properties: {
          transferId,
          externalReference: { type: 'string', minLength: 1, maxLength: 256 },
          action: { type: 'string', enum: ['recordFundsIn', 'recordFundsOutPrepareReserve'] },
          reason,
          amount: s.money,
          // The FSPIOP ExtensionList, as central-ledger accepts on funds in/out.
          extensionList: ExtensionList
        }
      },
      response: s.withErrors({ 202: s.empty })
    }
  }, async (request, reply) => {
    const { name, id } = /** @type {{ name: string, id: string }} */ (request.params)
    const body = /** @type {any} */ (request.body)
    // Ids compare as stored (binary collation): one spelling per UUID.
    await recordFunds(deps, { name, accountId: Number(id), body: { ...body, transferId: body.transferId.toLowerCase() } })
    return reply.code(202).send()
  })

  app.put('/participants/:name/accounts/:id/transfers/:transferId', {
    schema: {
      summary: 'Commit or abort a reserved funds out',
      params: { ...s.accountParams, required: ['name', 'id', 'transferId'], properties: { ...s.accountParams.properties, transferId } },
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['action', 'reason'],
        properties: { action: { type: 'string', enum: ['recordFundsOutCommit', 'recordFundsOutAbort'] }, reason, extensionList: ExtensionList }
      },
      response: s.withErrors({ 202: s.empty })
    }
  }, async (request, reply) => {
    const params = /** @type {{ name: string, id: string, transferId: string }} */ (request.params)
    const body = /** @type {{ action: string, reason: string }} */ (request.body)
    const transferId = params.transferId.toLowerCase()
    await completeFundsOut(deps, { name: params.name, accountId: Number(params.id), transferId, body })
    // The funds_transfer row keeps the reason given at reservation; this one goes to the log.
    request.log.info({ participant: params.name, transferId, action: body.action, reason: body.reason }, 'funds out completed')
    return reply.code(202).send()
  })
}

module.exports = { fundsRoutes }
