'use strict'

const fs = require('node:fs')
const path = require('node:path')

const MIGRATIONS_DIR = path.join(__dirname, 'migrations')
/** Where knex records the migrations it applied, one row each, by file name. */
const MIGRATIONS_TABLE = 'knex_migrations'

/**
 * Applies every pending migration. Safe to run from several processes at
 * once: knex takes a lock table.
 * @param {import('knex').Knex} db
 * @returns {Promise<string[]>} names of the migrations applied now
 */
async function migrateLatest (db) {
  const [, applied] = await db.migrate.latest({ directory: MIGRATIONS_DIR, tableName: MIGRATIONS_TABLE, loadExtensions: ['.js'] })
  return applied
}

/**
 * The migrations this build ships, in the order knex applies them: the file
 * names it records in MIGRATIONS_TABLE.
 * @returns {string[]}
 */
function shippedMigrations () {
  return fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.js')).sort()
}

module.exports = { migrateLatest, shippedMigrations, MIGRATIONS_TABLE }
