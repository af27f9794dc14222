'use strict'

module.exports = {
  ...require('./create-db'),
  ...require('./with-transaction'),
  ...require('./migrate'),
  ...require('./write-batch'),
  ...require('./folded-transaction')
}
