'use strict'

// Every handler this package can run, by the name used in HANDLERS.
// A handler module exports `create(runtime)` returning (or resolving to)
// either a consumer ({ groupId, topics, handleBatch }) run by the shared
// runner, or a service ({ start, stop }) such as a poller or a dispatcher.

/** @type {Record<string, () => { create: (runtime: any) => any }>} */
const HANDLERS = {
  prepare: () => require('./prepare'),
  position: () => require('./position'),
  fulfil: () => require('./fulfil'),
  timeout: () => require('./timeout'),
  notification: () => require('./notification')
}

const names = () => Object.keys(HANDLERS)

module.exports = { HANDLERS, names }
