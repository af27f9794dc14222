'use strict'

// consumer_progress.outgoing went from text to binary (compressed when
// large). Both directions of that migration keep every stored copy readable:
// a replay after a crash must find the messages whatever the schema was.

const path = require('node:path')
const { testConfig, unique } = require('../../../test/support/config')
const { createDb, migrateLatest } = require('../../src/db')
const { packOutgoing, encodeOutgoing, progressQuery, toProgress } = require('../../src/kafka/progress')
const { toWire } = require('../../src/kafka/envelope')

const MIGRATIONS = { directory: path.join(__dirname, '../../src/db/migrations'), loadExtensions: ['.js'] }
const scratch = unique('sy_mig_')
const admin = createDb(testConfig())
let db

beforeAll(async () => {
  await admin.raw(`CREATE DATABASE \`${scratch}\``)
  db = createDb(testConfig({ DB_NAME: scratch }))
  await migrateLatest(db)
})

afterAll(async () => {
  if (db) await db.destroy()
  await admin.raw(`DROP DATABASE IF EXISTS \`${scratch}\``)
  await admin.destroy()
})

const messages = Array.from({ length: 30 }, (_, i) => toWire({ topic: 'sy.notification', key: `fsp${i}`, value: { to: `fsp${i}`, body: { transferId: `t-${i}`, note: 'é 🚀 "quoted"' } } }))
const where = { group: 'g', topic: 'c/sy.position', partition: 0, fromOffset: 0n }

async function stored () {
  const { sql, bindings } = progressQuery(where)
  const [rows] = await db.raw(sql, bindings)
  return toProgress(rows)
}

test('a compressed copy reads back, survives the down migration as text, and the up migration again', async () => {
  const packed = packOutgoing(messages)
  expect(packed.length).toBeLessThan(Buffer.byteLength(encodeOutgoing(messages)) / 4)
  await db('consumer_progress').insert({ consumer_group: 'g', topic: 'c/sy.position', kafka_partition: 0, first_offset: 0, last_offset: 29, outgoing: packed })
  const expected = { appliedThrough: 29n, last: { firstOffset: 0n, lastOffset: 29n, outgoing: messages } }
  expect(await stored()).toEqual(expected)

  // That migration alone, whatever came after it.
  await db.migrate.down({ ...MIGRATIONS, name: '20261121000005_consumer_progress_binary.js' })
  const [[column]] = await db.raw("SELECT DATA_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'consumer_progress' AND COLUMN_NAME = 'outgoing'", [scratch])
  expect(column.type).toBe('longtext')
  const [[row]] = await db.raw('SELECT outgoing FROM consumer_progress')
  expect(row.outgoing).toBe(encodeOutgoing(messages))
  expect(await stored()).toEqual(expected)

  await migrateLatest(db)
  expect(await stored()).toEqual(expected)
})
