'use strict'

const { planFulfils } = require('../../src/fulfil/plan')
const { S } = require('../../src/common/states')
const {
  config, HUB, POSITION_TOPIC, NOTIFICATION_TOPIC, PAYER, PAYEE, PAYER_ACCOUNT, PAYEE_ACCOUNT, TRANSFER_ID, NOW, EXPIRES_AT,
  FULFILMENT, OTHER_FULFILMENT, nonCanonical, transferRow, rows, headers, fulfilCommand, fulfilPayload, errorPayload, seen
} = require('./fixtures')

const path = `/transfers/${TRANSFER_ID}`
const errorPath = `${path}/error`
const reserved = (overrides = {}) => transferRow({ state: S.RESERVED, ...overrides })
const plan = (commands, transfers = rows(reserved())) => ({ transfers, ...planFulfils({ config, commands, transfers }) })
const positionCommands = (out) => out.outgoing.filter((m) => m.topic === POSITION_TOPIC)
const callbacks = (out) => out.outgoing.filter((m) => m.topic === NOTIFICATION_TOPIC).map(seen)
const nothingChanged = (out) => {
  expect(out.transferChanges.size).toBe(0)
  expect(out.stateChanges).toEqual([])
  expect(positionCommands(out)).toEqual([])
}

describe('a fulfil for a reserved transfer', () => {
  test('a completedTimestamp the ledger cannot hold (the API refuses it) is stored as the time the fulfil arrived', () => {
    const c = fulfilCommand('fulfil', { payload: fulfilPayload({ completedTimestamp: '9999-12-31T23:59:59.999-19:59' }) })
    expect(plan([c]).transferChanges.get(TRANSFER_ID)).toMatchObject({ state: S.RECEIVED_FULFIL, completed_at: new Date(NOW) })
  })

  test.each([
    ['COMMITTED', false],
    ['RESERVED', true]
  ])('valid (transferState %s): RECEIVED_FULFIL and a commit sent to the payee account partition', (transferState, payeeReserved) => {
    const c = fulfilCommand('fulfil', { payload: fulfilPayload({ transferState }) })
    const out = plan([c])
    expect(out.transfers.get(TRANSFER_ID)).toMatchObject({ state: S.RECEIVED_FULFIL, fulfilment: FULFILMENT, fulfil_hash: c.hash, payee_reserved: payeeReserved })
    expect(out.transferChanges.get(TRANSFER_ID)).toEqual({
      state: S.RECEIVED_FULFIL, fulfilment: FULFILMENT, fulfil_hash: c.hash, completed_at: new Date('2025-03-01T12:00:10.000Z'), payee_reserved: payeeReserved
    })
    expect(out.stateChanges).toEqual([{ transfer_id: TRANSFER_ID, state: S.RECEIVED_FULFIL, reason: null }])
    expect(out.outgoing).toEqual([{
      topic: POSITION_TOPIC,
      key: String(PAYEE_ACCOUNT),
      headers: c.trace,
      value: { action: 'commit', transferId: TRANSFER_ID, accountId: PAYEE_ACCOUNT, amount: '10.0000', currency: 'USD', fulfil: { headers: c.headers, payload: c.payload } }
    }])
  })

  test('FSPIOP-Destination may be omitted', () => {
    expect(plan([fulfilCommand('fulfil', { hdrs: headers(PAYEE), payload: fulfilPayload() })]).transfers.get(TRANSFER_ID).state).toBe(S.RECEIVED_FULFIL)
  })

  test.each([
    ['another 32-byte value', OTHER_FULFILMENT],
    ['a non-canonical spelling of the right bytes', nonCanonical(FULFILMENT)]
  ])('invalid fulfilment (%s): RECEIVED_ERROR 3100 and an abort sent to the payer account partition', (_name, fulfilment) => {
    const c = fulfilCommand('fulfil', { payload: fulfilPayload({ fulfilment, transferState: 'RESERVED' }) })
    const out = plan([c])
    expect(out.transfers.get(TRANSFER_ID)).toMatchObject({ state: S.RECEIVED_ERROR, error_code: '3100', fulfil_hash: c.hash, fulfilment: null, payee_reserved: true })
    expect(out.outgoing).toHaveLength(1)
    expect(out.outgoing[0]).toMatchObject({
      topic: POSITION_TOPIC, key: String(PAYER_ACCOUNT), value: { action: 'abort', reason: 'invalid-fulfilment', accountId: PAYER_ACCOUNT, transferId: TRANSFER_ID, amount: '10.0000' }
    })
  })

  test('payee error: RECEIVED_ERROR with the payee code and an abort with reason error to the payer account partition', () => {
    const c = fulfilCommand('error', { payload: errorPayload('5105', 'Payee transaction limit reached') })
    const out = plan([c])
    expect(out.transfers.get(TRANSFER_ID)).toMatchObject({ state: S.RECEIVED_ERROR, error_code: '5105', error_description: 'Payee transaction limit reached', fulfil_hash: c.hash })
    expect(out.stateChanges).toEqual([{ transfer_id: TRANSFER_ID, state: S.RECEIVED_ERROR, reason: 'Payee transaction limit reached' }])
    expect(out.outgoing).toHaveLength(1)
    expect(out.outgoing[0]).toMatchObject({ key: String(PAYER_ACCOUNT), value: { action: 'abort', reason: 'error', accountId: PAYER_ACCOUNT } })
  })
})

