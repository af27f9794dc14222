'use strict'

// The callback thread (http-thread.js): deliver.js's client, driven by
// batches of requests from the main thread and answering in batches.

const { parentPort, workerData } = require('node:worker_threads')
const { createHttpClient } = require('./deliver')
const { createPerTurn } = require('@switchyard/shared/per-turn')

/** @param {any} err @returns {{ name?: string, message: string, code?: string, cause?: any }} */
function plainError (err) {
  const e = err instanceof Error ? err : new Error(String(err))
  /** @type {{ name?: string, message: string, code?: string, cause?: any }} */
  const out = { name: e.name, message: e.message }
  const code = /** @type {any} */ (e).code
  if (typeof code === 'string' || typeof code === 'number') out.code = String(code)
  if (e.cause) out.cause = plainError(e.cause)
  return out
}

if (parentPort) {
  const port = parentPort
  const client = createHttpClient({ timeoutMs: workerData.timeoutMs, kind: workerData.kind, pipelining: workerData.pipelining })
  /** Answers of this turn, as one message. */
  const answers = createPerTurn((/** @type {{ id: number, statusCode?: number, error?: any }[]} */ batch) => port.postMessage(batch))
  let inFlight = 0
  let closing = false
  let closed = false
  const maybeClose = () => {
    if (!closing || inFlight || closed) return
    closed = true
    client.close().finally(() => { answers.flush(); port.close() })
  }

  port.on('message', (/** @type {{ requests?: any[], close?: boolean }} */ msg) => {
    for (const req of msg.requests || []) {
      inFlight++
      client.send(req).then(
        ({ statusCode }) => answers.push({ id: req.id, statusCode }),
        (err) => answers.push({ id: req.id, error: plainError(err) })
      ).finally(() => { inFlight--; maybeClose() })
    }
    if (msg.close) { closing = true; maybeClose() }
  })
}
