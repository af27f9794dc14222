'use strict'

// The admin API's SQL for participants, accounts, limits and endpoints.
// Balances and funds transfers are in ledger-repository.js. Every function
// takes a knex instance or a transaction, so callers decide the transaction.

const { toDbDecimal } = require('@switchyard/shared/money')

/** @typedef {import('knex').Knex} Knex */
/** @typedef {import('./mappers').ParticipantRow} ParticipantRow */
/** @typedef {import('./mappers').AccountRow} AccountRow */

const PARTICIPANT_COLUMNS = ['participant_id', 'name', 'is_active', 'created_at']
const ACCOUNT_COLUMNS = ['a.account_id', 'a.participant_id', 'a.currency', 'a.ledger_account_type', 'a.is_active', 'a.created_at']
const NOW = 'CURRENT_TIMESTAMP(3)'

/**
 * @param {Knex} db
 * @param {string} name
 * @param {{ lock?: boolean }} [opts] lock: SELECT … FOR UPDATE, serialising account creation
 * @returns {Promise<ParticipantRow | undefined>}
 */
function findParticipant (db, name, { lock = false } = {}) {
  const query = db('participant').select(PARTICIPANT_COLUMNS).where({ name }).first()
  return lock ? query.forUpdate() : query
}

/** @param {Knex} db @returns {Promise<ParticipantRow[]>} */
function listParticipants (db) {
  return db('participant').select(PARTICIPANT_COLUMNS).orderBy('participant_id')
}

/**
 * Creates the participant unless it exists. Only the unique name can clash.
 * @param {Knex} db
 * @param {string} name
 */
async function insertParticipantIfMissing (db, name) {
  await db('participant').insert({ name }).onConflict('name').ignore()
}

/** @param {Knex} db @param {number} participantId @param {boolean} isActive */
function setParticipantActive (db, participantId, isActive) {
  return db('participant').where({ participant_id: participantId }).update({ is_active: isActive })
}

/**
 * @param {Knex} db
 * @param {number[] | undefined} participantIds all participants' accounts when undefined
 * @returns {Promise<AccountRow[]>}
 */
function listAccounts (db, participantIds) {
  const query = db('participant_account as a').select(ACCOUNT_COLUMNS).orderBy('a.account_id')
  return participantIds ? query.whereIn('a.participant_id', participantIds) : query
}

/**
 * @param {Knex} db
 * @param {number} participantId
 * @param {number} accountId
 * @returns {Promise<AccountRow | undefined>}
 */
function findAccount (db, participantId, accountId) {
  return db('participant_account as a').select(ACCOUNT_COLUMNS)
    .where({ 'a.participant_id': participantId, 'a.account_id': accountId }).first()
}

/**
 * @param {Knex} db
 * @param {number} participantId
 * @param {string} currency
 * @param {string} type ledger account type
 * @returns {Promise<AccountRow | undefined>}
 */
function findAccountByType (db, participantId, currency, type) {
  return db('participant_account as a').select(ACCOUNT_COLUMNS)
    .where({ 'a.participant_id': participantId, 'a.currency': currency, 'a.ledger_account_type': type }).first()
}

/**
 * @param {Knex} db
 * @param {string} hubName
 * @param {string} currency
 * @param {string} type HUB_RECONCILIATION or HUB_MULTILATERAL_SETTLEMENT
 * @returns {Promise<AccountRow | undefined>}
 */
function findHubAccount (db, hubName, currency, type) {
  return db('participant_account as a').join('participant as p', 'p.participant_id', 'a.participant_id')
    .select(ACCOUNT_COLUMNS).where({ 'p.name': hubName, 'a.currency': currency, 'a.ledger_account_type': type }).first()
}

/**
 * Creates accounts with their position rows at 0, one at a time and in the
 * order given, so their ids ascend in that order: a participant's POSITION
 * account gets a lower id than its SETTLEMENT account, and locking by
 * ascending id (ledger-repository.js) is locking position before settlement.
 * @param {Knex} trx
 * @param {number} participantId
 * @param {string} currency
 * @param {string[]} types
 */