describe('refused fulfils and errors: the sender hears an error from the hub, nothing changes', () => {
  test.each([
    ['fulfil from the payer', 'fulfil', { hdrs: headers(PAYER, PAYEE) }, reserved(), PAYER, '3100'],
    // Not party to it: as for a GET, the transfer is not found (nothing about it is told).
    ['error from a stranger', 'error', { hdrs: headers('otherfsp', PAYER) }, reserved(), 'otherfsp', '3208'],
    ['fulfil from a stranger', 'fulfil', { hdrs: headers('otherfsp', PAYER) }, reserved(), 'otherfsp', '3208'],
    ['FSPIOP-Destination is not the payer', 'fulfil', { hdrs: headers(PAYEE, 'otherfsp') }, reserved(), PAYEE, '3100'],
    ['unknown transfer', 'fulfil', { transferId: 'nope' }, reserved(), PAYEE, '3208'],
    ['not reserved yet', 'fulfil', {}, transferRow({ state: S.RECEIVED_PREPARE }), PAYEE, '3100'],
    ['error before it is reserved', 'error', {}, transferRow({ state: S.RECEIVED_PREPARE }), PAYEE, '3100'],
    ['fulfil at the expiration', 'fulfil', { timestamp: EXPIRES_AT }, reserved(), PAYEE, '3303'],
    ['fulfil after the expiration', 'fulfil', { timestamp: EXPIRES_AT + 1000 }, reserved(), PAYEE, '3303'],
    ['error after the expiration', 'error', { timestamp: EXPIRES_AT }, reserved(), PAYEE, '3303']
  ])('%s → %s', (_name, type, opts, stored, to, code) => {
    const payload = type === 'error' ? errorPayload() : fulfilPayload()
    const c = fulfilCommand(type, { payload, ...opts })
    const out = plan([c], rows(stored))
    nothingChanged(out)
    expect(out.transfers.get(TRANSFER_ID).state).toBe(stored.state)
    expect(callbacks(out)).toEqual([{ to, method: 'PUT', path: `/transfers/${c.transferId}/error`, from: HUB, errorCode: code }])
  })

  test('a fulfil one millisecond before the expiration is accepted', () => {
    expect(plan([fulfilCommand('fulfil', { payload: fulfilPayload(), timestamp: EXPIRES_AT - 1 })]).transfers.get(TRANSFER_ID).state).toBe(S.RECEIVED_FULFIL)
  })
})

describe('a first fulfil for a transfer already final answers with its current state', () => {
  test.each([
    [S.EXPIRED_RESERVED, { error_code: '3303', error_description: 'expired' }, errorPath, '3303'],
    [S.EXPIRED_PREPARED, { error_code: '3303', error_description: 'expired' }, errorPath, '3303'],
    [S.ABORTED_REJECTED, { error_code: '4200', error_description: 'limit' }, errorPath, '4200']
  ])('%s', (state, extra, expectedPath, code) => {
    const out = plan([fulfilCommand('fulfil', { payload: fulfilPayload() })], rows(transferRow({ state, ...extra })))
    nothingChanged(out)
    expect(callbacks(out)).toEqual([{ to: PAYEE, method: 'PUT', path: expectedPath, from: HUB, errorCode: code }])
  })
})

