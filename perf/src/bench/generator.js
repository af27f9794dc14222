'use strict'

// The open-model load generator: every send time is fixed before the step
// starts (t0 + i/rate) and a send never waits for an earlier answer. A
// transfer's latency is the payer's final callback time minus its *intended*
// send time. Requests, conditions and fulfilments are made before the clock
// starts, so the generator's hot path is one HTTP write per transfer.

const crypto = require('node:crypto')
const { openSchedule } = require('./schedule')
const { createHistogram } = require('./histogram')
const { prepareBody, CONTENT_TYPE } = require('../load/client')
const { send, targetOf, httpDate } = require('../load/http-client')
const { settledWithin } = require('../../../shared/src/settled-within')

/**
 * Requests for `n` transfers between the simulators' payers and payees.
 * @param {ReturnType<typeof import('../load/fast-participants').startSimulators> extends Promise<infer S> ? S : never} sim
 * @param {number} n @param {{ amount?: string, currency?: string, expiresInMs?: number }} [opts]
 */
function makeTransfers (sim, n, { amount = '1', currency = 'USD', expiresInMs = 60000 } = {}) {
  const random = crypto.randomBytes(32 * n)
  const out = []
  for (let i = 0; i < n; i++) {
    const payer = sim.payers[i % sim.payers.length].name
    const payee = sim.payees[(i + Math.floor(i / sim.payers.length)) % sim.payees.length].name
    const preimage = random.subarray(32 * i, 32 * i + 32)
    const condition = crypto.createHash('sha256').update(preimage).digest('base64url')
    const body = prepareBody({ payer, payee, amount, currency, condition, expiresInMs })
    out.push({ id: body.transferId, payer, payee, fulfilment: preimage.toString('base64url'), body: JSON.stringify(body) })
  }
  return out
}

/** @param {string} payer @param {string} payee */
const prepareHeaders = (payer, payee) => ({
  'content-type': CONTENT_TYPE, accept: CONTENT_TYPE, date: httpDate(), 'fspiop-source': payer, 'fspiop-destination': payee
})

/**
 * One step at a constant arrival rate.
 * @param {{ sim: any, apiUrl: string, rate: number, durationMs: number, maxBacklogMs?: number, drainTimeoutMs?: number, amount?: string }} opts
 */
async function runOpenStep ({ sim, apiUrl, rate, durationMs, maxBacklogMs = 3000, drainTimeoutMs = 20000, amount = '1' }) {
  const times = openSchedule({ rate, durationMs })
  const n = times.length
  // Expiry bounds how long an overloaded step can leave transfers in flight (the run settles them).
  const transfers = makeTransfers(sim, n, { amount, expiresInMs: durationMs + 30000 })
  const index = new Map(transfers.map((t, i) => [t.id, i]))
  const doneAt = new Float64Array(n).fill(NaN)
  const states = new Array(n).fill(null)
  const sendLag = createHistogram()
  const acceptLatency = createHistogram()
  const httpErrors = /** @type {Record<string, number>} */ ({})
  const callbackErrors = /** @type {Record<string, number>} */ ({})
  const target = targetOf(apiUrl)
  let sent = 0; let accepted = 0; let finished = 0; let refused = 0; let stoppedEarly = false
  const t0 = performance.now() + 20

  sim.onFinal((/** @type {string} */ id, /** @type {string} */ state, /** @type {number} */ at, /** @type {string | undefined} */ code) => {
    const i = index.get(id)
    if (i === undefined || states[i] !== null) return
    states[i] = state
    doneAt[i] = at - t0
    finished++
    if (state !== 'COMMITTED') callbackErrors[code || state] = (callbackErrors[code || state] || 0) + 1
  })

  /** @param {number} i */
  function fire (i) {
    const t = transfers[i]
    sim.expect(t.id, t.fulfilment)
    const sentAt = performance.now()
    sendLag.record(sentAt - t0 - times[i])
    send(sim.agent, target, 'POST', '/transfers', prepareHeaders(t.payer, t.payee), t.body).then((r) => {
      if (r.status === 202) { accepted++; acceptLatency.record(performance.now() - t0 - times[i]); return }
      refused++
      httpErrors[r.status] = (httpErrors[r.status] || 0) + 1
    }, (err) => { refused++; httpErrors[err.code || err.message] = (httpErrors[err.code || err.message] || 0) + 1 })
  }

  const backlogLimit = Math.max(200, (rate * maxBacklogMs) / 1000)
  await new Promise((resolve) => {
    function tick () {
      const now = performance.now() - t0
      while (sent < n && times[sent] <= now) fire(sent++)
      if (sent - finished - refused > backlogLimit && sent < n) { stoppedEarly = true; return resolve(undefined) }
      if (sent >= n) return resolve(undefined)
      setTimeout(tick, Math.max(0, Math.min(5, times[sent] - (performance.now() - t0) - 0.5)))
    }
    setTimeout(tick, Math.max(0, t0 - performance.now()))
  })
  const sendEnd = performance.now() - t0
  const drainDeadline = performance.now() + drainTimeoutMs
  const drained = () => finished + refused >= sent
  while (!drained() && performance.now() < drainDeadline) await new Promise((resolve) => setTimeout(resolve, 20))
  sim.onFinal(() => {})

  const samples = []
  const ids = []
  for (let i = 0; i < sent; i++) {
    ids.push(transfers[i].id)
    const done = Number.isNaN(doneAt[i]) ? null : doneAt[i]
    samples.push({ t: times[i], latency: done === null ? null : done - times[i], doneAt: done, ok: states[i] === 'COMMITTED' })
  }
  return {
    rate,
    durationMs,
    scheduled: n,
    sent,
    accepted,
    refused,
    finished,
    stoppedEarly,
    sendEndMs: Math.round(sendEnd),
    drainMs: Math.round(performance.now() - t0 - sendEnd),
    unanswered: sent - finished - refused,
    committedCallbacks: states.filter((s) => s === 'COMMITTED').length,
    httpErrors,
    callbackErrors,
    sendLag: sendLag.summary(),
    acceptLatency: acceptLatency.summary(),
    ids,
    samples
  }
}

