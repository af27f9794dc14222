'use strict'

// Two-phase transfers end to end on the real stack, as participants see them:
// requests to the API, callbacks at their own HTTP servers, positions through
// the admin API. After every test the ledger balances.

const crypto = require('node:crypto')
const { startSwitchyard, prepareBody } = require('../../../test/support/switchyard')
const { startParticipant, newCondition } = require('../../../perf/src/load/participant')
const { ledgerSums, waitAllFinal, overdueTransfers } = require('../../../test/support/ledger')
const { unique } = require('../../../test/support/config')
const { requestHash } = require('../../src/common/hash')
const { waitUntil } = require('../../../test/support/wait')

let sy
let sumsBefore
const open = []
const transferIds = []

beforeAll(async () => { sy = await startSwitchyard() })
afterAll(async () => {
  await sy.stop()
  for (const p of open) await p.close()
})
beforeEach(async () => { sumsBefore = await ledgerSums(sy.db) })
afterEach(async () => {
  await waitAllFinal(sy.db, transferIds.splice(0))
  expect(await ledgerSums(sy.db)).toEqual(sumsBefore)
  expect(await overdueTransfers(sy.db)).toEqual([])
})

/** Two provisioned participants with their simulators. */
async function pair (opts = {}) {
  const payer = await startParticipant(unique('payer'), sy)
  const payee = await startParticipant(unique('payee'), sy)
  open.push(payer, payee)
  await sy.provision(payer, opts.payer)
  await sy.provision(payee, opts.payee)
  return { payer, payee }
}

/** Sends a prepare; the payee answers as `plan` says. */
async function send ({ payer, payee }, plan = { action: 'fulfil' }, body = {}) {
  const { fulfilment, condition } = newCondition()
  const prepare = prepareBody({ payer: payer.name, payee: payee.name, condition, ...body })
  payee.plan(prepare.transferId, { fulfilment, ...plan })
  const res = await sy.fspiop('POST', '/transfers', { source: payer.name, destination: payee.name, body: prepare })
  expect(res).toEqual({ status: 202, body: undefined })
  transferIds.push(prepare.transferId)
  return { prepare, fulfilment, id: prepare.transferId }
}

const put = (id) => (r) => r.method === 'PUT' && r.path === `/transfers/${id}`
const putError = (id) => (r) => r.method === 'PUT' && r.path === `/transfers/${id}/error`
const countOf = (p, match) => p.received.filter(match).length

test('golden path: the payee gets the payer\'s request, both get COMMITTED, positions move by the amount', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const { prepare, fulfilment, id } = await send(parties, { action: 'fulfil' }, { amount: '100.5' })

  const forwarded = await payee.waitFor((r) => r.method === 'POST' && r.path === '/transfers', 'the forwarded prepare')
  expect(forwarded.body).toEqual(prepare)
  expect(forwarded.headers).toMatchObject({ 'fspiop-source': payer.name, 'fspiop-destination': payee.name, 'fspiop-uri': '/transfers', 'fspiop-http-method': 'POST' })

  const committed = await payer.waitFor(put(id), 'PUT COMMITTED')
  expect(committed.body).toEqual({ transferState: 'COMMITTED', fulfilment, completedTimestamp: expect.any(String) })
  expect(committed.headers).toMatchObject({ 'fspiop-source': payee.name, 'fspiop-destination': payer.name, 'fspiop-uri': `/transfers/${id}`, 'fspiop-http-method': 'PUT' })
  const toPayee = await payee.waitFor(put(id), 'PUT COMMITTED')
  expect(toPayee.body).toMatchObject({ transferState: 'COMMITTED' })

  expect(await sy.position(payer.name)).toBe('100.5')
  expect(await sy.position(payee.name)).toBe('-100.5')
})