describe('duplicates', () => {
  const first = fulfilCommand('fulfil', { payload: fulfilPayload() })
  const committed = { state: S.COMMITTED, fulfilment: FULFILMENT, fulfil_hash: first.hash, completed_at: new Date('2025-03-01T12:00:10.000Z') }

  test('same fulfil, transfer COMMITTED: the payee gets PUT with the state and fulfilment', () => {
    const out = plan([first], rows(transferRow(committed)))
    nothingChanged(out)
    expect(callbacks(out)).toEqual([{ to: PAYEE, method: 'PUT', path, from: HUB, errorCode: undefined }])
    expect(out.outgoing[0].value.body).toEqual({ transferState: 'COMMITTED', fulfilment: FULFILMENT, completedTimestamp: '2025-03-01T12:00:10.000Z' })
  })

  test('same payee error, transfer ABORTED_ERROR: the payee gets its error back with the stored code', () => {
    const c = fulfilCommand('error', { payload: errorPayload('5101') })
    const out = plan([c], rows(transferRow({ state: S.ABORTED_ERROR, error_code: '5101', error_description: 'no', fulfil_hash: c.hash })))
    expect(callbacks(out)).toEqual([{ to: PAYEE, method: 'PUT', path: errorPath, from: HUB, errorCode: '5101' }])
  })

  test.each([S.RECEIVED_FULFIL, S.RECEIVED_ERROR])('same fulfil while %s: one more pending payee resend, no callback yet', (state) => {
    const out = plan([first], rows(transferRow({ state, fulfil_hash: first.hash, pending_payee_resends: 2 })))
    expect(out.transferChanges).toEqual(new Map([[TRANSFER_ID, { pending_payee_resends: 3 }]]))
    expect(out.stateChanges).toEqual([])
    expect(out.outgoing).toEqual([])
  })

  test.each([
    ['a different fulfilment', fulfilCommand('fulfil', { payload: fulfilPayload({ fulfilment: OTHER_FULFILMENT }) })],
    ['a different completedTimestamp', fulfilCommand('fulfil', { payload: fulfilPayload({ completedTimestamp: '2025-03-01T12:00:11.000Z' }) })],
    ['an error after a fulfil', fulfilCommand('error', { payload: errorPayload() })]
  ])('%s is 3106, whatever the state', (_name, c) => {
    for (const state of [S.COMMITTED, S.RECEIVED_FULFIL]) {
      const out = plan([c], rows(transferRow({ ...committed, state })))
      nothingChanged(out)
      expect(callbacks(out)).toEqual([{ to: PAYEE, method: 'PUT', path: errorPath, from: HUB, errorCode: '3106' }])
    }
  })

  test('within one batch: the copy waits as a pending resend, a modified one is 3106', () => {
    const modified = fulfilCommand('fulfil', { payload: fulfilPayload({ transferState: 'RESERVED' }) })
    const out = plan([first, { ...first }, modified])
    expect(out.transfers.get(TRANSFER_ID)).toMatchObject({ state: S.RECEIVED_FULFIL, pending_payee_resends: 1, payee_reserved: false })
    expect(positionCommands(out).map((m) => m.value.action)).toEqual(['commit'])
    expect(callbacks(out).map((m) => m.errorCode)).toEqual(['3106'])
  })
})

