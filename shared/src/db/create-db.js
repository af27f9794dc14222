'use strict'

const knexFactory = require('knex')

/**
 * @typedef {import('knex').Knex} Knex
 * @typedef {{ DB_HOST: string, DB_PORT: number, DB_USER: string, DB_PASSWORD: string,
 *   DB_NAME: string, DB_POOL_MIN: number, DB_POOL_MAX: number }} DbConfig
 */

/**
 * A knex instance on mysql2. DECIMAL and BIGINT columns come back as strings
 * (money is parsed into BigInt by shared/money, never via a JS number), and
 * dates as UTC.
 *
 * @param {DbConfig} config
 * @param {{ database?: string | null }} [opts] database: null connects without selecting one
 * @returns {Knex}
 */
function createDb (config, { database } = {}) {
  return knexFactory({
    client: 'mysql2',
    connection: {
      host: config.DB_HOST,
      port: config.DB_PORT,
      user: config.DB_USER,
      password: config.DB_PASSWORD,
      database: database === null ? undefined : (database || config.DB_NAME),
      decimalNumbers: false,
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: false,
      timezone: 'Z',
      charset: 'utf8mb4',
      multipleStatements: false
    },
    pool: { min: config.DB_POOL_MIN, max: config.DB_POOL_MAX },
    acquireConnectionTimeout: 10000
  })
}

/**
 * Creates the database if it does not exist (used by migrations and tests).
 * @param {DbConfig} config
 * @param {string} name
 */
async function ensureDatabase (config, name) {
  const db = createDb({ ...config, DB_POOL_MIN: 0, DB_POOL_MAX: 1 }, { database: null })
  try {
    await db.raw(`CREATE DATABASE IF NOT EXISTS \`${name.replace(/`/g, '')}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
  } finally {
    await db.destroy()
  }
}

/** @param {Knex} db */
async function isReachable (db) {
  await db.raw('SELECT 1')
  return true
}

module.exports = { createDb, ensureDatabase, isReachable }
