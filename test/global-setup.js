'use strict'

// Brings up the real local stack (Kafka + MariaDB) once for the integration
// tests, with a database of its own. Stops afterwards only what it started.

const fs = require('node:fs')
const path = require('node:path')
const stack = require('../scripts/stack/index')
const { stackPaths } = require('../scripts/stack/paths')
const { createDb } = require('../shared/src/db')
const { createKafkaFromConfig } = require('../shared/src/kafka')

/** @param {import('../shared/src/config').Config} config */
async function listTopics (config) {
  const admin = createKafkaFromConfig(config).admin()
  await admin.connect()
  try { return await admin.listTopics() } finally { await admin.disconnect() }
}
const { testConfig, TEST_DB } = require('./support/config')

/**
 * Where setup tells teardown what it started: in the stack's folder, so a
 * STACK_DIR elsewhere is honoured. @param {import('../shared/src/config').Config} config
 */
const markerFile = (config) => path.join(stackPaths(config).stack, 'started-by-tests.json')

module.exports = async function globalSetup () {
  const config = testConfig()
  const t0 = Date.now()
  const say = (m) => console.log(`\n[stack] ${m}`)
  let started
  try {
    // No database here: the test database is dropped and migrated below.
    ({ started } = await stack.up(config, { databases: [], say }))
    // The test database is disposable: every run starts from an empty ledger,
    // so ledger invariants are never disturbed by an earlier, interrupted run.
    const db = createDb(config, { database: null })
    try { await db.raw(`DROP DATABASE IF EXISTS \`${TEST_DB}\``) } finally { await db.destroy() }
    await stack.migrate(config, TEST_DB)
    // Tests create their own topics; teardown deletes those this run added, so
    // a long-lived local broker does not accumulate thousands of partitions.
    const existingTopics = await listTopics(config)
    const marker = markerFile(config)
    fs.mkdirSync(path.dirname(marker), { recursive: true })
    fs.writeFileSync(marker, JSON.stringify({ started, existingTopics }))
  } catch (err) {
    // Jest skips globalTeardown when setup fails: stop what this run started,
    // whether stack.up itself failed (it says what it started) or a later step.
    const only = Object.entries(started || err.started || {}).filter(([, v]) => v).map(([k]) => k)
    if (only.length) await stack.down(config, { say, only }).catch(() => {})
    throw err
  }
  console.log(`\n[stack] ready in ${Date.now() - t0} ms`)
}

module.exports.markerFile = markerFile