test('each callback reaches its participant once and is recorded once: delivered at its first attempt, under the id of the record that asked for it', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const { id } = await send(parties)
  await payer.waitFor(put(id), 'PUT COMMITTED')
  await payee.waitFor(put(id), 'PUT COMMITTED')
  // The notification stage writes the rows once it has the records: the
  // callbacks were tried before that (CALLBACK_EARLY), and the records took
  // those attempts over rather than making their own.
  const rows = await waitUntil(async () => {
    const found = await sy.db('callback').where({ transfer_id: id }).select('callback_id', 'participant', 'method', 'path', 'status', 'attempts')
    return found.length >= 3 && found.every((r) => r.status === 'DELIVERED') && found
  }, { what: 'three delivered callback rows' })
  expect(rows.map(({ participant, method, path, status, attempts }) => ({ participant, method, path, status, attempts })).sort((a, b) => a.participant.localeCompare(b.participant) || a.method.localeCompare(b.method))).toEqual([
    { participant: payee.name, method: 'POST', path: '/transfers', status: 'DELIVERED', attempts: 1 },
    { participant: payee.name, method: 'PUT', path: `/transfers/${id}`, status: 'DELIVERED', attempts: 1 },
    { participant: payer.name, method: 'PUT', path: `/transfers/${id}`, status: 'DELIVERED', attempts: 1 }
  ].sort((a, b) => a.participant.localeCompare(b.participant) || a.method.localeCompare(b.method)))
  // Named after the notification record: topic, partition and offset.
  for (const r of rows) expect(r.callback_id).toMatch(new RegExp(`^${sy.config.KAFKA_TOPIC_PREFIX.replace(/\./g, '\\.')}notification:\\d+:\\d+@`))
  const attempts = await sy.db('callback_attempt').whereIn('callback_id', rows.map((r) => r.callback_id)).select('callback_id', 'attempt', 'status_code')
  expect(attempts.map((a) => [a.callback_id, a.attempt, a.status_code]).sort()).toEqual(rows.map((r) => [r.callback_id, 1, 200]).sort())
  expect(countOf(payee, (r) => r.method === 'POST' && r.path === '/transfers' && r.body.transferId === id)).toBe(1)
  expect(countOf(payee, put(id))).toBe(1)
  expect(countOf(payer, put(id))).toBe(1)
})

test('the payer gets the payee\'s PUT as the payee sent it: its extensionList, its completedTimestamp, its signature', async () => {
  const parties = await pair()
  const extensionList = { extension: [{ key: 'payeeReference', value: 'inv-42' }] }
  const signature = JSON.stringify({ signature: 'c2ln', protectedHeader: 'eyJhbGciOiJSUzI1NiJ9' })
  const { id } = await send(parties, { action: 'fulfil', extensionList, signature })
  const committed = await parties.payer.waitFor(put(id), 'PUT COMMITTED')
  expect(committed.body).toEqual(parties.payee.sent(id))
  expect(committed.body.extensionList).toEqual(extensionList)
  expect(committed.headers).toMatchObject({ 'fspiop-source': parties.payee.name, 'fspiop-signature': signature })
})

test('bodies passed on arrive byte for byte, so a signature over them still verifies: the payer\'s POST and the payee\'s PUT, indented and with escapes', async () => {
  const { payer, payee } = await pair()
  const { fulfilment, condition } = newCondition()
  const note = { extension: [{ key: 'note', value: 'café a/b' }] }
  // What JSON.stringify of the parsed body would not give back: spacing, \u00e9 and \/.
  const wire = (/** @type {any} */ body) => JSON.stringify(body, null, 2).replace('café a/b', 'caf\\u00e9 a\\/b')
  const prepare = { ...prepareBody({ payer: payer.name, payee: payee.name, condition }), extensionList: note }
  payee.plan(prepare.transferId, { action: 'fulfil', fulfilment, extensionList: note, text: wire })
  const text = wire(prepare)
  expect(text).toContain('caf\\u00e9 a\\/b')
  expect((await sy.fspiop('POST', '/transfers', { source: payer.name, destination: payee.name, text })).status).toBe(202)
  transferIds.push(prepare.transferId)
  const forwarded = await payee.waitFor((r) => r.method === 'POST' && r.path === '/transfers', 'the forwarded prepare')
  expect(forwarded.raw).toBe(text)
  const committed = await payer.waitFor(put(prepare.transferId), 'PUT COMMITTED')
  expect(committed.raw).toBe(wire(payee.sent(prepare.transferId)))
  expect(committed.body.extensionList).toEqual(note)
})

