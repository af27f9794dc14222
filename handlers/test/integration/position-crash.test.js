'use strict'

// Fault test: the position handler runs as its own process (as in
// production) and is killed with SIGKILL in the middle of 1,000 transfers,
// then restarted. Afterwards every transfer is final, every payer has heard
// its final state, and every position is exactly what the committed
// transfers imply — nothing applied twice, nothing lost.

const { startSwitchyard, prepareBody } = require('../../../test/support/switchyard')
const { startParticipant, newCondition } = require('../../../perf/src/load/participant')
const { startProcess } = require('../../../test/support/processes')
const { ledgerSums, waitAllFinal } = require('../../../test/support/ledger')
const { waitUntil } = require('../../../test/support/wait')
const { unique } = require('../../../test/support/config')
const { parseAmount, formatAmount } = require('../../../shared/src/money')

const TRANSFERS = 1000
const PAIRS = 4

let sy
const closers = []

afterAll(async () => {
  for (const close of closers.reverse()) await close()
})

/** Starts `node handlers/src/main.js position` against this Switchyard's topics. */
function startPositionProcess (config) {
  const proc = startProcess('handlers/src/main.js', ['position'], {
    KAFKA_TOPIC_PREFIX: config.KAFKA_TOPIC_PREFIX,
    KAFKA_CLIENT_ID: config.KAFKA_CLIENT_ID,
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    HEALTH_PORT: '0',
    LOG_LEVEL: 'warn'
  })
  return proc
}

test('SIGKILL of the position handler mid-run loses nothing and applies nothing twice', async () => {
  sy = await startSwitchyard({ KAFKA_SESSION_TIMEOUT_MS: '6000' }, { handlers: ['prepare', 'fulfil', 'timeout', 'notification'] })
  closers.push(() => sy.stop())
  const sumsBefore = await ledgerSums(sy.db)
  const payers = []
  const payees = []
  for (let i = 0; i < PAIRS; i++) {
    const payer = await startParticipant(unique('cpayer'), sy)
    const payee = await startParticipant(unique('cpayee'), sy)
    closers.push(() => payer.close(), () => payee.close())
    await sy.provision(payer)
    await sy.provision(payee)
    payers.push(payer)
    payees.push(payee)
  }

  let position = startPositionProcess(sy.config)
  closers.push(() => position.stop())

  /** @type {{ id: string, payer: any, payee: any, amount: string }[]} */
  const sent = []
  let next = 0
  async function sender () {
    while (next < TRANSFERS) {
      const i = next++
      const payer = payers[i % PAIRS]
      const payee = payees[(i + 1) % PAIRS]
      const { fulfilment, condition } = newCondition()
      const amount = String(1 + (i % 7))
      const body = prepareBody({ payer: payer.name, payee: payee.name, condition, amount })
      payee.plan(body.transferId, { action: 'fulfil', fulfilment })
      const res = await sy.fspiop('POST', '/transfers', { source: payer.name, destination: payee.name, body })
      expect(res.status).toBe(202)
      sent.push({ id: body.transferId, payer, payee, amount })
    }
  }
  const sending = Promise.all(Array.from({ length: 16 }, sender))

  // Kill it once it has done part of the work, while prepares keep arriving.
  const committedCount = async () => Number((await sy.db('transfer').whereIn('transfer_id', sent.map((s) => s.id)).where({ state: 'COMMITTED' }).count({ n: '*' }))[0].n)
  await waitUntil(async () => sent.length > 100 && await committedCount() >= 50, { what: 'the run to be under way', timeoutMs: 60000 })
  position.proc.kill('SIGKILL')
  expect(await position.exited).toEqual({ code: null, signal: 'SIGKILL' })
  const atKill = await committedCount()
  expect(atKill).toBeLessThan(TRANSFERS)

  position = startPositionProcess(sy.config)
  await sending
  await waitAllFinal(sy.db, sent.map((s) => s.id), 120000)

  // Every transfer committed, and its payer heard so.
  const states = await sy.db('transfer').whereIn('transfer_id', sent.map((s) => s.id)).select('state')
  expect(states.filter((s) => s.state !== 'COMMITTED')).toEqual([])
  for (const s of sent) {
    await waitUntil(() => s.payer.received.some((r) => r.method === 'PUT' && r.path === `/transfers/${s.id}` && r.body.transferState === 'COMMITTED'),
      { what: `payer's COMMITTED for ${s.id}` })
  }

  // Positions are exactly what the committed transfers imply.
  /** @type {Map<string, bigint>} */
  const expected = new Map()
  for (const s of sent) {
    expected.set(s.payer.name, (expected.get(s.payer.name) || 0n) + parseAmount(s.amount))
    expected.set(s.payee.name, (expected.get(s.payee.name) || 0n) - parseAmount(s.amount))
  }
  for (const [name, value] of expected) expect([name, await sy.position(name)]).toEqual([name, formatAmount(value)])

  // Each transfer moved positions exactly twice: once reserved, once committed.
  const changes = await sy.db('participant_position_change').whereIn('transfer_id', sent.map((s) => s.id)).groupBy('transfer_id').select('transfer_id').count({ n: '*' })
  expect(changes.filter((c) => Number(c.n) !== 2)).toEqual([])
  expect(changes).toHaveLength(TRANSFERS)
  expect(await ledgerSums(sy.db)).toEqual(sumsBefore)
}, 240000)