describe('GET /transfers/{id}', () => {
  test.each([
    [S.RECEIVED_PREPARE, 'RECEIVED'], [S.RESERVED, 'RESERVED'], [S.RECEIVED_FULFIL, 'RESERVED'], [S.RECEIVED_ERROR, 'RESERVED'],
    [S.COMMITTED, 'COMMITTED'], [S.ABORTED_REJECTED, 'ABORTED'], [S.ABORTED_ERROR, 'ABORTED'], [S.EXPIRED_PREPARED, 'ABORTED'],
    [S.EXPIRED_RESERVED, 'ABORTED'], [S.INVALID, 'ABORTED']
  ])('%s is reported as %s to the payer and to the payee', (state, apiState) => {
    for (const who of [PAYER, PAYEE]) {
      const out = plan([fulfilCommand('get', { hdrs: headers(who) })], rows(transferRow({ state, error_code: '3100' })))
      nothingChanged(out)
      expect(callbacks(out)).toEqual([{ to: who, method: 'PUT', path, from: HUB, errorCode: undefined }])
      expect(out.outgoing[0].value.body).toEqual({ transferState: apiState })
    }
  })

  test('a committed transfer is reported with its fulfilment and completion time', () => {
    const out = plan([fulfilCommand('get', { hdrs: headers(PAYER) })], rows(transferRow({ state: S.COMMITTED, fulfilment: FULFILMENT, completed_at: new Date(NOW) })))
    expect(out.outgoing[0].value.body).toEqual({ transferState: 'COMMITTED', fulfilment: FULFILMENT, completedTimestamp: new Date(NOW).toISOString() })
  })

  test.each([
    ['a stranger', 'otherfsp', TRANSFER_ID],
    ['the payer, for an unknown id', PAYER, 'nope']
  ])('%s hears 3208', (_name, who, transferId) => {
    const out = plan([fulfilCommand('get', { hdrs: headers(who), transferId })])
    nothingChanged(out)
    expect(callbacks(out)).toEqual([{ to: who, method: 'PUT', path: `/transfers/${transferId}/error`, from: HUB, errorCode: '3208' }])
  })

  test('a GET after a fulfil in the same batch sees the new state', () => {
    const out = plan([fulfilCommand('fulfil', { payload: fulfilPayload() }), fulfilCommand('get', { hdrs: headers(PAYER) })])
    expect(out.outgoing.map((m) => m.value.action || m.value.body.transferState)).toEqual(['commit', 'RESERVED'])
  })
})

describe('the version the hub answers a fulfil, an error or a GET in', () => {
  const versioned = (version) => `application/vnd.interoperability.transfers+json;version=${version}`
  // The API puts `version` in the command when the version negotiated with the request is not 1.1.
  const withVersion = (c, version) => (version === undefined ? c : { ...c, version })
  const contentTypes = (out) => out.outgoing.filter((m) => m.topic === NOTIFICATION_TOPIC).map((m) => m.value.headers['content-type'])

  test.each([
    ['1.0', '1.0'],
    ['2.0', '2.0'],
    ['none (1.1)', undefined]
  ])('negotiated %s', (_name, version) => {
    const expected = [versioned(version ?? '1.1')]
    // Refusals: from the payer, unknown, expired, and a modified duplicate.
    expect(contentTypes(plan([withVersion(fulfilCommand('fulfil', { hdrs: headers(PAYER, PAYEE), payload: fulfilPayload() }), version)]))).toEqual(expected)
    expect(contentTypes(plan([withVersion(fulfilCommand('error', { transferId: 'nope', payload: errorPayload() }), version)]))).toEqual(expected)
    expect(contentTypes(plan([withVersion(fulfilCommand('fulfil', { timestamp: EXPIRES_AT, payload: fulfilPayload() }), version)]))).toEqual(expected)
    const first = fulfilCommand('fulfil', { payload: fulfilPayload() })
    const committed = transferRow({ state: S.COMMITTED, fulfilment: FULFILMENT, fulfil_hash: first.hash, completed_at: new Date(NOW) })
    expect(contentTypes(plan([withVersion(fulfilCommand('error', { payload: errorPayload() }), version)], rows(committed)))).toEqual(expected)
    // States: a duplicate's, a final transfer's, and GETs (found and not).
    expect(contentTypes(plan([withVersion(first, version)], rows(committed)))).toEqual(expected)
    expect(contentTypes(plan([withVersion(fulfilCommand('fulfil', { payload: fulfilPayload() }), version)], rows(transferRow({ state: S.EXPIRED_RESERVED, error_code: '3303' }))))).toEqual(expected)
    expect(contentTypes(plan([withVersion(fulfilCommand('get', { hdrs: headers(PAYER) }), version)]))).toEqual(expected)
    expect(contentTypes(plan([withVersion(fulfilCommand('get', { hdrs: headers(PAYER), transferId: 'nope' }), version)]))).toEqual(expected)
  })

  test('a fulfil takes its version to the position handler, which answers the payee in it', () => {
    const c = withVersion(fulfilCommand('fulfil', { payload: fulfilPayload() }), '2.0')
    expect(plan([c]).outgoing[0].value.fulfil).toEqual({ headers: c.headers, payload: c.payload, version: '2.0' })
  })
})
