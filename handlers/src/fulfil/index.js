'use strict'

const { createFulfilHandler, fulfilPrefetch } = require('./handle')

/**
 * Wiring: the fulfil consumer (group and topic named after it, handlers/src/main.js).
 * @param {{ config: import('@switchyard/shared/config').Config }} runtime
 */
function create ({ config }) {
  return { handleBatch: createFulfilHandler({ config }), prefetch: fulfilPrefetch }
}

module.exports = { create }
