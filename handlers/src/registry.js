'use strict'

// Every handler this package can run, by the name used in HANDLERS.
// A handler module exports `create(runtime)` returning (or resolving to)
// either a consumer ({ handleBatch, prefetch?, waitsOutsideDb? }) run by the
// shared runner as the group `<KAFKA_CLIENT_ID>-<name>` on the topic of the
// same name, or a service ({ start, stop }) such as a poller. waitsOutsideDb:
// its handleBatch waits for something else (HTTP), so it runs before the
// transaction opens, which then carries only its writes (main.js).

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
