'use strict'

// A run of transfers between simulated participants that a fault test
// interrupts (a killed handler, a stopped server), and what a participant and
// an auditor check once it is over: every transfer committed once, every payer
// told, every position exact.

const { startParticipant, newCondition } = require('../../perf/src/load/participant')
const { prepareBody } = require('./switchyard')
const { ledgerSums, waitAllFinal } = require('./ledger')
const { waitUntil } = require('./wait')
const { unique } = require('./config')
const { parseAmount, formatAmount } = require('../../shared/src/money')

/** @typedef {{ id: string, payer: any, payee: any, amount: string }} Sent */

/**
 * Starts `pairs` payers and payees on `sy`, then `senders` concurrent senders
 * of `transfers` transfers between them, each payee fulfilling.
 * @param {any} sy a startSwitchyard() switch
 * @param {{ transfers: number, pairs: number, senders: number, prefix: string, closers: (() => Promise<void>)[],
 *   expiresInMs?: number, resend?: boolean }} opts
 *   resend: a request the switch does not accept is sent again, as a participant would (the same
 *   request: FSPIOP makes the resend safe), and its answer kept in `refused`; otherwise every
 *   request must be accepted
 */
async function startTransferRun (sy, { transfers, pairs, senders, prefix, closers, expiresInMs, resend = false }) {
  const payers = []
  const payees = []
  for (let i = 0; i < pairs; i++) {
    const payer = await startParticipant(unique(`${prefix}payer`), sy)
    const payee = await startParticipant(unique(`${prefix}payee`), sy)
    closers.push(() => payer.close(), () => payee.close())
    await sy.provision(payer)
    await sy.provision(payee)
    payers.push(payer)
    payees.push(payee)
  }
  const sumsBefore = await ledgerSums(sy.db)
  /** @type {Sent[]} */
  const accepted = []
  /** What the switch answered when it did not accept a request. @type {{ status: number, body: any }[]} */
  const refused = []
  let next = 0
  async function sender () {
    while (next < transfers) {
      const i = next++
      const payer = payers[i % pairs]
      const payee = payees[(i + 1) % pairs]
      const { fulfilment, condition } = newCondition()
      const amount = String(1 + (i % 7))
      const body = prepareBody({ payer: payer.name, payee: payee.name, condition, amount, ...(expiresInMs ? { expiresInMs } : {}) })
      payee.plan(body.transferId, { action: 'fulfil', fulfilment })
      for (;;) {
        const res = await sy.fspiop('POST', '/transfers', { source: payer.name, destination: payee.name, body })
        if (!resend) expect(res.status).toBe(202)
        if (res.status === 202) break
        refused.push(res)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      accepted.push({ id: body.transferId, payer, payee, amount })
    }
  }
  const sending = Promise.all(Array.from({ length: senders }, sender))
  /** How many of the accepted transfers are committed so far. */
  const committed = async () => Number((await sy.db('transfer').whereIn('transfer_id', accepted.map((s) => s.id)).where({ state: 'COMMITTED' }).count({ n: '*' }))[0].n)
  return { sy, transfers, accepted, refused, sending, committed, sumsBefore }
}

/**
 * Once the senders are done: every transfer committed, its payer told so,
 * every position exactly what the committed transfers imply, exactly two
 * position changes per transfer (reserved, committed), the ledger's sums unchanged.
 * @param {Awaited<ReturnType<typeof startTransferRun>>} run
 * @param {{ finalWithinMs?: number }} [opts]
 */
async function expectAllCommittedOnce ({ sy, transfers, accepted, sending, sumsBefore }, { finalWithinMs = 60000 } = {}) {
  await sending
  expect(accepted).toHaveLength(transfers)
  const ids = accepted.map((s) => s.id)
  await waitAllFinal(sy.db, ids, finalWithinMs).catch(async (err) => {
    // Where they stopped says which stage did not come back.
    const byState = await sy.db('transfer').whereIn('transfer_id', ids).groupBy('state').select('state').count({ n: '*' })
    throw new Error(`${err.message}; transfers by state: ${JSON.stringify(byState)}`)
  })
  const states = await sy.db('transfer').whereIn('transfer_id', ids).select('transfer_id', 'state')
  expect(states.filter((s) => s.state !== 'COMMITTED')).toEqual([])
  for (const s of accepted) {
    await waitUntil(() => s.payer.received.some((r) => r.method === 'PUT' && r.path === `/transfers/${s.id}` && r.body.transferState === 'COMMITTED'),
      { what: `the payer's COMMITTED for ${s.id}`, timeoutMs: 60000 })
  }
  /** @type {Map<string, bigint>} */
  const expected = new Map()
  for (const s of accepted) {
    expected.set(s.payer.name, (expected.get(s.payer.name) || 0n) + parseAmount(s.amount))
    expected.set(s.payee.name, (expected.get(s.payee.name) || 0n) - parseAmount(s.amount))
  }
  for (const [name, value] of expected) expect([name, await sy.position(name)]).toEqual([name, formatAmount(value)])
  const changes = await sy.db('participant_position_change').whereIn('transfer_id', ids).groupBy('transfer_id').select('transfer_id').count({ n: '*' })
  expect(changes.filter((c) => Number(c.n) !== 2)).toEqual([])
  expect(changes).toHaveLength(transfers)
  expect(await ledgerSums(sy.db)).toEqual(sumsBefore)
}

module.exports = { startTransferRun, expectAllCommittedOnce }
