'use strict'

const { topicName } = require('@switchyard/shared/kafka')
const { createFulfilHandler, fulfilPrefetch } = require('./handle')

/** @param {{ config: import('@switchyard/shared/config').Config }} runtime */
function create ({ config }) {
  return {
    groupId: `${config.KAFKA_CLIENT_ID}-fulfil`,
    topics: [topicName(config, 'fulfil')],
    handleBatch: createFulfilHandler({ config }),
    prefetch: fulfilPrefetch
  }
}

module.exports = { create }
