'use strict'

const { planPrepares } = require('../../src/prepare/plan')
const {
  config, HUB, POSITION_TOPIC, NOTIFICATION_TOPIC, PAYER, PAYEE, PAYER_ACCOUNT, PAYEE_ACCOUNT, TRANSFER_ID, NOW, EXPIRES_AT,
  FULFILMENT, CONDITION, participants, prepareCommand, transferRow, rows, headers, seen
} = require('./fixtures')

const ID2 = '01JN0000000000000000000002'

const plan = (commands, existing = new Map()) =>
  planPrepares({ config, commands, existing, participants: participants(), nowMs: NOW })

describe('a new prepare', () => {
  test('valid: stored RECEIVED_PREPARE and a reserve sent to the payer account partition', () => {
    const c = prepareCommand()
    const out = plan([c])
    expect(out.rows).toEqual([{
      transfer_id: TRANSFER_ID,
      payer_fsp: PAYER,
      payee_fsp: PAYEE,
      payer_account_id: PAYER_ACCOUNT,
      payee_account_id: PAYEE_ACCOUNT,
      amount: '10.0000',
      currency: 'USD',
      ilp_condition: CONDITION,
      expiration: new Date(EXPIRES_AT),
      request_hash: c.hash,
      state: 'RECEIVED_PREPARE',
      error_code: null,
      error_description: null,
      fulfilment: null,
      completed_at: null,
      pending_payer_resends: 0
    }])
    expect(out.stateChanges).toEqual([{ transfer_id: TRANSFER_ID, state: 'RECEIVED_PREPARE' }])
    expect(out.pending).toEqual([])
    expect(out.outgoing).toEqual([{
      topic: POSITION_TOPIC,
      key: String(PAYER_ACCOUNT),
      headers: c.trace,
      value: {
        action: 'reserve',
        transferId: TRANSFER_ID,
        accountId: PAYER_ACCOUNT,
        amount: '10',
        currency: 'USD',
        prepare: { headers: c.headers, payload: c.payload }
      }
    }])
  })

  test('an expiration the ledger cannot hold: refused with 3100 and stored with a time the column holds', () => {
    const out = plan([prepareCommand({ expiration: '9999-12-31T23:59:59.999-19:59' })])
    expect(out.rows[0]).toMatchObject({ state: 'INVALID', error_code: '3100', expiration: new Date(NOW) })
  })

  test('a JPY prepare reserves on the payer JPY account', () => {
    const out = plan([prepareCommand({ amount: { amount: '700', currency: 'JPY' } })])
    expect(out.outgoing[0]).toMatchObject({ key: '12', value: { accountId: 12, amount: '700', currency: 'JPY' } })
    expect(out.rows[0]).toMatchObject({ payer_account_id: 12, payee_account_id: 23, amount: '700.0000', currency: 'JPY' })
  })

  test.each([
    ['a spoofed FSPIOP-Source', {}, headers('otherfsp', PAYEE), 'otherfsp', '3100', '10.0000'],
    ['an unknown payee', { payeeFsp: 'nobody' }, headers(PAYER, 'nobody'), PAYER, '3203', '10.0000'],
    ['too many decimals', { amount: { amount: '1.001', currency: 'USD' } }, headers(PAYER, PAYEE), PAYER, '3100', '1.0010'],
    ['an amount that is not a number', { amount: { amount: 'ten', currency: 'USD' } }, headers(PAYER, PAYEE), PAYER, '3100', '0.0000'],
    ['an amount beyond the ledger', { amount: { amount: '100000000000000', currency: 'USD' } }, headers(PAYER, PAYEE), PAYER, '3100', '0.0000'],
    ['an expired prepare', { expiration: '2025-03-01T11:00:00.000Z' }, headers(PAYER, PAYEE), PAYER, '3100', '10.0000']
  ])('invalid (%s): stored INVALID with its code; the FSPIOP-Source hears the error; nothing reserved', (_name, payload, hdrs, to, code, storedAmount) => {
    const out = plan([prepareCommand(payload, hdrs)])
    expect(out.rows).toHaveLength(1)
    expect(out.rows[0]).toMatchObject({
      state: 'INVALID', error_code: code, payer_account_id: null, payee_account_id: null, amount: storedAmount, pending_payer_resends: 0
    })
    expect(out.rows[0].error_description).toEqual(expect.any(String))
    expect(out.stateChanges).toEqual([{ transfer_id: TRANSFER_ID, state: 'INVALID', reason: out.rows[0].error_description }])
    expect(out.outgoing).toHaveLength(1)
    expect(out.outgoing[0].topic).toBe(NOTIFICATION_TOPIC)
    expect(out.outgoing[0].key).toBe(to)
    expect(seen(out.outgoing[0])).toEqual({ to, method: 'PUT', path: `/transfers/${TRANSFER_ID}/error`, from: HUB, errorCode: code })
    expect(out.outgoing[0].value.endpointType).toBe('FSPIOP_CALLBACK_URL_TRANSFER_ERROR')
  })

  test('an unparseable expiration is stored as the time of the decision', () => {
    expect(plan([prepareCommand({ expiration: 'soon' })]).rows[0]).toMatchObject({ state: 'INVALID', expiration: new Date(NOW) })
  })
})

