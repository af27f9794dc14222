'use strict'

// Health in Mojaloop's shape ({ status, uptime, startTime, versionNumber,
// services: [{ name, status }] }) so existing dashboards and probes read it.
// A process is healthy when every service it is asked about answers: by
// default its broker and its database (/health); a caller may ask about
// fewer, as the api-adapter's readiness asks about the broker alone (its
// participant API publishes to Kafka and never reads MySQL).

const { version } = require('../package.json')
const { settledWithin } = require('./settled-within')

/** @typedef {'broker' | 'datastore'} ServiceName */
/** @typedef {{ services?: ServiceName[] }} HealthCheckOptions which services to check, in report order; all by default */

/** @type {ServiceName[]} */
const ALL_SERVICES = ['broker', 'datastore']

/**
 * @param {{ db: import('knex').Knex, admin: import('kafkajs').Admin, timeoutMs?: number }} deps
 */
function createHealthCheck ({ db, admin, timeoutMs = 2000 }) {
  const startTime = new Date()
  /** @type {Record<ServiceName, () => Promise<unknown>>} */
  const probes = {
    broker: () => admin.describeCluster(),
    datastore: () => db.raw('SELECT 1')
  }

  /** @param {() => Promise<unknown>} probe */
  async function status (probe) {
    const outcome = probe().then(() => 'OK', () => 'DOWN')
    return (await settledWithin(outcome, timeoutMs)) ? outcome : 'DOWN'
  }

  /** @param {HealthCheckOptions} [options] */
  return async function check ({ services: names = ALL_SERVICES } = {}) {
    const services = await Promise.all(names.map(async (name) => ({ name, status: await status(probes[name]) })))
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