test('the payer gets the payee\'s error as the payee sent it, extensionList included', async () => {
  const parties = await pair()
  const extensionList = { extension: [{ key: 'reason', value: 'account closed' }] }
  const { id } = await send(parties, { action: 'reject', errorCode: '5105', extensionList })
  const error = await parties.payer.waitFor(putError(id), 'PUT error')
  expect(error.body).toEqual({ errorInformation: { errorCode: '5105', errorDescription: 'Payee rejected transfer', extensionList } })
  expect(await sy.position(parties.payer.name)).toBe('0')
})

test('a payee that answers RESERVED gets a PATCH with the final state', async () => {
  const parties = await pair()
  const { id } = await send(parties, { action: 'reserve' })
  await parties.payer.waitFor(put(id), 'PUT COMMITTED')
  const patch = await parties.payee.waitFor((r) => r.method === 'PATCH' && r.path === `/transfers/${id}`, 'PATCH')
  expect(patch.body).toEqual({ transferState: 'COMMITTED', completedTimestamp: expect.any(String) })
})

test('GET answers the payer and the payee with the state, 3208 for unknown transfers and for non-parties', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const { id, fulfilment } = await send(parties)
  await payer.waitFor(put(id), 'PUT COMMITTED')

  expect((await sy.fspiop('GET', `/transfers/${id}`, { source: payer.name })).status).toBe(202)
  await waitForCount(payer, put(id), 2)
  expect(payer.received.filter(put(id))[1].body).toEqual({ transferState: 'COMMITTED', fulfilment, completedTimestamp: expect.any(String) })

  const unknown = crypto.randomUUID()
  await sy.fspiop('GET', `/transfers/${unknown}`, { source: payee.name })
  const notFound = await payee.waitFor(putError(unknown), '3208')
  expect(notFound.body.errorInformation.errorCode).toBe('3208')

  const stranger = await startParticipant(unique('other'), sy)
  open.push(stranger)
  await sy.provision(stranger)
  await sy.fspiop('GET', `/transfers/${id}`, { source: stranger.name })
  expect((await stranger.waitFor(putError(id), '3208')).body.errorInformation.errorCode).toBe('3208')
})

/** @param {any} p @param {(r: any) => boolean} match @param {number} n */
async function waitForCount (p, match, n) {
  const { waitUntil } = require('../../../test/support/wait')
  await waitUntil(() => countOf(p, match) >= n, { what: `${n} matching callbacks at ${p.name}` })
}

test('a duplicate prepare gets the final state again; a modified one gets 3106', async () => {
  const parties = await pair()
  const { payer } = parties
  const { prepare, id } = await send(parties)
  await payer.waitFor(put(id), 'PUT COMMITTED')

  await sy.fspiop('POST', '/transfers', { source: payer.name, body: prepare })
  await waitForCount(payer, put(id), 2)
  expect(payer.received.filter(put(id))[1].body.transferState).toBe('COMMITTED')

  await sy.fspiop('POST', '/transfers', { source: payer.name, body: { ...prepare, amount: { amount: '999', currency: 'USD' } } })
  const modified = await payer.waitFor(putError(id), '3106')
  expect(modified.body.errorInformation.errorCode).toBe('3106')
  expect(await sy.position(payer.name)).toBe('100')
})