describe('a resend of a stored transfer (same body)', () => {
  const committed = { state: 'COMMITTED', fulfilment: FULFILMENT, completed_at: new Date('2025-03-01T12:00:10.000Z') }
  test.each([
    ['COMMITTED', committed, 'PUT', `/transfers/${TRANSFER_ID}`, undefined, { transferState: 'COMMITTED', fulfilment: FULFILMENT, completedTimestamp: '2025-03-01T12:00:10.000Z' }],
    ['ABORTED_REJECTED (4200)', { state: 'ABORTED_REJECTED', error_code: '4200', error_description: 'limit' }, 'PUT', `/transfers/${TRANSFER_ID}/error`, '4200', { errorInformation: { errorCode: '4200', errorDescription: 'limit' } }],
    ['ABORTED_ERROR (payee 5101)', { state: 'ABORTED_ERROR', error_code: '5101', error_description: 'no' }, 'PUT', `/transfers/${TRANSFER_ID}/error`, '5101', { errorInformation: { errorCode: '5101', errorDescription: 'no' } }],
    ['EXPIRED_RESERVED (3303)', { state: 'EXPIRED_RESERVED', error_code: '3303', error_description: 'late' }, 'PUT', `/transfers/${TRANSFER_ID}/error`, '3303', { errorInformation: { errorCode: '3303', errorDescription: 'late' } }],
    ['INVALID (3100)', { state: 'INVALID', error_code: '3100', error_description: 'bad' }, 'PUT', `/transfers/${TRANSFER_ID}/error`, '3100', { errorInformation: { errorCode: '3100', errorDescription: 'bad' } }]
  ])('final %s: the payer gets the current state at once, nothing is stored or reserved', (_name, stored, method, path, errorCode, body) => {
    const out = plan([prepareCommand()], rows(transferRow(stored)))
    expect(out.rows).toEqual([])
    expect(out.stateChanges).toEqual([])
    expect(out.pending).toEqual([])
    expect(out.outgoing).toHaveLength(1)
    expect(seen(out.outgoing[0])).toEqual({ to: PAYER, method, path, from: HUB, errorCode })
    expect(out.outgoing[0].value.body).toEqual(body)
  })

  test.each(['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'RECEIVED_ERROR'])('in flight %s: remembered as pending, no callback yet', (state) => {
    const c = prepareCommand()
    const out = plan([c], rows(transferRow({ state })))
    expect(out).toEqual({ rows: [], stateChanges: [], outgoing: [], pending: [{ transferId: TRANSFER_ID, to: PAYER, trace: c.trace }] })
  })

  test.each(['RECEIVED_PREPARE', 'COMMITTED', 'INVALID'])('a different body for a stored %s transfer is 3106 to the sender', (state) => {
    const out = plan([prepareCommand({ amount: { amount: '11', currency: 'USD' } })], rows(transferRow({ state, error_code: state === 'INVALID' ? '3100' : null })))
    expect(out.rows).toEqual([])
    expect(out.pending).toEqual([])
    expect(out.outgoing.map(seen)).toEqual([{ to: PAYER, method: 'PUT', path: `/transfers/${TRANSFER_ID}/error`, from: HUB, errorCode: '3106' }])
  })
})

