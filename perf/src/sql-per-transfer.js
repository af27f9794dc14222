#!/usr/bin/env node
'use strict'

// Counts the SQL statements and DB commits a complete two-phase transfer
// costs, from MariaDB's own status counters, with the pipeline batching
// normally and forced to one message per transaction (KAFKA_MAX_BATCH_SIZE=1).
//
//   npm run perf:sql -- [--transfers 1000] [--concurrency 200] [--batch-sizes 1,100]
//
// Everything (stack, API, handlers, simulated participants) runs on this
// machine with durable settings. Provisioning happens before the counters
// are read; the run waits for callbacks over HTTP, never by polling the DB.

const { parseCli, wholeNumber, positiveList, runCli } = require('./cli-args')
const stack = require('../../scripts/stack/index')
const { startSwitchyard, prepareBody } = require('../../test/support/switchyard')
const { startParticipant, newCondition } = require('./load/participant')
const { testConfig, unique } = require('../../test/support/config')
const { waitUntil } = require('../../test/support/wait')
const { createDb } = require('../../shared/src/db')
const { sqlCounters, sqlDelta } = require('./bench/accounting')

const DB_NAME = 'switchyard_perf'

/** @param {{ transfers: number, concurrency: number, batchSize: number }} opts */
async function measure ({ transfers, concurrency, batchSize }) {
  const sy = await startSwitchyard({ DB_NAME, KAFKA_MAX_BATCH_SIZE: String(batchSize), LOG_LEVEL: 'error' })
  const payer = await startParticipant(unique('sqlpayer'), sy)
  const payee = await startParticipant(unique('sqlpayee'), sy)
  await sy.provision(payer)
  await sy.provision(payee)
  const db = createDb(sy.config, { database: null })
  const before = await sqlCounters(db)
  const started = Date.now()
  const ids = []
  let next = 0
  async function sender () {
    while (next < transfers) {
      next++
      const { fulfilment, condition } = newCondition()
      const body = prepareBody({ payer: payer.name, payee: payee.name, condition, amount: '1' })
      payee.plan(body.transferId, { action: 'fulfil', fulfilment })
      ids.push(body.transferId)
      const res = await sy.fspiop('POST', '/transfers', { source: payer.name, body })
      if (res.status !== 202) throw new Error(`prepare refused: ${JSON.stringify(res)}`)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, sender))
  const committed = () => payer.received.filter((r) => r.method === 'PUT' && r.body && r.body.transferState === 'COMMITTED').length
  // Every payer callback, and every payee notification, delivered.
  await waitUntil(() => committed() >= transfers && payee.received.filter((r) => r.method === 'PUT').length >= transfers, { timeoutMs: 300000, what: 'all transfers committed' })
  // Let the notification handler record its last delivery attempts.
  await new Promise((resolve) => setTimeout(resolve, 500))
  const elapsed = Date.now() - started
  const after = await sqlCounters(db)
  await db.destroy()
  await sy.stop()
  await payer.close()
  await payee.close()
  const delta = sqlDelta(before, after, transfers)
  // Unrounded per-transfer figures: the table prints its own precision.
  return {
    batchSize,
    transfers,
    statementsPerTransfer: delta.statements / transfers,
    commitsPerTransfer: delta.Com_commit / transfers,
    byKind: Object.fromEntries(Object.entries(delta.byKind).map(([kind, n]) => [kind, +(n / transfers).toFixed(3)])),
    elapsedMs: elapsed
  }
}

const USAGE = 'npm run perf:sql -- [--transfers 1000] [--concurrency 200] [--batch-sizes 1,100]'

/** @param {() => never} help */
async function main (help) {
  const { values, help: wantsHelp } = parseCli({ options: { transfers: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '200' }, 'batch-sizes': { type: 'string', default: '1,100' } } })
  if (wantsHelp) help()
  const transfers = wholeNumber(values, 'transfers', 1)
  const concurrency = wholeNumber(values, 'concurrency', 1)
  const batchSizes = positiveList(values, 'batch-sizes', { what: 'whole numbers of at least 1 such as 1,100', whole: true })
  await stack.up(testConfig({ DB_NAME }), { databases: [DB_NAME], say: (m) => console.error(`[stack] ${m}`) })
  const results = []
  for (const batchSize of batchSizes) results.push(await measure({ transfers, concurrency, batchSize }))
  console.log(`SQL per complete two-phase transfer (${transfers} transfers, ${concurrency} concurrent senders, durable MariaDB, acks=all)\n`)
  console.log('| KAFKA_MAX_BATCH_SIZE | statements / transfer | commits / transfer | select | insert | update | delete | set | wall time |')
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const r of results) {
    const k = r.byKind
    console.log(`| ${r.batchSize} | ${r.statementsPerTransfer.toFixed(2)} | ${r.commitsPerTransfer.toFixed(3)} | ${k.select} | ${k.insert} | ${k.update} | ${k.delete} | ${k.set} | ${(r.elapsedMs / 1000).toFixed(1)} s |`)
  }
  process.exit(0)
}

runCli(USAGE, main)
