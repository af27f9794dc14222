'use strict'

// A partition's progress row only moves forward: a consumer that read its
// progress without a lock (reads first) and lost the partition may commit an
// older chunk after the new owner committed newer ones.

const { testConfig, unique } = require('../../../test/support/config')
const { createDb, createWriteBatch } = require('../../src/db')
const { recordProgress, progressQuery, toProgress } = require('../../src/kafka/progress')
const { toWire } = require('../../src/kafka/envelope')

let db
beforeAll(() => { db = createDb(testConfig()) })
afterAll(() => db.destroy())

const where = { group: unique('g'), topic: 'c/sy.notification', partition: 0 }
const message = (id) => toWire({ topic: 'sy.out', key: id, value: { id } })

async function record (firstOffset, lastOffset, id) {
  const writes = createWriteBatch()
  recordProgress(writes, where, { firstOffset, lastOffset, outgoing: [message(id)] })
  await db.transaction((trx) => writes.flush(trx))
}

async function stored () {
  const { sql, bindings } = progressQuery({ ...where, fromOffset: 0n })
  return toProgress((await db.raw(sql, bindings))[0])
}

test('a later chunk replaces the row; an older one committed after it changes nothing', async () => {
  await record(0n, 99n, 'first')
  await record(100n, 199n, 'new owner')
  expect(await stored()).toEqual({ appliedThrough: 199n, last: { firstOffset: 100n, lastOffset: 199n, outgoing: [message('new owner')] } })
  await record(100n, 149n, 'stale owner')
  expect(await stored()).toEqual({ appliedThrough: 199n, last: { firstOffset: 100n, lastOffset: 199n, outgoing: [message('new owner')] } })
  // The same range again (a replay re-stored) still writes.
  await record(150n, 199n, 'replay')
  expect((await stored()).last).toEqual({ firstOffset: 150n, lastOffset: 199n, outgoing: [message('replay')] })
})
