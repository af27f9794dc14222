'use strict'

// Health in Mojaloop's shape ({ status, uptime, startTime, versionNumber,
// services: [{ name, status }] }) so existing dashboards and probes read it.
// A process is healthy when its broker and its database both answer.

const { version } = require('../package.json')
const { settledWithin } = require('./settled-within')

/**
 * @param {{ db: import('knex').Knex, admin: import('kafkajs').Admin, timeoutMs?: number }} deps
 */
function createHealthCheck ({ db, admin, timeoutMs = 2000 }) {
  const startTime = new Date()

  /** @param {() => Promise<any>} probe */
  async function status (probe) {
    const outcome = probe().then(() => 'OK', () => 'DOWN')
    return (await settledWithin(outcome, timeoutMs)) ? outcome : 'DOWN'
  }

  return async function check () {
    const [broker, datastore] = await Promise.all([
      status(() => admin.describeCluster()),
      status(() => db.raw('SELECT 1'))
    ])
    const services = [{ name: 'broker', status: broker }, { name: 'datastore', status: datastore }]
    return {
      status: services.every((s) => s.status === 'OK') ? 'OK' : 'DOWN',
      uptime: Math.round((Date.now() - startTime.getTime()) / 1000),
      startTime: startTime.toISOString(),
      versionNumber: version,
      services
    }
  }
}

module.exports = { createHealthCheck }
