'use strict'

// Every handler this package can run, by the name used in HANDLERS.
// A handler module exports `create(runtime)` returning either a consumer
// ({ groupId, topics, handleBatch }) run by the shared runner, or a service
// ({ start, stop }) such as a poller or a dispatcher.

/** @type {Record<string, () => { create: (runtime: any) => any }>} */
const HANDLERS = {
  notification: () => require('./notification')
}

const names = () => Object.keys(HANDLERS)

module.exports = { HANDLERS, names }
