'use strict'

module.exports = {
  ...require('./register'),
  ...require('./stage-spans')
}
