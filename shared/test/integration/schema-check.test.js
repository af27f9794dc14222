'use strict'

// A process refuses to run against a database that lacks a migration its
// build ships (an image upgraded without its migrations hook, an old local
// database): the api-adapter and a handler process each exit with 1 and one
// fatal line naming the migration and what applies it. With the migration
// applied they start; a migration only a newer release knows is a warning.
// Each process is the real one, started as an operator starts it, on a
// scratch database migrated to all but the last migration.

const { startProcess } = require('../../../test/support/processes')
const { startTcpRelay } = require('../../../test/support/tcp-relay')
const { testConfig, unique } = require('../../../test/support/config')
const { createDb, migrateLatest, shippedMigrations, MIGRATIONS_TABLE } = require('../../src/db')
const { createTopics } = require('../../../scripts/stack/index')

const scratch = unique('switchyard_test_schema_')
const last = shippedMigrations().at(-1)
const admin = createDb(testConfig())
/** @type {import('knex').Knex} */
let db
/** The last migration's row, deleted from the scratch database until a test puts it back. */
let lastRow

// Topics of their own, as an operator creates them before starting handlers.
const id = unique('schema')
const kafkaEnv = { KAFKA_TOPIC_PREFIX: `${id}.`, KAFKA_CLIENT_ID: id }

beforeAll(async () => {
  await admin.raw(`CREATE DATABASE \`${scratch}\``)
  db = createDb(testConfig({ DB_NAME: scratch }))
  await migrateLatest(db)
  lastRow = await db(MIGRATIONS_TABLE).where({ name: last }).first()
  await db(MIGRATIONS_TABLE).where({ name: last }).del()
  await createTopics(testConfig(kafkaEnv))
})

afterAll(async () => {
  if (db) await db.destroy()
  await admin.raw(`DROP DATABASE IF EXISTS \`${scratch}\``)
  await admin.destroy()
})

/** The processes under test, on the scratch database. @param {Record<string, string>} [env] */
const processes = (env = {}) => [
  startProcess('api-adapter/src/server.js', [], { ...kafkaEnv, DB_NAME: scratch, API_PORT: '0', ADMIN_PORT: '0', STACK: 'off', ...env }),
  startProcess('handlers/src/main.js', ['position'], { ...kafkaEnv, DB_NAME: scratch, HEALTH_PORT: '0', STACK: 'off', ...env })
]

/** The JSON log lines of a process at a level. @param {{ output: () => string }} proc @param {number} level */
const logLines = (proc, level) => proc.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).filter((l) => l.level === level)

/** @param {ReturnType<typeof startProcess>} proc */
async function expectRefusal (proc) {
  expect(await proc.exited).toEqual({ code: 1, signal: null })
  const [fatal, ...more] = logLines(proc, 60)
  expect(more).toEqual([])
  expect(fatal).toMatchObject({ database: scratch, missing: [last] })
  expect(fatal.msg).toContain(`database "${scratch}" lacks a migration this build needs: ${last}.`)
  expect(fatal.msg).toContain('`npm run migrate`')
  expect(fatal.msg).toContain('migrations hook job')
}

test('without the last migration, the api-adapter and a handler process exit with 1, naming it and what applies it', async () => {
  const procs = processes()
  try {
    for (const proc of procs) await expectRefusal(proc)
  } finally {
    await Promise.all(procs.map((p) => p.stop()))
  }
})

test('a database that answers only after the start: the api-adapter and the handler process serve their probes meanwhile, the handler waits, both refuse once it answers', async () => {
  // In front of the stack's MariaDB, a relay that is away until the test brings it back.
  const { DB_HOST, DB_PORT } = testConfig()
  const relay = await startTcpRelay({ host: DB_HOST, port: DB_PORT })
  await relay.down()
  const [api, handler] = processes({ DB_HOST: '127.0.0.1', DB_PORT: String(relay.port()), DB_SOCKET: '', LOG_LEVEL: 'info' })
  try {
    const [, url] = await api.waitForOutput(/"url":"(http:\/\/[^"]+)"/)
    const res = await fetch(`${url}/health`)
    expect(res.status).toBe(502)
    expect((await res.json()).services).toContainEqual({ name: 'datastore', status: 'DOWN' })
    await handler.waitForOutput(/cannot read the migrations of database/)
    // The handler process is alive (no restart would help) and not ready: nothing consumes yet.
    const [, healthUrl] = await handler.waitForOutput(/"healthUrl":"(http:\/\/[^"]+)"/)
    expect((await fetch(healthUrl.replace(/\/health$/, '/livez'))).status).toBe(200)
    const health = await fetch(healthUrl)
    expect(health.status).toBe(502)
    expect((await health.json()).services).toEqual([{ name: 'broker', status: 'OK' }, { name: 'datastore', status: 'DOWN' }, { name: 'handlers', status: 'DOWN' }])
    expect((await fetch(healthUrl.replace(/\/health$/, '/metrics'))).status).toBe(200)
    expect(handler.output()).not.toMatch(/handlers running/)
    await relay.up()
    for (const proc of [api, handler]) await expectRefusal(proc)
    expect(handler.output()).not.toMatch(/handlers running/)
  } finally {
    await Promise.all([api, handler].map((p) => p.stop()))
    await relay.close()
  }
})

test('with every migration applied both start, and one a newer release applied is a warning', async () => {
  const newer = '29991231235959_from_a_newer_release.js'
  await db(MIGRATIONS_TABLE).insert([lastRow, { name: newer, batch: lastRow.batch + 1, migration_time: new Date() }])
  const [api, handler] = processes({ LOG_LEVEL: 'info' })
  try {
    await api.waitForOutput(/api-adapter listening/)
    await handler.waitForOutput(/handlers running/)
    for (const proc of [api, handler]) {
      expect(logLines(proc, 60)).toEqual([])
      expect(logLines(proc, 40).filter((l) => l.unknown)).toEqual([
        expect.objectContaining({ database: scratch, unknown: [newer], msg: expect.stringContaining(`has a migration this build does not know: ${newer}.`) })
      ])
    }
  } finally {
    for (const proc of [api, handler]) expect(await proc.stop()).toEqual({ code: 0, signal: null })
  }
})