/**
 * Transfers one at a time: the next is sent when the previous one's final
 * callback has arrived. Latency is send → payer's final callback. With
 * `concurrency` above 1, that many such senders run side by side (a closed
 * loop: never more transfers in flight than senders, so it cannot overload
 * even the one-message-per-batch pipeline); the bench warms a fresh switch
 * that way before it measures single transfers.
 * @param {{ sim: any, apiUrl: string, count: number, timeoutMs?: number, concurrency?: number }} opts
 */
async function runSequential ({ sim, apiUrl, count, timeoutMs = 30000, concurrency = 1 }) {
  const transfers = makeTransfers(sim, count)
  const target = targetOf(apiUrl)
  const hist = createHistogram()
  let failed = 0
  let accepted = 0
  /** @type {Map<string, (v: { state: string, at: number }) => void>} the final callbacks awaited, by transfer id */
  const waiting = new Map()
  sim.onFinal((/** @type {string} */ id, /** @type {string} */ state, /** @type {number} */ at) => {
    const resolve = waiting.get(id)
    if (resolve) resolve({ state, at })
  })
  const ids = transfers.map((t) => t.id)
  let next = 0
  async function sender () {
    while (next < transfers.length) {
      const t = transfers[next++]
      sim.expect(t.id, t.fulfilment)
      /** @type {Promise<{ state: string, at: number }>} */
      const final = new Promise((resolve) => { waiting.set(t.id, resolve) })
      try {
        const start = performance.now()
        const r = await send(sim.agent, target, 'POST', '/transfers', prepareHeaders(t.payer, t.payee), t.body)
        if (r.status !== 202) { failed++; continue }
        accepted++
        if (!(await settledWithin(final, timeoutMs))) { failed++; continue }
        const outcome = await final
        if (outcome.state !== 'COMMITTED') { failed++; continue }
        hist.record(outcome.at - start)
      } finally {
        waiting.delete(t.id)
      }
    }
  }
  try {
    // A sender that throws (the API unreachable) stops the others after their current transfer.
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, () => sender().catch((err) => { next = transfers.length; throw err })))
  } finally {
    sim.onFinal(() => {})
  }
  return { count, failed, accepted, committedCallbacks: hist.count, latency: hist.summary(), ids }
}

module.exports = { runOpenStep, runSequential }
