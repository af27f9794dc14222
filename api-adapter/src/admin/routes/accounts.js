'use strict'

// Accounts with their balances, positions, and activating one account.

const repo = require('../repository')
const s = require('../schemas')
const { toAccountBalance, toPosition } = require('../mappers')
const { notFound } = require('../errors')
const { requireParticipant, requireAccount } = require('../lookups')

const currencyQuery = { type: 'object', additionalProperties: false, properties: { currency: s.currency } }
const position = { type: 'object', properties: { currency: { type: 'string' }, value: s.amountOut, changedDate: s.dateTime } }
const accountBalance = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    ledgerAccountType: { type: 'string' },
    currency: { type: 'string' },
    isActive: s.flag,
    value: s.amountOut,
    reservedValue: s.amountOut,
    changedDate: s.dateTime
  }
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ db: import('knex').Knex }} deps
 */
async function accountRoutes (app, { db }) {
  app.get('/participants/:name/accounts', {
    schema: {
      summary: 'Accounts of a participant with their values',
      params: s.nameParams,
      querystring: currencyQuery,
      response: s.withErrors({ 200: { type: 'array', items: accountBalance } })
    }
  }, async (request) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    const { currency } = /** @type {{ currency?: string }} */ (request.query)
    const participant = await requireParticipant(db, name)
    return (await repo.listBalances(db, participant.participant_id, { currency })).map(toAccountBalance)
  })

  app.put('/participants/:name/accounts/:id', {
    schema: {
      summary: 'Activate or deactivate one account',
      params: s.accountParams,
      body: s.isActiveBody,
      response: s.withErrors({ 200: s.empty })
    }
  }, async (request, reply) => {
    const { name, id } = /** @type {{ name: string, id: string }} */ (request.params)
    const { isActive } = /** @type {{ isActive: boolean }} */ (request.body)
    const account = await requireAccount(db, await requireParticipant(db, name), Number(id))
    await repo.setAccountActive(db, account.account_id, isActive)
    request.log.info({ participant: name, account: account.account_id, isActive }, isActive ? 'account activated' : 'account deactivated')
    return reply.code(200).send()
  })

  app.get('/participants/:name/positions', {
    schema: {
      summary: 'Positions of a participant: one object for ?currency=, as central-ledger answers, else an array',
      params: s.nameParams,
      querystring: currencyQuery,
      response: s.withErrors({ 200: { anyOf: [{ type: 'array', items: position }, position] } })
    }
  }, async (request) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    const { currency } = /** @type {{ currency?: string }} */ (request.query)
    const participant = await requireParticipant(db, name)
    const rows = await repo.listBalances(db, participant.participant_id, { currency, type: 'POSITION' })
    if (!currency) return rows.map(toPosition)
    if (rows.length === 0) throw notFound(`${currency} position of participant ${name}`)
    return toPosition(rows[0])
  })
}

module.exports = { accountRoutes }
