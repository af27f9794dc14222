'use strict'

// Fault tests: the database server, then the Kafka broker, stopped in the
// middle of a run of transfers and started again, with the whole switch
// running. Participants keep sending throughout; a request the switch cannot
// take gets its FSPIOP error and is sent again, as a participant would.
// Afterwards every transfer is committed, every payer has heard so, every
// position is exactly what the committed transfers imply, and no position
// moved twice for one transfer.
//
// The servers stopped are the local stack's (scripts/stack), which the test
// run starts; anything else using that stack meanwhile sees the outage too.

const stack = require('../../../scripts/stack/index')
const { startSwitchyard, prepareBody } = require('../../../test/support/switchyard')
const { startParticipant, newCondition } = require('../../../perf/src/load/participant')
const { ledgerSums, waitAllFinal } = require('../../../test/support/ledger')
const { waitUntil } = require('../../../test/support/wait')
const { unique } = require('../../../test/support/config')
const { parseAmount, formatAmount } = require('../../../shared/src/money')

const TRANSFERS = 300
const PAIRS = 4
const SENDERS = 8

/** @type {(() => Promise<void>)[]} */
const closers = []

afterAll(async () => {
  for (const close of closers.reverse()) await close()
})

/**
 * A switch with participants, and a run of transfers that a test can interrupt.
 * Every transfer is sent until the switch accepts it (the same request again:
 * a resend, which FSPIOP makes safe); what it answered otherwise is kept.
 */
async function startRun () {
  const sy = await startSwitchyard({ KAFKA_SESSION_TIMEOUT_MS: '10000' })
  closers.push(() => sy.stop())
  const payers = []
  const payees = []
  for (let i = 0; i < PAIRS; i++) {
    const payer = await startParticipant(unique('opayer'), sy)
    const payee = await startParticipant(unique('opayee'), sy)
    closers.push(() => payer.close(), () => payee.close())
    await sy.provision(payer)
    await sy.provision(payee)
    payers.push(payer)
    payees.push(payee)
  }
  const sumsBefore = await ledgerSums(sy.db)
  /** @type {{ id: string, payer: any, payee: any, amount: string }[]} */
  const accepted = []
  /** What the switch answered when it did not accept a request. @type {{ status: number, body: any }[]} */
  const refused = []
  let next = 0
  async function sender () {
    while (next < TRANSFERS) {
      const i = next++
      const payer = payers[i % PAIRS]
      const payee = payees[(i + 1) % PAIRS]
      const { fulfilment, condition } = newCondition()
      const amount = String(1 + (i % 7))
      // Long enough that no transfer expires during an outage.
      const body = prepareBody({ payer: payer.name, payee: payee.name, condition, amount, expiresInMs: 300000 })
      payee.plan(body.transferId, { action: 'fulfil', fulfilment })
      for (;;) {
        const res = await sy.fspiop('POST', '/transfers', { source: payer.name, destination: payee.name, body })
        if (res.status === 202) break
        refused.push(res)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      accepted.push({ id: body.transferId, payer, payee, amount })
    }
  }
  const sending = Promise.all(Array.from({ length: SENDERS }, sender))
  const committed = async () => Number((await sy.db('transfer').whereIn('transfer_id', accepted.map((s) => s.id)).where({ state: 'COMMITTED' }).count({ n: '*' }))[0].n)
  return { sy, accepted, refused, sending, committed, sumsBefore }
}

/** Everything a participant and an auditor would check once the run is over. @param {Awaited<ReturnType<typeof startRun>>} run */
async function expectAllCommittedOnce ({ sy, accepted, sending, sumsBefore }) {
  await sending
  expect(accepted).toHaveLength(TRANSFERS)
  const ids = accepted.map((s) => s.id)
  await waitAllFinal(sy.db, ids, 60000).catch(async (err) => {
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
  expect(changes).toHaveLength(TRANSFERS)
  expect(await ledgerSums(sy.db)).toEqual(sumsBefore)
}

test('the database server stopped mid-run and started again: the API keeps accepting, and every transfer completes once', async () => {
  const run = await startRun()
  await waitUntil(async () => await run.committed() >= 30, { what: 'the run to be under way', timeoutMs: 60000 })
  await stack.down(run.sy.config, { only: ['mariadb'] })
  // Commands wait on Kafka meanwhile: the API needs only the broker to accept a transfer.
  const atStop = run.accepted.length
  await waitUntil(() => run.accepted.length >= Math.min(TRANSFERS, atStop + 40), { what: 'transfers accepted while the database is down', timeoutMs: 30000 })
  await stack.up(run.sy.config)
  await expectAllCommittedOnce(run)
}, 300000)

test('the Kafka broker stopped mid-run and started again: requests meanwhile get 503 2003, and every transfer completes once', async () => {
  const run = await startRun()
  await waitUntil(async () => await run.committed() >= 30, { what: 'the run to be under way', timeoutMs: 60000 })
  await stack.down(run.sy.config, { only: ['kafka'] })
  await waitUntil(() => run.refused.length >= SENDERS, { what: 'requests refused while the broker is down', timeoutMs: 60000 })
  await stack.up(run.sy.config)
  // Every refusal told the participant to try again later.
  const codes = new Set(run.refused.map((r) => `${r.status} ${r.body && r.body.errorInformation && r.body.errorInformation.errorCode}`))
  expect([...codes]).toEqual(['503 2003'])
  await expectAllCommittedOnce(run)
}, 300000)
