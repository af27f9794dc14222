'use strict'

// Participants and the hub's accounts, in central-ledger's shapes.

const { createFspiopError } = require('@switchyard/shared/errors')
const repo = require('../repository')
const s = require('../schemas')
const { toParticipant } = require('../mappers')
const { conflict } = require('../errors')
const { requireParticipant, baseUrl, participantView } = require('../lookups')

const HUB_ACCOUNT_TYPES = ['HUB_MULTILATERAL_SETTLEMENT', 'HUB_RECONCILIATION']
const participantResponse = { $ref: 'AdminParticipant#' }

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ db: import('knex').Knex, config: import('@switchyard/shared/config').Config }} deps
 */
async function participantRoutes (app, { db, config }) {
  const hubName = config.HUB_NAME

  app.post('/participants', {
    schema: {
      summary: 'Create a participant with a POSITION and a SETTLEMENT account in a currency, or add a currency to one',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'currency'],
        properties: { name: s.name, currency: s.currency, isProxy: { type: 'boolean', description: 'Only false: proxies are not supported' } }
      },
      response: s.withErrors({ 201: participantResponse })
    }
  }, async (request, reply) => {
    const { name, currency, isProxy } = /** @type {any} */ (request.body)
    if (name === hubName) throw conflict(`${name} is the hub; its accounts are created with POST /participants/${name}/accounts`)
    if (isProxy) throw createFspiopError('NOT_IMPLEMENTED', 'proxy participants are not supported')
    const participant = await db.transaction(async (trx) => {
      await repo.insertParticipantIfMissing(trx, name)
      // Locked: concurrent requests for one participant add currencies one at a time.
      const participant = await requireParticipant(trx, name, { lock: true })
      if (await repo.findAccountByType(trx, participant.participant_id, currency, 'POSITION')) {
        throw conflict(`participant ${name} already has ${currency} accounts`)
      }
      await repo.createAccounts(trx, participant.participant_id, currency, ['POSITION', 'SETTLEMENT'])
      return participant
    })
    return reply.code(201).send(await participantView(db, participant, baseUrl(request)))
  })

  app.get('/participants', {
    schema: { summary: 'All participants, the hub included', response: s.withErrors({ 200: { type: 'array', items: participantResponse } }) }
  }, async (request) => {
    const [participants, accounts] = await Promise.all([repo.listParticipants(db), repo.listAccounts(db, undefined)])
    const byParticipant = new Map(participants.map((p) => [p.participant_id, []]))
    for (const account of accounts) byParticipant.get(account.participant_id)?.push(account)
    const base = baseUrl(request)
    return participants.map((p) => toParticipant(p, byParticipant.get(p.participant_id) ?? [], base))
  })

  app.get('/participants/:name', {
    schema: { summary: 'One participant', params: s.nameParams, response: s.withErrors({ 200: participantResponse }) }
  }, async (request) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    return participantView(db, await requireParticipant(db, name), baseUrl(request))
  })

  app.put('/participants/:name', {
    schema: { summary: 'Activate or deactivate a participant', params: s.nameParams, body: s.isActiveBody, response: s.withErrors({ 200: participantResponse }) }
  }, async (request) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    const { isActive } = /** @type {{ isActive: boolean }} */ (request.body)
    const participant = await requireParticipant(db, name)
    await repo.setParticipantActive(db, participant.participant_id, isActive)
    request.log.info({ participant: name, isActive }, isActive ? 'participant activated' : 'participant deactivated')
    return participantView(db, { ...participant, is_active: isActive ? 1 : 0 }, baseUrl(request))
  })

  app.post('/participants/:name/accounts', {
    schema: {
      summary: 'Create a hub account (the hub participant is created on first use)',
      params: s.nameParams,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'currency'],
        properties: { type: { type: 'string', enum: HUB_ACCOUNT_TYPES }, currency: s.currency }
      },
      response: s.withErrors({ 201: participantResponse })
    }
  }, async (request, reply) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    const { type, currency } = /** @type {{ type: string, currency: string }} */ (request.body)
    if (name !== hubName) throw conflict(`only the hub (${hubName}) has accounts created this way`)
    const hub = await db.transaction(async (trx) => {
      await repo.insertParticipantIfMissing(trx, hubName)
      const hub = await requireParticipant(trx, hubName, { lock: true })
      if (await repo.findAccountByType(trx, hub.participant_id, currency, type)) {
        throw conflict(`the hub already has a ${currency} ${type} account`)
      }
      await repo.createAccounts(trx, hub.participant_id, currency, [type])
      return hub
    })
    return reply.code(201).send(await participantView(db, hub, baseUrl(request)))
  })
}

module.exports = { participantRoutes }