async function createAccounts (trx, participantId, currency, types) {
  for (const type of types) {
    const [accountId] = await trx('participant_account')
      .insert({ participant_id: participantId, currency, ledger_account_type: type })
    await trx('participant_position').insert({ account_id: accountId, value: toDbDecimal(0n) })
  }
}

/** @param {Knex} db @param {number} accountId @param {boolean} isActive */
function setAccountActive (db, accountId, isActive) {
  return db('participant_account').where({ account_id: accountId }).update({ is_active: isActive })
}

/**
 * Accounts with their current values.
 * @param {Knex} db
 * @param {number} participantId
 * @param {{ currency?: string, type?: string }} [filter]
 * @returns {Promise<import('./mappers').BalanceRow[]>}
 */
function listBalances (db, participantId, { currency, type } = {}) {
  const query = db('participant_account as a').join('participant_position as pp', 'pp.account_id', 'a.account_id')
    .select([...ACCOUNT_COLUMNS, 'pp.value', 'pp.updated_at']).where('a.participant_id', participantId).orderBy('a.account_id')
  if (currency) query.where('a.currency', currency)
  if (type) query.where('a.ledger_account_type', type)
  return query
}

/**
 * @param {Knex} db
 * @param {number} participantId
 * @param {{ currency?: string, type?: string }} [filter]
 * @returns {Promise<import('./mappers').LimitRow[]>}
 */
function listLimits (db, participantId, { currency, type } = {}) {
  const query = db('participant_limit as l').join('participant_account as a', 'a.account_id', 'l.account_id')
    .select(['a.currency', 'l.limit_type', 'l.value']).where('a.participant_id', participantId).orderBy(['a.currency', 'l.limit_type'])
  if (currency) query.where('a.currency', currency)
  if (type) query.where('l.limit_type', type)
  return query
}

/** @param {Knex} db @param {number} accountId @param {string} type */
function findLimit (db, accountId, type) {
  return db('participant_limit').select(['account_id', 'limit_type', 'value']).where({ account_id: accountId, limit_type: type }).first()
}

/** @param {Knex} db @param {number} accountId @param {string} type @param {bigint} value */
function insertLimit (db, accountId, type, value) {
  return db('participant_limit').insert({ account_id: accountId, limit_type: type, value: toDbDecimal(value) })
}

/** @param {Knex} db @param {number} accountId @param {string} type @param {bigint} value @returns {Promise<number>} rows changed */
function updateLimit (db, accountId, type, value) {
  return db('participant_limit').where({ account_id: accountId, limit_type: type })
    .update({ value: toDbDecimal(value), updated_at: db.raw(NOW) })
}

/** @param {Knex} db @param {number} participantId @param {string} type @param {string} value */
function upsertEndpoint (db, participantId, type, value) {
  return db('participant_endpoint').insert({ participant_id: participantId, endpoint_type: type, value })
    .onConflict(['participant_id', 'endpoint_type']).merge({ value, updated_at: db.raw(NOW) })
}

/**
 * @param {Knex} db
 * @param {number} participantId
 * @param {string} [type]
 * @returns {Promise<Array<{ endpoint_type: string, value: string }>>}
 */
function listEndpoints (db, participantId, type) {
  const query = db('participant_endpoint').select(['endpoint_type', 'value']).where({ participant_id: participantId }).orderBy('endpoint_type')
  return type ? query.where({ endpoint_type: type }) : query
}

module.exports = {
  findParticipant,
  listParticipants,
  insertParticipantIfMissing,
  setParticipantActive,
  listAccounts,
  findAccount,
  findAccountByType,
  findHubAccount,
  createAccounts,
  setAccountActive,
  listBalances,
  listLimits,
  findLimit,
  insertLimit,
  updateLimit,
  upsertEndpoint,
  listEndpoints
}
