'use strict'

module.exports = {
  ...require('./client'),
  ...require('./topics'),
  ...require('./envelope'),
  ...require('./producer'),
  ...require('./run-consumer'),
  ...require('./retriable'),
  ...require('./dead-letter')
}
