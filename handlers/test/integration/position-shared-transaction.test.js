'use strict'

// Two position chunks that move one account, in one shared transaction (as
// after the partition count grew, while the account's messages are in two
// partitions): on one connection their locked reads do not keep them apart,
// so both would plan from the same value and one move would be lost. The
// position handler's write names the account; the shared transaction then
// runs them alone, one after the other, and both moves count.

const { testConfig, unique } = require('../../../test/support/config')
const { createDb, createSharedTransactions } = require('../../../shared/src/db')
const { parseAmount } = require('../../../shared/src/money')
const { accountsQuery, toAccounts, saveAccountValues } = require('../../src/position/repository')

let db
let accountId
let participantId

beforeAll(async () => {
  db = createDb(testConfig())
  ;[participantId] = await db('participant').insert({ name: unique('pos') })
  ;[accountId] = await db('participant_account').insert({ participant_id: participantId, currency: 'USD', ledger_account_type: 'POSITION' })
  await db('participant_position').insert({ account_id: accountId, value: 0 })
})

afterAll(async () => {
  await db('participant_position').where({ account_id: accountId }).delete()
  await db('participant_account').where({ account_id: accountId }).delete()
  await db('participant').where({ participant_id: participantId }).delete()
  await db.destroy()
})

/** A position chunk's work: read the account locked, add `amount` to it. @param {string} amount */
const move = (amount) => async ({ writes, begin }) => {
  const [rows] = await begin([accountsQuery([accountId])])
  const before = /** @type {bigint} */ (toAccounts(rows).get(accountId)?.value)
  saveAccountValues(writes, new Map([[accountId, before + parseAmount(amount)]]), new Map([[accountId, 1]]))
  return before
}

test('both moves of one account count, and its change sequence says two', async () => {
  const groups = []
  const shared = createSharedTransactions(db, { maxOpen: 1, onGroup: ({ ms, windowMs, ...g }) => groups.push(g) })
  await Promise.all([shared.run(move('100')), shared.run(move('250'))])
  const row = await db('participant_position').where({ account_id: accountId }).first()
  expect([row.value, Number(row.change_seq)]).toEqual(['350.0000', 2])
  expect(groups).toEqual([{ members: 2, records: 2, rolledBack: true }])
})
