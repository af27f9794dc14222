'use strict'

// A database created case-insensitive (as docker-compose's MySQL did before it
// was started with utf8mb4_bin; as a DBA may) still gets a ledger whose names
// and ids compare byte for byte once migrated.

const { testConfig, unique } = require('../../../test/support/config')
const { createDb, migrateLatest } = require('../../src/db')

const scratch = unique('sy_ci_')
const admin = createDb(testConfig())
let db

beforeAll(async () => {
  await admin.raw(`CREATE DATABASE \`${scratch}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`)
  db = createDb(testConfig({ DB_NAME: scratch }))
  await migrateLatest(db)
})

afterAll(async () => {
  if (db) await db.destroy()
  await admin.raw(`DROP DATABASE IF EXISTS \`${scratch}\``)
  await admin.destroy()
})

test('names that differ only in case are different participants', async () => {
  await db('participant').insert([{ name: 'dfspA' }, { name: 'DFSPA' }])
  expect((await db('participant').where({ name: 'dfspa' })).length).toBe(0)
  expect((await db('participant').whereIn('name', ['dfspA', 'DFSPA'])).map((p) => p.name).sort()).toEqual(['DFSPA', 'dfspA'])
})

test('every text column of the ledger, and the database default for tables to come, is utf8mb4_bin', async () => {
  const [columns] = await db.raw(
    `SELECT DISTINCT COLLATION_NAME AS collation FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = ? AND COLLATION_NAME IS NOT NULL AND TABLE_NAME NOT LIKE 'knex\\_migrations%'`, [scratch])
  expect(columns.map((c) => c.collation)).toEqual(['utf8mb4_bin'])
  const [[schema]] = await db.raw('SELECT DEFAULT_COLLATION_NAME AS collation FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [scratch])
  expect(schema.collation).toBe('utf8mb4_bin')
})
