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
const { startSwitchyard } = require('../../../test/support/switchyard')
const { startTransferRun, expectAllCommittedOnce } = require('../../../test/support/transfer-run')
const { waitUntil } = require('../../../test/support/wait')

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
  // Long enough that no transfer expires during an outage.
  return startTransferRun(sy, { transfers: TRANSFERS, pairs: PAIRS, senders: SENDERS, prefix: 'o', closers, expiresInMs: 300000, resend: true })
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
