'use strict'

const fs = require('node:fs')
const stack = require('../scripts/stack/index')
const { testConfig } = require('./support/config')
const { markerFile } = require('./global-setup')

const { createKafkaFromConfig } = require('../shared/src/kafka')

/** Deletes the topics this test run created. @param {string[]} before */
async function deleteNewTopics (before) {
  const admin = createKafkaFromConfig(testConfig()).admin()
  await admin.connect()
  try {
    const keep = new Set(before)
    const added = (await admin.listTopics()).filter((t) => !keep.has(t) && !t.startsWith('__'))
    for (let i = 0; i < added.length; i += 100) await admin.deleteTopics({ topics: added.slice(i, i + 100), timeout: 30000 })
  } finally {
    await admin.disconnect()
  }
}

module.exports = async function globalTeardown () {
  let started = { kafka: false, mariadb: false }
  let existingTopics
  const marker = markerFile(testConfig())
  try { ({ started, existingTopics } = JSON.parse(fs.readFileSync(marker, 'utf8'))) } catch {}
  fs.rmSync(marker, { force: true })
  if (existingTopics) await deleteNewTopics(existingTopics).catch((err) => console.log(`[stack] could not delete test topics: ${err.message}`))
  const only = Object.entries(started).filter(([, v]) => v).map(([k]) => k)
  if (only.length) await stack.down(testConfig(), { only, say: (m) => console.log(`[stack] ${m}`) })
}
