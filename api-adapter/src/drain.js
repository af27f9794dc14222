'use strict'

// Closing an HTTP server whose clients keep their connections. Participants
// hold keep-alive connections (API keepAliveTimeout 65 s) and send on them
// whenever they like; Node's server.close() destroys every connection idle at
// that moment, so a request already on its way on one meets a reset, and a
// POST sent on a reused connection is not retried by the client: it never
// learns whether its transfer was taken. Instead, on shutdown:
//   1. drain: for up to `drainMs`, every answer carries `Connection: close`,
//      so each client's pool lets go of its connection after its next
//      answer; it ends early once no connection is left;
//   2. close: stop listening and close what is idle (fastify), answer what is
//      still in flight, and after `closeMs` close whatever is left.
// Requests that arrive meanwhile are served as usual (fastify's
// return503OnClosing is off in app.js): the producer is still open, so they
// are published and answered properly rather than with a bare 503.

const { settledWithin } = require('@switchyard/shared/settled-within')

const POLL_MS = 50

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ drainMs: number, closeMs: number }} opts
 */
function createDrain (app, { drainMs, closeMs }) {
  let draining = false
  app.addHook('onSend', async (_request, reply, payload) => {
    if (draining) reply.header('connection', 'close')
    return payload
  })

  /** @returns {Promise<number>} */
  const connections = () => new Promise((resolve) => app.server.getConnections((err, n) => resolve(err ? 0 : n)))

  return {
    async close () {
      draining = true
      const until = Date.now() + drainMs
      while (Date.now() < until && (await connections()) > 0) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, until - Date.now()))))
      }
      const closing = app.close()
      if (!(await settledWithin(closing, closeMs))) {
        app.server.closeAllConnections()
        await closing
      }
    }
  }
}

module.exports = { createDrain }
