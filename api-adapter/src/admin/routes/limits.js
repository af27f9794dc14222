'use strict'

// Net debit cap and initial position.

const { formatAmount } = require('@switchyard/shared/money')
const repo = require('../repository')
const ledger = require('../ledger-repository')
const s = require('../schemas')
const { readAmount } = require('../amounts')
const { move } = require('../funds-rules')
const { toLimit } = require('../mappers')
const { conflict } = require('../errors')
const { requireParticipant, requireAccountByType } = require('../lookups')

// participant_position_change.transfer_id of the initial position: no
// transfer explains it, the operation does.
const INITIAL_POSITION_ID = 'initialPositionAndLimits'

const limitType = { type: 'string', enum: ['NET_DEBIT_CAP'] }
const limitIn = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'value'],
  properties: {
    type: limitType,
    value: s.amountOrInteger,
    alarmPercentage: { type: 'number', minimum: 0, maximum: 100, description: 'Accepted as central-ledger does; not stored yet' }
  }
}
const limitOut = {
  type: 'object',
  properties: { currency: { type: 'string' }, limit: { type: 'object', properties: { type: { type: 'string' }, value: s.amountOut } } }
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ db: import('knex').Knex }} deps
 */
async function limitRoutes (app, { db }) {
  app.post('/participants/:name/initialPositionAndLimits', {
    schema: {
      summary: 'Set the net debit cap and the initial position of a currency, once',
      params: s.nameParams,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['currency', 'limit'],
        properties: { currency: s.currency, limit: limitIn, initialPosition: s.amountOrInteger }
      },
      response: s.withErrors({ 201: s.empty })
    }
  }, async (request, reply) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    const { currency, limit, initialPosition = '0' } = /** @type {any} */ (request.body)
    const cap = readAmount(limit.value, currency, 'limit.value')
    const initial = readAmount(initialPosition, currency, 'initialPosition')
    await db.transaction(async (trx) => {
      const participant = await requireParticipant(trx, name, { lock: true })
      const account = await requireAccountByType(trx, participant, currency, 'POSITION')
      if (await repo.findLimit(trx, account.account_id, limit.type)) {
        throw conflict(`the ${currency} limit and initial position of ${name} are already set`)
      }
      await repo.insertLimit(trx, account.account_id, limit.type, cap)
      if (initial !== 0n) {
        // Added rather than overwritten, so the position history still adds up.
        const balances = await ledger.lockBalances(trx, [account.account_id])
        await ledger.applyPositionChanges(trx, INITIAL_POSITION_ID, [move(balances.get(account.account_id), initial)])
      }
    })
    return reply.code(201).send()
  })

  app.get('/participants/:name/limits', {
    schema: {
      summary: 'Limits of a participant',
      params: s.nameParams,
      querystring: { type: 'object', additionalProperties: false, properties: { currency: s.currency, type: limitType } },
      response: s.withErrors({ 200: { type: 'array', items: limitOut } })
    }
  }, async (request) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    const participant = await requireParticipant(db, name)
    const rows = await repo.listLimits(db, participant.participant_id, /** @type {any} */ (request.query))
    return rows.map(toLimit)
  })

  app.put('/participants/:name/limits', {
    schema: {
      summary: 'Change a limit set by initialPositionAndLimits',
      params: s.nameParams,
      body: { type: 'object', additionalProperties: false, required: ['currency', 'limit'], properties: { currency: s.currency, limit: limitIn } },
      response: s.withErrors({ 200: limitOut })
    }
  }, async (request) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    const { currency, limit } = /** @type {any} */ (request.body)
    const value = readAmount(limit.value, currency, 'limit.value')
    const participant = await requireParticipant(db, name)
    const account = await requireAccountByType(db, participant, currency, 'POSITION')
    // Rows matched (mysql2 connects with FOUND_ROWS): 0 when no limit is set yet.
    if (!await repo.updateLimit(db, account.account_id, limit.type, value)) {
      throw conflict(`${name} has no ${currency} ${limit.type} yet: set it with POST initialPositionAndLimits`)
    }
    request.log.info({ participant: name, currency, limit: limit.type, value: formatAmount(value) }, 'limit changed')
    return { currency, limit: { type: limit.type, value: formatAmount(value) } }
  })
}

module.exports = { limitRoutes }
