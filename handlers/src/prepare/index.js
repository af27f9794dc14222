'use strict'

const { createIdFilter } = require('@switchyard/shared/dedupe')
const { createPrepareHandler } = require('./handle')
const { recentTransferIds } = require('./repository')

/**
 * Wiring: the prepare consumer, with a bloom filter warmed with recent ids.
 * @param {{ config: import('@switchyard/shared/config').Config, db: import('knex').Knex, logger: import('pino').Logger }} runtime
 */
async function create ({ config, db, logger }) {
  const idFilter = createIdFilter({ capacity: config.BLOOM_CAPACITY, errorRate: config.BLOOM_ERROR_RATE })
  const ids = await recentTransferIds(db, { hours: config.BLOOM_WARM_HOURS, limit: config.BLOOM_CAPACITY })
  for (const id of ids) idFilter.add(id)
  logger.info({ warmed: ids.length }, 'duplicate filter ready')
  return {
    ...createPrepareHandler({ config, idFilter })
  }
}

module.exports = { create }
