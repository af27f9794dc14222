'use strict'

const pino = require('pino')

/**
 * A pino logger. Tests and tools pass their own destination; processes log
 * JSON lines to stdout.
 * @param {{ LOG_LEVEL: string, NODE_ENV?: string }} config
 * @param {{ name?: string, destination?: import('pino').DestinationStream }} [opts]
 */
function createLogger (config, { name, destination } = {}) {
  const level = config.NODE_ENV === 'test' && config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL
  return pino({ name, level, base: { pid: process.pid } }, destination)
}

module.exports = { createLogger }
