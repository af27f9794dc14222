'use strict'

module.exports = {
  ...require('./create-db'),
  ...require('./migrate'),
  ...require('./write-batch'),
  ...require('./folded-transaction'),
  ...require('./shared-transactions')
}
