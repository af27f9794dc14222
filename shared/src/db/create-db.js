'use strict'

const knexFactory = require('knex')
const { createRepeatGate } = require('../log-repeats')
const { tlsOptions } = require('../tls-files')

/**
 * @typedef {import('knex').Knex} Knex
 * @typedef {import('../config').Config} DbConfig
 */

/** How many prepared statements one connection keeps at most. */
const PREPARED_PER_CONNECTION = 1024
/** The knex instances created with DB_PREPARED_WRITES. @type {WeakSet<Knex>} */
const preparedWriters = new WeakSet()

/**
 * knex's warn and error, each message's first line at most once a minute
 * with a count: while the database is away, knex warns of every connection
 * it fails to make, stack and all.
 * @param {import('pino').Logger} logger
 */
function repeatGated (logger) {
  const pass = createRepeatGate()
  /** @param {'warn' | 'error'} level @returns {(m: unknown) => void} */
  const gated = (level) => (m) => {
    const text = String(m)
    const logged = pass(text.split('\n')[0])
    if (logged) logger[level]({ component: 'knex', ...(logged.leftOut ? { leftOut: logged.leftOut } : {}) }, text)
  }
  return { warn: gated('warn'), error: gated('error') }
}

/**
 * A knex instance on mysql2. DECIMAL and BIGINT columns come back as strings
 * (money is parsed into BigInt by shared/money, never via a JS number), and
 * dates as UTC.
 *
 * @param {DbConfig} config
 * @param {{ database?: string | null, logger?: import('pino').Logger }} [opts] database: null connects
 *   without selecting one; logger: where knex's own warnings go (a lost connection, a pool that
 *   cannot connect), as structured lines with the process's others instead of bare console output
 * @returns {Knex}
 */
function createDb (config, { database, logger } = {}) {
  const db = knexFactory({
    client: 'mysql2',
    ...(logger
      ? {
          log: {
            ...repeatGated(logger),
            deprecate: (/** @type {unknown} */ m) => logger.warn({ component: 'knex' }, String(m)),
            debug: (/** @type {unknown} */ m) => logger.debug({ component: 'knex' }, String(m))
          }
        }
      : {}),
    connection: {
      // A server on this machine is cheaper to reach over its Unix socket
      // than over loopback TCP (each round trip is two socket writes).
      ...(config.DB_SOCKET ? { socketPath: config.DB_SOCKET } : { host: config.DB_HOST, port: config.DB_PORT }),
      // Over TCP only (loadConfig refuses DB_TLS with DB_SOCKET). mysql2
      // checks the host name only when asked (verifyIdentity).
      ...(!config.DB_SOCKET && config.DB_TLS ? { ssl: { ...tlsOptions(config, 'DB'), verifyIdentity: true } } : {}),
      user: config.DB_USER,
      password: config.DB_PASSWORD,
      database: database === null ? undefined : (database || config.DB_NAME),
      decimalNumbers: false,
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: false,
      timezone: 'Z',
      charset: 'utf8mb4',
      // A handler's writes go in one round trip (shared/src/db/write-batch.js);
      // every value is a bound parameter, never spliced into SQL.
      multipleStatements: true,
      // Prepared statements a connection keeps (DB_PREPARED_WRITES; the least
      // recently used is closed). A multi-row statement has a shape per row
      // count: with 128 a connection prepared again for one write in seven at
      // 1,000/s. MariaDB allows max_prepared_stmt_count (16,382 by default)
      // for all connections together; a connection refused one writes as text.
      maxPreparedStatements: PREPARED_PER_CONNECTION
    },
    pool: {
      min: config.DB_POOL_MIN,
      max: config.DB_POOL_MAX,
      // READ COMMITTED: `SELECT … FOR UPDATE` locks the rows it finds and no
      // gaps, so consumers of different partitions never block each other
      // through next-key locks on shared index ranges. Set once per
      // connection instead of once per transaction.
      afterCreate: (conn, done) => {
        conn.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', (err) => {
          if (err) return done(err, conn)
          conn.query("SET time_zone = '+00:00'", (err2) => done(err2, conn))
        })
      }
    },
    acquireConnectionTimeout: 10000
  })
  if (config.DB_PREPARED_WRITES) preparedWriters.add(db)
  return db
}

/**
 * Whether transactions on this knex instance send their writes as prepared
 * statements (DB_PREPARED_WRITES; folded-transaction.js).
 * @param {Knex} db
 */
const writesPrepared = (db) => preparedWriters.has(db)

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

module.exports = { createDb, ensureDatabase, writesPrepared }
