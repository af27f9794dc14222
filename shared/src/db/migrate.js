'use strict'

const path = require('node:path')

const MIGRATIONS_DIR = path.join(__dirname, 'migrations')

/**
 * Applies every pending migration. Safe to run from several processes at
 * once: knex takes a lock table.
 * @param {import('knex').Knex} db
 * @returns {Promise<string[]>} names of the migrations applied now
 */
async function migrateLatest (db) {
  const [, applied] = await db.migrate.latest({ directory: MIGRATIONS_DIR, loadExtensions: ['.js'] })
  return applied
}

module.exports = { migrateLatest }
