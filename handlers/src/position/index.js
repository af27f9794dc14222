'use strict'

const { createPositionHandler, positionPrefetch } = require('./handle')

/**
 * Wiring: the position consumer (group and topic named after it, handlers/src/main.js).
 * @param {{ config: import('@switchyard/shared/config').Config }} runtime
 */
function create ({ config }) {
  return { handleBatch: createPositionHandler({ config }), prefetch: positionPrefetch }
}

module.exports = { create }