describe('the same id more than once in one batch', () => {
  test('same body: one row, one reserve, the copies counted as pending on the new row', () => {
    const c = prepareCommand()
    const out = plan([c, { ...c }, { ...c }])
    expect(out.rows).toHaveLength(1)
    expect(out.rows[0]).toMatchObject({ state: 'RECEIVED_PREPARE', pending_payer_resends: 2 })
    expect(out.outgoing.map((m) => m.value.action)).toEqual(['reserve'])
    expect(out.pending).toEqual([])
  })

  test('different body: the first is kept, the second is 3106', () => {
    const out = plan([prepareCommand(), prepareCommand({ amount: { amount: '11', currency: 'USD' } })])
    expect(out.rows).toHaveLength(1)
    expect(out.rows[0]).toMatchObject({ amount: '10.0000', pending_payer_resends: 0 })
    expect(out.outgoing.map((m) => m.value.action || seen(m).errorCode)).toEqual(['reserve', '3106'])
  })

  test('the first was invalid: the copy is answered with the same error', () => {
    const c = prepareCommand({ payeeFsp: 'nobody' }, headers(PAYER))
    const out = plan([c, { ...c }])
    expect(out.rows).toHaveLength(1)
    expect(out.outgoing.map((m) => seen(m).errorCode)).toEqual(['3203', '3203'])
  })
})

test('a mixed batch: each transfer decided on its own, messages in input order', () => {
  const stored = transferRow({ transfer_id: ID2, state: 'COMMITTED', fulfilment: FULFILMENT })
  const resend = prepareCommand({ transferId: ID2 })
  stored.request_hash = resend.hash
  const out = plan([prepareCommand(), resend, prepareCommand({ transferId: 'bad-1', payerFsp: PAYEE }, headers(PAYEE, PAYEE))], rows(stored))
  expect(out.rows.map((r) => [r.transfer_id, r.state])).toEqual([[TRANSFER_ID, 'RECEIVED_PREPARE'], ['bad-1', 'INVALID']])
  expect(out.outgoing.map((m) => [m.key, m.value.transferId, m.value.action || m.value.path])).toEqual([
    [String(PAYER_ACCOUNT), TRANSFER_ID, 'reserve'],
    [PAYER, ID2, `/transfers/${ID2}`],
    [PAYEE, 'bad-1', '/transfers/bad-1/error']
  ])
})

describe('the version the hub answers a prepare in', () => {
  const versioned = (version) => `application/vnd.interoperability.transfers+json;version=${version}`
  // The API puts `version` in the command when the version negotiated with the request is not 1.1.
  const withVersion = (c, version) => (version === undefined ? c : { ...c, version })

  test.each([
    ['1.0', '1.0'],
    ['2.0', '2.0'],
    ['none (1.1)', undefined]
  ])('negotiated %s: a rejection, a 3106 and a resend\'s state come in that version', (_name, version) => {
    const expected = versioned(version ?? '1.1')
    const invalid = plan([withVersion(prepareCommand({ payeeFsp: 'nobody' }, headers(PAYER, 'nobody')), version)])
    expect(seen(invalid.outgoing[0]).errorCode).toBe('3203')
    expect(invalid.outgoing[0].value.headers['content-type']).toBe(expected)

    const modified = plan([withVersion(prepareCommand({ amount: { amount: '11', currency: 'USD' } }), version)], rows(transferRow()))
    expect(seen(modified.outgoing[0]).errorCode).toBe('3106')
    expect(modified.outgoing[0].value.headers['content-type']).toBe(expected)

    for (const stored of [{ state: 'COMMITTED', fulfilment: FULFILMENT, completed_at: new Date(NOW) }, { state: 'ABORTED_REJECTED', error_code: '4200', error_description: 'limit' }]) {
      const resend = plan([withVersion(prepareCommand(), version)], rows(transferRow(stored)))
      expect(resend.outgoing).toHaveLength(1)
      expect(resend.outgoing[0].value.headers['content-type']).toBe(expected)
    }
  })

  test('a valid prepare takes its version to the position handler, which answers a refused reservation in it', () => {
    const c = withVersion(prepareCommand(), '2.0')
    expect(plan([c]).outgoing[0].value.prepare).toEqual({ headers: c.headers, payload: c.payload, version: '2.0' })
  })
})