test('a duplicate prepare while the transfer is in flight is answered once the transfer is final', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const { prepare, fulfilment, id } = await send(parties, { action: 'ignore' })
  await payee.waitFor((r) => r.method === 'POST' && r.body && r.body.transferId === id, 'the forwarded prepare')
  await sy.fspiop('POST', '/transfers', { source: payer.name, body: prepare })
  // The duplicate is stored as waiting before the payee completes the transfer.
  await waitFor(async () => (await sy.db('transfer').where({ transfer_id: id }).first()).pending_payer_resends === 1)
  expect(countOf(payer, put(id))).toBe(0)

  const res = await sy.fspiop('PUT', `/transfers/${id}`, { source: payee.name, destination: payer.name, body: { fulfilment, completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED' } })
  expect(res.status).toBe(200)
  await waitForCount(payer, put(id), 2)
  expect(payer.received.filter(put(id)).map((r) => r.body.transferState)).toEqual(['COMMITTED', 'COMMITTED'])
})

test('a duplicate of a transfer the duplicate filter never saw (stored by another replica, or before its window) still gets the final state', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const { prepare, id } = await send(parties)
  await payer.waitFor(put(id), 'PUT COMMITTED')
  // A committed transfer this process's filter has never seen: the stored
  // row of the first, under a new id and that body's hash.
  const again = { ...prepare, transferId: crypto.randomUUID() }
  const row = await sy.db('transfer').where({ transfer_id: id }).first()
  delete row.created_at
  delete row.updated_at
  await sy.db('transfer').insert({ ...row, transfer_id: again.transferId, request_hash: requestHash(again) })
  transferIds.push(again.transferId)

  const res = await sy.fspiop('POST', '/transfers', { source: payer.name, destination: payee.name, body: again })
  expect(res.status).toBe(202)
  const answer = await payer.waitFor(put(again.transferId), 'the stored final state')
  expect(answer.body.transferState).toBe('COMMITTED')
  expect(payee.received.filter((r) => r.method === 'POST' && r.body && r.body.transferId === again.transferId)).toEqual([])
  expect(await sy.position(payer.name)).toBe('100')
})

/** @param {() => Promise<boolean>} check */
const waitFor = (check) => require('../../../test/support/wait').waitUntil(check, { what: 'condition' })

test('a duplicate fulfil gets the final state again; a different one gets 3106', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const { id, fulfilment } = await send(parties, { action: 'ignore' })
  await payee.waitFor((r) => r.method === 'POST' && r.body && r.body.transferId === id, 'the forwarded prepare')
  const body = { fulfilment, completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED' }
  await sy.fspiop('PUT', `/transfers/${id}`, { source: payee.name, body })
  await payer.waitFor(put(id), 'PUT COMMITTED')
  await payee.waitFor(put(id), 'PUT COMMITTED')

  await sy.fspiop('PUT', `/transfers/${id}`, { source: payee.name, body })
  await waitForCount(payee, put(id), 2)
  await sy.fspiop('PUT', `/transfers/${id}`, { source: payee.name, body: { ...body, completedTimestamp: new Date(Date.now() + 1000).toISOString() } })
  expect((await payee.waitFor(putError(id), '3106')).body.errorInformation.errorCode).toBe('3106')
  expect(countOf(payer, put(id))).toBe(1)
})

test('an invalid fulfilment aborts with 3100 and restores the payer\'s position', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const { id } = await send(parties, { action: 'fulfil', fulfilment: newCondition().fulfilment })
  const toPayer = await payer.waitFor(putError(id), '3100')
  expect(toPayer.body.errorInformation).toEqual({ errorCode: '3100', errorDescription: expect.stringContaining('fulfilment does not match the condition') })
  expect((await payee.waitFor(putError(id), '3100')).body.errorInformation.errorCode).toBe('3100')
  expect(await sy.position(payer.name)).toBe('0')
  expect(await sy.position(payee.name)).toBe('0')
})

