'use strict'

// A commit or abort that the position handler could not apply (here a
// trigger makes MariaDB refuse the account's position change, so the command
// goes to the dead-letter topic) must not leave the transfer in flight for
// ever, the payer's funds reserved and nobody told: once the database takes
// the change again, the timeout handler sends the command again, and the
// transfer ends as its fulfil or error said.

const { startSwitchyard, prepareBody } = require('../../../test/support/switchyard')
const { startParticipant, newCondition } = require('../../../perf/src/load/participant')
const { ledgerSums, waitAllFinal } = require('../../../test/support/ledger')
const { waitUntil } = require('../../../test/support/wait')
const { unique } = require('../../../test/support/config')

const closers = []
// Each test's switch stops when it ends: its timeout handler sweeps the whole
// test database and would otherwise claim the next test's transfers.
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** @param {import('knex').Knex} db @param {string} name */
async function positionAccount (db, name) {
  const [row] = await db('participant_account as a').join('participant as p', 'p.participant_id', 'a.participant_id')
    .where({ 'p.name': name, 'a.currency': 'USD', 'a.ledger_account_type': 'POSITION' }).select('a.account_id')
  return row.account_id
}

/**
 * Until the returned function is called, MariaDB refuses every position
 * change of `accountId` (SQLSTATE 45000: not an outage, a refusal).
 * @param {import('knex').Knex} db @param {number} accountId
 */
async function refusePositionChanges (db, accountId) {
  const name = unique('refuse')
  await db.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON participant_position_change FOR EACH ROW
    BEGIN IF NEW.account_id = ${Number(accountId)} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'; END IF; END`)
  let dropped = false
  const drop = async () => { if (!dropped) { dropped = true; await db.raw(`DROP TRIGGER IF EXISTS ${name}`) } }
  closers.push(drop)
  return drop
}

/** A switch that dead-letters a refused command at once and sends it again after a second. */
async function start () {
  const sy = await startSwitchyard({ KAFKA_HANDLER_MAX_ATTEMPTS: '1', TIMEOUT_REDRIVE_AFTER_MS: '1000' })
  closers.push(() => sy.stop())
  const payer = await startParticipant(unique('lostpayer'), sy)
  const payee = await startParticipant(unique('lostpayee'), sy)
  closers.push(() => payer.close(), () => payee.close())
  await sy.provision(payer)
  await sy.provision(payee)
  return { sy, payer, payee, sums: await ledgerSums(sy.db) }
}

/** @param {any} sy @param {string} id */
const stateOf = async (sy, id) => (await sy.db('transfer').where({ transfer_id: id }).first('state')).state

test('a commit that was dead-lettered is sent again: the transfer commits, and payer and payee hear it', async () => {
  const { sy, payer, payee, sums } = await start()
  const allow = await refusePositionChanges(sy.db, await positionAccount(sy.db, payee.name))

  const { fulfilment, condition } = newCondition()
  const body = prepareBody({ payer: payer.name, payee: payee.name, condition, amount: '12.5' })
  payee.plan(body.transferId, { action: 'fulfil', fulfilment })
  expect((await sy.fspiop('POST', '/transfers', { source: payer.name, body })).status).toBe(202)
  // The payee fulfilled; its commit could not be applied and was dead-lettered.
  await waitUntil(() => payee.answers.some((a) => a.transferId === body.transferId && a.status === 200), { what: 'the payee fulfilled' })
  await waitUntil(async () => (await stateOf(sy, body.transferId)) === 'RECEIVED_FULFIL', { what: 'the fulfil recorded' })
  await new Promise((resolve) => setTimeout(resolve, 1500))
  expect(await stateOf(sy, body.transferId)).toBe('RECEIVED_FULFIL')
  expect(payer.about(body.transferId).filter((r) => r.method === 'PUT')).toEqual([])

  await allow()
  await waitAllFinal(sy.db, [body.transferId])
  expect(await stateOf(sy, body.transferId)).toBe('COMMITTED')
  const committed = await payer.waitFor((r) => r.method === 'PUT' && r.path === `/transfers/${body.transferId}`, 'the payer hears COMMITTED')
  expect(committed.body).toMatchObject({ transferState: 'COMMITTED', fulfilment })
  await payee.waitFor((r) => r.method === 'PUT' && r.path === `/transfers/${body.transferId}`, 'the payee hears COMMITTED')
  expect(await sy.position(payer.name)).toBe('12.5')
  expect(await sy.position(payee.name)).toBe('-12.5')
  expect(await ledgerSums(sy.db)).toEqual(sums)
  // Once: the payer's funds moved a single time.
  const changes = await sy.db('participant_position_change').where({ transfer_id: body.transferId }).select('change')
  expect(changes.map((c) => Number(c.change)).sort((a, b) => a - b)).toEqual([-12.5, 12.5])
})

test('an abort after the payee\'s error that was dead-lettered is sent again: the payer\'s funds come back and it hears the error', async () => {
  const { sy, payer, payee, sums } = await start()

  const body = prepareBody({ payer: payer.name, payee: payee.name, condition: newCondition().condition, amount: '7' })
  payee.plan(body.transferId, { action: 'ignore' })
  expect((await sy.fspiop('POST', '/transfers', { source: payer.name, body })).status).toBe(202)
  await waitUntil(async () => (await stateOf(sy, body.transferId)) === 'RESERVED', { what: 'the transfer reserved' })
  expect(await sy.position(payer.name)).toBe('7')
  // From now the payer's position cannot move: the abort will be dead-lettered.
  const allow = await refusePositionChanges(sy.db, await positionAccount(sy.db, payer.name))
  const res = await sy.fspiop('PUT', `/transfers/${body.transferId}/error`, {
    source: payee.name,
    destination: payer.name,
    body: { errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected transfer' } }
  })
  expect(res.status).toBe(200)
  await waitUntil(async () => (await stateOf(sy, body.transferId)) === 'RECEIVED_ERROR', { what: 'the error recorded' })
  await new Promise((resolve) => setTimeout(resolve, 1500))
  expect(await stateOf(sy, body.transferId)).toBe('RECEIVED_ERROR')

  await allow()
  await waitAllFinal(sy.db, [body.transferId])
  expect(await stateOf(sy, body.transferId)).toBe('ABORTED_ERROR')
  const error = await payer.waitFor((r) => r.method === 'PUT' && r.path === `/transfers/${body.transferId}/error`, 'the payer hears the error')
  expect(error.body.errorInformation.errorCode).toBe('5101')
  expect(await sy.position(payer.name)).toBe('0')
  expect(await ledgerSums(sy.db)).toEqual(sums)
})
