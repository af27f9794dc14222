'use strict'

// Configuration for tests: the same stack as `npm start`, but a separate
// database so test runs never touch local development data.

const crypto = require('node:crypto')
const { loadConfig, childEnv } = require('../../shared/src/config')

const TEST_DB = 'switchyard_test'

/** @param {Record<string, string>} [overrides] */
function testConfig (overrides = {}) {
  return loadConfig(childEnv({ NODE_ENV: 'test', LOG_LEVEL: 'fatal', DB_NAME: TEST_DB, ...overrides }))
}

/** A short unique suffix for per-test topics, groups and ids. */
const unique = (prefix = 't') => `${prefix}${Date.now().toString(36)}${crypto.randomBytes(3).toString('hex')}`

module.exports = { testConfig, unique, TEST_DB }
