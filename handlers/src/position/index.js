'use strict'

const { topicName } = require('@switchyard/shared/kafka')
const { createPositionHandler, positionPrefetch } = require('./handle')

/** @param {{ config: import('@switchyard/shared/config').Config }} runtime */
function create ({ config }) {
  return {
    groupId: `${config.KAFKA_CLIENT_ID}-position`,
    topics: [topicName(config, 'position')],
    handleBatch: createPositionHandler({ config }),
    prefetch: positionPrefetch
  }
}

module.exports = { create }
