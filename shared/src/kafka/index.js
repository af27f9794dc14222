'use strict'

module.exports = {
  ...require('./client'),
  ...require('./topics'),
  ...require('./envelope'),
  ...require('./producer'),
  ...require('./run-consumer'),
  runnerSettings: require('./runner-settings').runnerSettings,
  ...require('./retriable'),
  ...require('./dead-letter')
}
