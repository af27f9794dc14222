'use strict'

// Expiry of transfers that were never reserved, with three timeout replicas
// sweeping at once: each transfer expires exactly once, both parties hear
// 3303 once, and no position moves.

const { startSwitchyard, prepareBody } = require('../../../test/support/switchyard')
const { startParticipant, newCondition } = require('../../../perf/src/load/participant')
const { ledgerSums, waitAllFinal, overdueTransfers } = require('../../../test/support/ledger')
const { waitUntil } = require('../../../test/support/wait')
const { unique } = require('../../../test/support/config')
const { createKafkaFromConfig, topicName } = require('../../../shared/src/kafka')

const closers = []
// Each test's switch stops when it ends: its timeout handler sweeps the whole
// test database and would otherwise claim the next test's transfers.
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

test('transfers that expire before they are reserved are aborted once with 3303 to both, by any of several timeout replicas', async () => {
  // No position handler yet: the reservations cannot happen before expiry.
  const sy = await startSwitchyard({}, { handlers: ['prepare', 'fulfil', 'notification', 'timeout', 'timeout', 'timeout'] })
  closers.push(() => sy.stop())
  const payer = await startParticipant(unique('epayer'), sy)
  const payee = await startParticipant(unique('epayee'), sy)
  closers.push(() => payer.close(), () => payee.close())
  await sy.provision(payer)
  await sy.provision(payee)
  const sums = await ledgerSums(sy.db)

  const ids = []
  for (let i = 0; i < 30; i++) {
    const body = prepareBody({ payer: payer.name, payee: payee.name, condition: newCondition().condition, expiresInMs: 4000 })
    payee.plan(body.transferId, { action: 'ignore' })
    expect((await sy.fspiop('POST', '/transfers', { source: payer.name, body })).status).toBe(202)
    ids.push(body.transferId)
  }
  // Every transfer is due and claimed by some replica while still RECEIVED_PREPARE.
  await waitUntil(async () => Number((await sy.db('transfer').whereIn('transfer_id', ids)
    .where({ state: 'RECEIVED_PREPARE' }).whereNotNull('expiry_claim').count({ n: '*' }))[0].n) === ids.length, { what: 'all 30 claimed for expiry' })

  await sy.startHandlers(['position'])
  await waitAllFinal(sy.db, ids)
  const rows = await sy.db('transfer').whereIn('transfer_id', ids).select('state', 'error_code')
  expect(new Set(rows.map((r) => `${r.state} ${r.error_code}`))).toEqual(new Set(['EXPIRED_PREPARED 3303']))
  const expiredChanges = await sy.db('transfer_state_change').whereIn('transfer_id', ids).where({ state: 'EXPIRED_PREPARED' }).count({ n: '*' })
  expect(Number(expiredChanges[0].n)).toBe(ids.length)

  const errors = (p, id) => p.received.filter((r) => r.method === 'PUT' && r.path === `/transfers/${id}/error`)
  for (const id of ids) {
    await waitUntil(() => errors(payer, id).length >= 1 && errors(payee, id).length >= 1, { what: `3303 for ${id} at both parties` })
    expect(errors(payer, id).map((r) => r.body.errorInformation.errorCode)).toEqual(['3303'])
    expect(errors(payee, id).map((r) => r.body.errorInformation.errorCode)).toEqual(['3303'])
  }
  // The payee was never asked to accept a transfer that had already expired.
  expect(payee.received.filter((r) => r.method === 'POST')).toEqual([])
  expect(await sy.position(payer.name)).toBe('0')
  expect(await ledgerSums(sy.db)).toEqual(sums)
  expect(await overdueTransfers(sy.db)).toEqual([])
})

test('an expiry already sent is not sent again every lease while the position handler lags behind', async () => {
  const sy = await startSwitchyard({ TIMEOUT_LEASE_MS: '1000' }, { handlers: ['prepare', 'fulfil', 'notification', 'timeout'] })
  closers.push(() => sy.stop())
  const payer = await startParticipant(unique('lpayer'), sy)
  const payee = await startParticipant(unique('lpayee'), sy)
  closers.push(() => payer.close(), () => payee.close())
  await sy.provision(payer)
  await sy.provision(payee)
  const admin = createKafkaFromConfig(sy.config).admin()
  await admin.connect()
  closers.push(() => admin.disconnect())
  const positionMessages = async () => (await admin.fetchTopicOffsets(topicName(sy.config, 'position'))).reduce((n, p) => n + Number(p.high), 0)

  const ids = []
  for (let i = 0; i < 5; i++) {
    const body = prepareBody({ payer: payer.name, payee: payee.name, condition: newCondition().condition, expiresInMs: 1500 })
    payee.plan(body.transferId, { action: 'ignore' })
    expect((await sy.fspiop('POST', '/transfers', { source: payer.name, body })).status).toBe(202)
    ids.push(body.transferId)
  }
  await waitUntil(async () => Number((await sy.db('transfer').whereIn('transfer_id', ids).whereNotNull('expiry_claim').count({ n: '*' }))[0].n) === ids.length,
    { what: 'all 5 claimed for expiry' })
  // Each transfer's reserve and its abort; then, over three more leases with no position handler, nothing more.
  await waitUntil(async () => (await positionMessages()) >= 2 * ids.length, { what: 'an abort per transfer' })
  await new Promise((resolve) => setTimeout(resolve, 3500))
  expect(await positionMessages()).toBe(2 * ids.length)

  await sy.startHandlers(['position'])
  await waitAllFinal(sy.db, ids)
  const errors = (id) => payer.received.filter((r) => r.method === 'PUT' && r.path === `/transfers/${id}/error`)
  for (const id of ids) await waitUntil(() => errors(id).length >= 1, { what: `3303 for ${id}` })
  expect(ids.map((id) => errors(id).map((r) => r.body.errorInformation.errorCode))).toEqual(ids.map(() => ['3303']))
})
