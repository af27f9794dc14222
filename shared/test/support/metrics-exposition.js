'use strict'

// The strict reader of the Prometheus text format lives with the metrics
// (shared/src/metrics/exposition.js); tests read expositions through it.

const { parseExposition, valueOf } = require('../../src/metrics/exposition')

module.exports = { parseExposition, valueOf }
