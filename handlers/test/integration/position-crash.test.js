'use strict'

// Fault test: the position handler runs as its own process (as in
// production) and is killed with SIGKILL in the middle of 1,000 transfers,
// then restarted. Afterwards every transfer is final, every payer has heard
// its final state, and every position is exactly what the committed
// transfers imply — nothing applied twice, nothing lost.

const { startSwitchyard } = require('../../../test/support/switchyard')
const { startProcess } = require('../../../test/support/processes')
const { startTransferRun, expectAllCommittedOnce } = require('../../../test/support/transfer-run')
const { waitUntil } = require('../../../test/support/wait')

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
  let position = startPositionProcess(sy.config)
  closers.push(() => position.stop())
  const run = await startTransferRun(sy, { transfers: TRANSFERS, pairs: PAIRS, senders: 16, prefix: 'c', closers })

  // Kill it once it has done part of the work, while prepares keep arriving.
  await waitUntil(async () => run.accepted.length > 100 && await run.committed() >= 50, { what: 'the run to be under way', timeoutMs: 60000 })
  position.proc.kill('SIGKILL')
  expect(await position.exited).toEqual({ code: null, signal: 'SIGKILL' })
  const atKill = await run.committed()
  expect(atKill).toBeLessThan(TRANSFERS)

  position = startPositionProcess(sy.config)
  // Every transfer committed, and its payer heard so; positions exactly what
  // the committed transfers imply; each moved positions exactly twice.
  await expectAllCommittedOnce(run, { finalWithinMs: 120000 })
}, 240000)
