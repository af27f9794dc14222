'use strict'

module.exports = {
  ...require('./register'),
  ...require('./propagation'),
  ...require('./stage-spans')
}
