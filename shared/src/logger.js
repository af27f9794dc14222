'use strict'

const pino = require('pino')

/**
 * A pino logger. Tests and tools pass their own destination; processes log
 * JSON lines to stdout.
 * @param {import('./config').Config} config
 * @param {{ name?: string, destination?: import('pino').DestinationStream }} [opts]
 */
function createLogger (config, { name, destination } = {}) {
  return pino({ name, level: config.LOG_LEVEL, base: { pid: process.pid } }, destination)
}

module.exports = { createLogger }
