'use strict'

// Lookups that answer "not found" as FSPIOP errors, shared by the routes.

const repo = require('./repository')
const { toParticipant } = require('./mappers')
const { notFound } = require('./errors')
const { createFspiopError } = require('@switchyard/shared/errors')

/** @typedef {import('knex').Knex} Knex */

/**
 * @param {Knex} db
 * @param {string} name
 * @param {{ lock?: boolean }} [opts]
 * @throws 3200 (404) for an unknown participant
 */
async function requireParticipant (db, name, opts) {
  const participant = await repo.findParticipant(db, name, opts)
  if (!participant) throw notFound(`participant ${name}`)
  return participant
}

/**
 * @param {Knex} db
 * @param {{ participant_id: number, name: string }} participant
 * @param {number} accountId
 * @throws 3200 (404) unless the account is one of the participant's
 */
async function requireAccount (db, participant, accountId) {
  const account = await repo.findAccount(db, participant.participant_id, accountId)
  if (!account) throw notFound(`account ${accountId} of participant ${participant.name}`)
  return account
}

/**
 * The participant's account of a type in a currency named in a request body.
 * @param {Knex} db
 * @param {{ participant_id: number, name: string }} participant
 * @param {string} currency
 * @param {string} type
 * @throws 3100 when the participant has no such account
 */
async function requireAccountByType (db, participant, currency, type) {
  const account = await repo.findAccountByType(db, participant.participant_id, currency, type)
  if (!account) throw createFspiopError('VALIDATION_ERROR', `participant ${participant.name} has no ${currency} ${type} account`)
  return account
}

/** @param {{ protocol: string, host: string }} request */
const baseUrl = (request) => `${request.protocol}://${request.host}`

/**
 * The participant in central-ledger shape.
 * @param {Knex} db
 * @param {import('./mappers').ParticipantRow} participant
 * @param {string} base
 */
async function participantView (db, participant, base) {
  return toParticipant(participant, await repo.listAccounts(db, [participant.participant_id]), base)
}

module.exports = { requireParticipant, requireAccount, requireAccountByType, baseUrl, participantView }
