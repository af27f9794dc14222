'use strict'

module.exports = {
  ...require('./register'),
  ...require('./headers'),
  ...require('./stage-spans')
}