test('a payee error reaches the payer with the payee\'s code and restores the position', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const { id } = await send(parties, { action: 'reject', errorCode: '5101' })
  const toPayer = await payer.waitFor(putError(id), 'the payee error')
  expect(toPayer.body).toEqual({ errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected transfer' } })
  expect(toPayer.headers['fspiop-source']).toBe(payee.name)
  expect(await sy.position(payer.name)).toBe('0')
})

test('a transfer beyond the net debit cap is refused with 4200; beyond the liquidity with 4001', async () => {
  const capped = await pair({ payer: { ndc: '50', deposit: '1000' } })
  const { id: overCap } = await send(capped, { action: 'fulfil' }, { amount: '60' })
  expect((await capped.payer.waitFor(putError(overCap), '4200')).body.errorInformation.errorCode).toBe('4200')

  const poor = await pair({ payer: { ndc: '1000', deposit: '20' } })
  const { id: overLiquidity } = await send(poor, { action: 'fulfil' }, { amount: '21' })
  expect((await poor.payer.waitFor(putError(overLiquidity), '4001')).body.errorInformation.errorCode).toBe('4001')
  const { id: fits } = await send(poor, { action: 'fulfil' }, { amount: '20' })
  await poor.payer.waitFor(put(fits), 'PUT COMMITTED')
  expect(await sy.position(poor.payer.name)).toBe('20')
  expect(countOf(capped.payee, (r) => r.method === 'POST')).toBe(0)
})

test('a reserved transfer that expires is aborted with 3303 to both, the reservation released; a late fulfil gets 3303', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const { id, fulfilment } = await send(parties, { action: 'ignore' }, { expiresInMs: 4000 })
  await payee.waitFor((r) => r.method === 'POST' && r.body && r.body.transferId === id, 'the forwarded prepare')
  const toPayer = await payer.waitFor(putError(id), '3303')
  expect(toPayer.body.errorInformation.errorCode).toBe('3303')
  expect((await payee.waitFor(putError(id), '3303')).body.errorInformation.errorCode).toBe('3303')
  expect(await sy.position(payer.name)).toBe('0')
  expect((await sy.db('transfer').where({ transfer_id: id }).first()).state).toBe('EXPIRED_RESERVED')

  await sy.fspiop('PUT', `/transfers/${id}`, { source: payee.name, body: { fulfilment, completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED' } })
  await waitForCount(payee, putError(id), 2)
  expect(payee.received.filter(putError(id))[1].body.errorInformation.errorCode).toBe('3303')
})

test('prepares that fail validation are stored as invalid and answered with their error', async () => {
  const parties = await pair()
  const { payer, payee } = parties
  const unknownPayee = { ...payee, name: unique('nobody') }
  const { id: noPayee } = await send({ payer, payee: unknownPayee })
  expect((await payer.waitFor(putError(noPayee), '3203')).body.errorInformation.errorCode).toBe('3203')

  const { id: wrongSource } = await send(parties, { action: 'fulfil' }, { payer: payee.name, payee: payer.name })
  // Sent by the payer but naming the payee as payerFsp: FSPIOP-Source ≠ payerFsp.
  expect((await payer.waitFor(putError(wrongSource), '3100')).body.errorInformation.errorDescription).toMatch(/FSPIOP-Source/)

  expect((await sy.adminCall('PUT', `/participants/${payee.name}`, { isActive: false })).status).toBe(200)
  const { id: inactive } = await send(parties)
  expect((await payer.waitFor(putError(inactive), 'inactive payee')).body.errorInformation.errorDescription).toMatch(/inactive/)
  expect((await sy.db('transfer').where({ transfer_id: inactive }).first()).state).toBe('INVALID')
  expect(await sy.position(payer.name)).toBe('0')
})

test('an amount with more decimals than the currency allows is refused at the API', async () => {
  const { payer, payee } = await pair()
  const body = prepareBody({ payer: payer.name, payee: payee.name, condition: newCondition().condition, amount: '10.123' })
  const res = await sy.fspiop('POST', '/transfers', { source: payer.name, body })
  expect(res.status).toBe(400)
  expect(res.body.errorInformation.errorCode).toBe('3100')
})
