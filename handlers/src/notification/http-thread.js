'use strict'

// The callback HTTP client on a thread of its own (CALLBACK_THREAD): the same
// client as deliver.js, run by a worker thread, so that writing requests to
// participants' sockets, parsing their answers and undici's bookkeeping — the
// handler process's busiest system calls (docs/performance.md, twenty-eighth
// round) — run on the machine's other core instead of the event loop that
// runs every stage's transactions. The dispatcher, its bounds, retries,
// outcomes and trace spans stay on the main thread; only the exchange moves.
//
// Requests and answers cross in batches: what is sent in one turn of either
// event loop goes as one message. A thread that dies fails the requests it
// held like a dropped connection (the dispatcher retries them) and the next
// request starts a new one.

const path = require('node:path')
const { Worker } = require('node:worker_threads')
const { createPerTurn } = require('@switchyard/shared/per-turn')

const ENTRY = path.join(__dirname, 'http-thread-worker.js')

/**
 * The error a request failed with on the other thread, rebuilt with what
 * callers read: its name, message, code and its cause's.
 * @param {{ name?: string, message: string, code?: string, cause?: { name?: string, message: string, code?: string } }} e
 * @returns {Error & { code?: string }}
 */
function rebuildError (e) {
  const err = /** @type {Error & { code?: string }} */ (new Error(e.message, e.cause ? { cause: rebuildError(e.cause) } : undefined))
  if (e.name) err.name = e.name
  if (e.code !== undefined) err.code = e.code
  return err
}

/**
 * @param {{ timeoutMs: number, kind?: 'pipelined' | 'undici', pipelining?: number, entry?: string }} opts
 *   the client's (deliver.js); entry: the worker's script (tests start a failing one)
 * @returns {import('./deliver').CallbackHttpClient}
 */
function createThreadedHttpClient ({ timeoutMs, kind, pipelining, entry = ENTRY }) {
  /** @typedef {{ resolve: (r: { statusCode: number }) => void, reject: (err: Error) => void }} Waiter */
  /** @typedef {{ worker: Worker, pending: Map<number, Waiter>, exited: Promise<void> }} Thread */
  /** @type {Thread | null} */
  let thread = null
  /**
   * Requests of this turn, each with the thread it was registered with: a
   * request whose thread died before the post was failed with it, and is not
   * sent to the next one.
   */
  const outbox = createPerTurn((/** @type {{ thread: Thread, request: { id: number, url: string, method: string, headers: Record<string, string>, body: string | null } }[]} */ batch) => {
    const live = thread
    const requests = batch.filter((o) => o.thread === live).map((o) => o.request)
    if (live && requests.length) live.worker.postMessage({ requests })
  })
  let nextId = 1
  let closed = false

  /** @returns {Thread} */
  function start () {
    const worker = new Worker(entry, { workerData: { timeoutMs, kind, pipelining } })
    /** @type {Map<number, Waiter>} */
    const pending = new Map()
    /** @param {Error} err */
    const failAll = (err) => {
      if (thread && thread.worker === worker) thread = null
      for (const w of pending.values()) w.reject(err)
      pending.clear()
    }
    /** @type {Promise<void>} */
    const exited = new Promise((resolve) => worker.once('exit', (code) => {
      failAll(Object.assign(new Error(`callback thread stopped (exit code ${code})`), { code: 'CALLBACK_THREAD_EXIT' }))
      resolve()
    }))
    worker.on('error', (err) => failAll(Object.assign(new Error(`callback thread failed: ${err.message}`, { cause: err }), { code: 'CALLBACK_THREAD_EXIT' })))
    worker.on('message', (/** @type {{ id: number, statusCode?: number, error?: any }[]} */ answers) => {
      for (const a of answers) {
        const w = pending.get(a.id)
        if (!w) continue
        pending.delete(a.id)
        if (a.error) w.reject(rebuildError(a.error))
        else w.resolve({ statusCode: /** @type {number} */ (a.statusCode) })
      }
    })
    return { worker, pending, exited }
  }

  /**
   * Sends one request; resolves with the status code whatever it is, rejects
   * on a timeout or connection error (as deliver.js's client does).
   * @param {{ url: string, method: string, headers: Record<string, string>, body: string | null }} req
   * @returns {Promise<{ statusCode: number }>}
   */
  function send ({ url, method, headers, body }) {
    if (closed) return Promise.reject(Object.assign(new Error('callback client closed'), { code: 'CALLBACK_THREAD_EXIT' }))
    if (!thread) thread = start()
    const id = nextId++
    const owner = thread
    return new Promise((resolve, reject) => {
      owner.pending.set(id, { resolve, reject })
      outbox.push({ thread: owner, request: { id, url, method, headers, body } })
    })
  }

  /** Waits for requests in flight, then closes every connection and the thread. */
  async function close () {
    closed = true
    outbox.flush()
    if (!thread) return
    const { worker, exited } = thread
    worker.postMessage({ close: true })
    await exited
  }

  /** Aborts requests in flight (they reject) and stops the thread. */
  async function destroy () {
    closed = true
    if (!thread) return
    const { worker, exited } = thread
    await worker.terminate()
    await exited
  }

  return { send, close, destroy }
}

module.exports = { createThreadedHttpClient }
