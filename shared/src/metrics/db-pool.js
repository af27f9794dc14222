'use strict'

// The database connection pool (knex's tarn pool), read when Prometheus
// scrapes. Requests waiting for a connection ("pending") mean the pool, not
// the database, is the bottleneck: compare "used" with DB_POOL_MAX.

const { Gauge } = require('prom-client')

/**
 * @param {import('prom-client').Registry} registry
 * @param {import('knex').Knex} db
 */
function createDbPoolGauge (registry, db) {
  return new Gauge({
    name: 'switchyard_db_pool_connections',
    help: 'Database pool connections: used (checked out), free (idle), pending (acquires waiting for a connection).',
    labelNames: ['state'],
    registers: [registry],
    collect () {
      // knex creates the pool with the client and drops it on destroy().
      const pool = db && db.client && db.client.pool
      if (!pool) return
      this.set({ state: 'used' }, pool.numUsed())
      this.set({ state: 'free' }, pool.numFree())
      this.set({ state: 'pending' }, pool.numPendingAcquires())
    }
  })
}

module.exports = { createDbPoolGauge }
