'use strict'

// Participant callback endpoints (upsert and list).

const { createFspiopError } = require('@switchyard/shared/errors')
const repo = require('../repository')
const s = require('../schemas')
const { checkEndpoint } = require('../endpoint-rules')
const { requireParticipant } = require('../lookups')

const endpointType = { type: 'string', minLength: 1, maxLength: 64 }
const endpoint = { type: 'object', properties: { type: { type: 'string' }, value: { type: 'string' } } }

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ db: import('knex').Knex }} deps
 */
async function endpointRoutes (app, { db }) {
  app.post('/participants/:name/endpoints', {
    schema: {
      summary: 'Add or replace a participant endpoint',
      params: s.nameParams,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'value'],
        properties: {
          type: { ...endpointType, description: 'FSPIOP_CALLBACK_URL_* or a notification e-mail type' },
          value: { type: 'string', minLength: 1, maxLength: 512, description: 'http(s) URL, may hold templates such as {{transferId}}' }
        }
      },
      response: s.withErrors({ 201: s.empty })
    }
  }, async (request, reply) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    const { type, value } = /** @type {{ type: string, value: string }} */ (request.body)
    const problem = checkEndpoint(type, value)
    if (problem) throw createFspiopError('VALIDATION_ERROR', problem)
    const participant = await requireParticipant(db, name)
    await repo.upsertEndpoint(db, participant.participant_id, type, value)
    return reply.code(201).send()
  })

  app.get('/participants/:name/endpoints', {
    schema: {
      summary: 'Endpoints of a participant: one object for ?type= ({} when not set), as central-ledger answers, else an array',
      params: s.nameParams,
      querystring: { type: 'object', additionalProperties: false, properties: { type: endpointType } },
      response: s.withErrors({ 200: { anyOf: [{ type: 'array', items: endpoint }, endpoint] } })
    }
  }, async (request) => {
    const { name } = /** @type {{ name: string }} */ (request.params)
    const { type } = /** @type {{ type?: string }} */ (request.query)
    const participant = await requireParticipant(db, name)
    const endpoints = (await repo.listEndpoints(db, participant.participant_id, type))
      .map((row) => ({ type: row.endpoint_type, value: row.value }))
    return type === undefined ? endpoints : (endpoints[0] ?? {})
  })
}

module.exports = { endpointRoutes }
