'use strict'

const fs = require('node:fs')
const stack = require('../scripts/stack/index')
const { testConfig } = require('./support/config')
const { MARKER } = require('./global-setup')

module.exports = async function globalTeardown () {
  let started = { kafka: false, mariadb: false }
  try { started = JSON.parse(fs.readFileSync(MARKER, 'utf8')) } catch {}
  fs.rmSync(MARKER, { force: true })
  const only = Object.entries(started).filter(([, v]) => v).map(([k]) => k)
  if (only.length) await stack.down(testConfig(), { only, say: (m) => console.log(`[stack] ${m}`) })
}
