'use strict'

// A campaign migrates its ledger with the code it measures (migrateAs), so an
// older revision runs on the schema it shipped with; a ledger that newer code
// already migrated keeps its schema, and the older code runs on it.

const fs = require('node:fs')
const path = require('node:path')
const { testConfig, unique } = require('../../../test/support/config')
const { createDb } = require('../../../shared/src/db')
const { shippedMigrations } = require('../../../shared/src/db/migrate')
const { migrateAs, root } = require('../../src/bench/sut')
const { snapshotTree } = require('../../src/bench/snapshot')

const config = testConfig()
const shipped = shippedMigrations()
const newest = shipped[shipped.length - 1]
/** @type {ReturnType<typeof snapshotTree>} */
let older
/** @type {string[]} */
const databases = []
/** @type {import('knex').Knex} */
let admin

beforeAll(() => {
  admin = createDb(config)
  // The working tree without its newest migration: as a revision before it shipped.
  older = snapshotTree(root)
  fs.rmSync(path.join(older.dir, 'shared', 'src', 'db', 'migrations', newest))
})

afterAll(async () => {
  for (const name of databases) await admin.raw('DROP DATABASE IF EXISTS ??', [name])
  await admin.destroy()
  older.remove()
})

/** A database name nothing has used: migrateAs creates it, as after a campaign drops its scratch ledger. */
function scratch () {
  const name = `${unique('mig').replace(/[^a-z0-9_]/gi, '_')}`.slice(0, 60)
  databases.push(name)
  return name
}

/** @param {string} name */
async function appliedIn (name) {
  const db = createDb(config, { database: name })
  try {
    return (await db('knex_migrations').orderBy('id').select('name')).map((r) => r.name)
  } finally {
    await db.destroy()
  }
}

const env = () => (config.DB_SOCKET ? { DB_SOCKET: config.DB_SOCKET } : {})

test('the code under test gets the schema it shipped with, not the bench\'s newer one, in a database made for it', async () => {
  const name = scratch()
  const said = []
  await migrateAs(older.dir, name, env(), (m) => said.push(m))
  expect(await appliedIn(name)).toEqual(shipped.slice(0, -1))
  expect(said).toEqual([`applied ${shipped.length - 1} migration(s) of the code under test to ${name}`])

  await migrateAs(root, name, env(), (m) => said.push(m))
  expect(await appliedIn(name)).toEqual(shipped)
})

test('a ledger that newer code migrated keeps its schema: the older code says so and runs on it', async () => {
  const name = scratch()
  await migrateAs(root, name, env(), () => {})
  const said = []
  await migrateAs(older.dir, name, env(), (m) => said.push(m))
  expect(await appliedIn(name)).toEqual(shipped)
  expect(said).toHaveLength(1)
  expect(said[0]).toContain(`${name} has migrations newer than the code under test`)
  expect(said[0]).toContain(newest)
})

test('a migration that fails is an error that names the database', async () => {
  const name = scratch()
  const broken = snapshotTree(root)
  try {
    fs.writeFileSync(path.join(broken.dir, 'shared', 'src', 'db', 'migrations', '29991231000000_broken.js'),
      "exports.up = (knex) => knex.raw('ALTER TABLE no_such_table ADD COLUMN x INT'); exports.down = async () => {}\n")
    await expect(migrateAs(broken.dir, name, env(), () => {})).rejects.toThrow(new RegExp(`migrating ${name} with the code under test failed: .*no_such_table`))
  } finally {
    broken.remove()
  }
})
