'use strict'

const { applyPositionCommands } = require('../../src/position/calculate')
const { planFulfils } = require('../../src/fulfil/plan')
const { S, isFinal } = require('../../src/common/states')
const { parseAmount } = require('@switchyard/shared/money')
const {
  config, HUB, PAYER, PAYEE, PAYER_ACCOUNT, PAYEE_ACCOUNT, TRANSFER_ID, NOW, EXPIRES_AT, FULFILMENT, OTHER_FULFILMENT,
  transferRow, rows, positionCommand, account, seen, headers, fulfilCommand, fulfilPayload, errorPayload
} = require('./fixtures')

const U = 10000n // ledger units per currency unit
const path = `/transfers/${TRANSFER_ID}`
const errorPath = `${path}/error`
const COMPLETED = new Date('2025-03-01T12:00:10.000Z')

/** Runs one batch against the given rows and accounts (both mutated, as the handler's locked copies are). */
const apply = (commands, transfers, accounts, nowMs = NOW) => applyPositionCommands({ config, commands, transfers, accounts, nowMs })
const payerAccount = (value = 0n, cap = 1000n * U, liquidity = 1000n * U) => new Map([[PAYER_ACCOUNT, account(value, cap, liquidity)]])
const bothAccounts = () => new Map([[PAYER_ACCOUNT, account(10n * U, 1000n * U, 1000n * U)], [PAYEE_ACCOUNT, account(0n, 1000n * U, 1000n * U)]])

describe('reserve', () => {
  test('within limits: the payer position grows, the transfer is RESERVED and the payee gets the prepare', () => {
    const transfers = rows(transferRow())
    const c = positionCommand('reserve')
    const out = apply([c], transfers, payerAccount())
    expect(transfers.get(TRANSFER_ID).state).toBe(S.RESERVED)
    expect(out.positionChanges).toEqual([{ account_id: PAYER_ACCOUNT, transfer_id: TRANSFER_ID, change: 10n * U, value_after: 10n * U }])
    expect(out.accountValues).toEqual(new Map([[PAYER_ACCOUNT, 10n * U]]))
    expect(out.transferChanges).toEqual(new Map([[TRANSFER_ID, { state: S.RESERVED }]]))
    expect(out.stateChanges).toEqual([{ transfer_id: TRANSFER_ID, state: S.RESERVED, reason: null }])
    expect(out.outgoing).toHaveLength(1)
    expect(seen(out.outgoing[0])).toEqual({ to: PAYEE, method: 'POST', path: '/transfers', from: PAYER, errorCode: undefined })
    expect(out.outgoing[0].value).toMatchObject({ endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', body: c.prepare.payload })
  })

  test('the payee gets the payer\'s headers as sent (Accept, Date, signature), with FSPIOP-Destination set when the payer left it out', () => {
    const sent = { ...headers(PAYER), 'fspiop-signature': 'sig', accept: 'application/vnd.interoperability.transfers+json;version=1' }
    const c = positionCommand('reserve', TRANSFER_ID, { prepare: { headers: sent, payload: positionCommand('reserve').prepare.payload } })
    expect(apply([c], rows(transferRow()), payerAccount()).outgoing[0].value.headers).toEqual({ ...sent, 'fspiop-destination': PAYEE })
    const named = positionCommand('reserve')
    expect(apply([named], rows(transferRow()), payerAccount()).outgoing[0].value.headers['fspiop-destination']).toBe(named.prepare.headers['fspiop-destination'])
  })

  test.each([
    ['exactly at the cap', 5n * U, 15n * U, 100n * U, null],
    ['one unit over the cap', 5n * U, 15n * U - 1n, 100n * U, '4200'],
    ['exactly at the liquidity', 5n * U, 100n * U, 15n * U, null],
    ['one unit over the liquidity', 5n * U, 100n * U, 15n * U - 1n, '4001'],
    ['over both: liquidity is checked first, as a Mojaloop hub does', 5n * U, 1n * U, 1n * U, '4001'],
    ['a negative position (prefunded) leaves room', -20n * U, 0n, 0n, null]
  ])('%s (position %s, cap %s, liquidity %s) → %s', (_name, value, cap, liquidity, code) => {
    const transfers = rows(transferRow())
    const accounts = payerAccount(value, cap, liquidity)
    const out = apply([positionCommand('reserve')], transfers, accounts)
    const t = transfers.get(TRANSFER_ID)
    if (!code) {
      expect(t.state).toBe(S.RESERVED)
      expect(accounts.get(PAYER_ACCOUNT).value).toBe(value + 10n * U)
      return
    }
    expect(t).toMatchObject({ state: S.ABORTED_REJECTED, error_code: code })
    expect(accounts.get(PAYER_ACCOUNT).value).toBe(value)
    expect(out.positionChanges).toEqual([])
    expect(out.accountValues.size).toBe(0)
    expect(out.stateChanges).toEqual([{ transfer_id: TRANSFER_ID, state: S.ABORTED_REJECTED, reason: t.error_description }])
    expect(out.outgoing.map(seen)).toEqual([{ to: PAYER, method: 'PUT', path: errorPath, from: HUB, errorCode: code }])
  })

  test('running totals: the third of three reserves is refused once the cumulative position would pass the cap', () => {
    const ids = ['t1', 't2', 't3']
    const transfers = rows(...ids.map((id) => transferRow({ transfer_id: id })))
    const out = apply(ids.map((id) => positionCommand('reserve', id)), transfers, payerAccount(0n, 25n * U))
    expect(ids.map((id) => transfers.get(id).state)).toEqual([S.RESERVED, S.RESERVED, S.ABORTED_REJECTED])
    expect(out.positionChanges.map((p) => p.value_after)).toEqual([10n * U, 20n * U])
    expect(out.accountValues).toEqual(new Map([[PAYER_ACCOUNT, 20n * U]]))
    expect(out.outgoing.map((m) => [m.value.transferId, seen(m).to, seen(m).errorCode])).toEqual([['t1', PAYEE, undefined], ['t2', PAYEE, undefined], ['t3', PAYER, '4200']])
  })

  test('a refused reserve does not consume room: a smaller later one still fits', () => {
    const transfers = rows(transferRow({ transfer_id: 'a' }), transferRow({ transfer_id: 'b', amount: '20.0000' }), transferRow({ transfer_id: 'c', amount: '5.0000' }))
    apply(['a', 'b', 'c'].map((id) => positionCommand('reserve', id)), transfers, payerAccount(0n, 16n * U))
    expect(['a', 'b', 'c'].map((id) => transfers.get(id).state)).toEqual([S.RESERVED, S.ABORTED_REJECTED, S.RESERVED])
  })

  test.each([
    ['the message was written at the expiration', { timestamp: EXPIRES_AT }, NOW],
    ['the handler reads it after the expiration', { timestamp: NOW }, EXPIRES_AT + 1]
  ])('a reserve arriving after expiration expires the transfer instead (%s)', (_name, extra, nowMs) => {
    const transfers = rows(transferRow())
    const out = apply([positionCommand('reserve', TRANSFER_ID, extra)], transfers, payerAccount(), nowMs)
    expect(transfers.get(TRANSFER_ID)).toMatchObject({ state: S.EXPIRED_PREPARED, error_code: '3303' })
    expect(out.positionChanges).toEqual([])
    expect(out.outgoing.map(seen)).toEqual([
      { to: PAYER, method: 'PUT', path: errorPath, from: HUB, errorCode: '3303' },
      { to: PAYEE, method: 'PUT', path: errorPath, from: HUB, errorCode: '3303' }
    ])
  })
})

describe('commit', () => {
  test.each([
    ['payee sent COMMITTED: both get PUT', 0, 'PUT', { transferState: 'COMMITTED', fulfilment: FULFILMENT, completedTimestamp: COMPLETED.toISOString() }],
    ['payee sent RESERVED: the payee gets PATCH', 1, 'PATCH', { transferState: 'COMMITTED', completedTimestamp: COMPLETED.toISOString() }]
  ])('%s; the payee position decreases', (_name, payeeReserved, payeeMethod, payeeBody) => {
    const transfers = rows(transferRow({ state: S.RECEIVED_FULFIL, fulfilment: FULFILMENT, completed_at: COMPLETED, payee_reserved: payeeReserved }))
    const accounts = bothAccounts()
    const out = apply([positionCommand('commit', TRANSFER_ID, { fulfil: { headers: headers(PAYEE, PAYER), payload: {} } })], transfers, accounts)
    expect(transfers.get(TRANSFER_ID).state).toBe(S.COMMITTED)
    expect(out.positionChanges).toEqual([{ account_id: PAYEE_ACCOUNT, transfer_id: TRANSFER_ID, change: -10n * U, value_after: -10n * U }])
    expect(accounts.get(PAYER_ACCOUNT).value).toBe(10n * U)
    expect(out.outgoing.map(seen)).toEqual([
      { to: PAYER, method: 'PUT', path, from: PAYEE, errorCode: undefined },
      { to: PAYEE, method: payeeMethod, path, from: HUB, errorCode: undefined }
    ])
    expect(out.outgoing[0].value.body).toEqual({ transferState: 'COMMITTED', fulfilment: FULFILMENT, completedTimestamp: COMPLETED.toISOString() })
    expect(out.outgoing[1].value.body).toEqual(payeeBody)
  })

  test('the payer gets the payee\'s own PUT, as sent: its completedTimestamp, its extensionList and its signature', () => {
    const transfers = rows(transferRow({ state: S.RECEIVED_FULFIL, fulfilment: FULFILMENT, completed_at: COMPLETED }))
    const payload = fulfilPayload({ completedTimestamp: '2025-03-01T13:00:10.000+01:00', extensionList: { extension: [{ key: 'payeeRef', value: 'r-1' }] } })
    const signed = { ...headers(PAYEE, PAYER), 'fspiop-signature': '{"signature":"s","protectedHeader":"p"}' }
    const out = apply([positionCommand('commit', TRANSFER_ID, { fulfil: { headers: signed, payload } })], transfers, bothAccounts())
    // With the payee's Date, which its signature's protected header carries.
    expect(out.outgoing[0].value).toMatchObject({ to: PAYER, method: 'PUT', body: payload, headers: { 'fspiop-source': PAYEE, 'fspiop-signature': signed['fspiop-signature'], date: signed.date } })
    // The payee hears the hub's own confirmation, unsigned.
    expect(out.outgoing[1].value.headers).not.toHaveProperty('fspiop-signature')
  })

  test('a payee that answered RESERVED: the payer hears COMMITTED with the payee\'s other fields, unsigned (the body changed)', () => {
    const transfers = rows(transferRow({ state: S.RECEIVED_FULFIL, fulfilment: FULFILMENT, completed_at: COMPLETED, payee_reserved: 1 }))
    const payload = fulfilPayload({ transferState: 'RESERVED', extensionList: { extension: [{ key: 'k', value: 'v' }] } })
    const signed = { ...headers(PAYEE, PAYER), 'fspiop-signature': 'sig' }
    const out = apply([positionCommand('commit', TRANSFER_ID, { fulfil: { headers: signed, payload } })], transfers, bothAccounts())
    expect(out.outgoing[0].value.body).toEqual({ ...payload, transferState: 'COMMITTED' })
    expect(out.outgoing[0].value.headers).not.toHaveProperty('fspiop-signature')
  })
})

describe('abort after RECEIVED_ERROR', () => {
  test('payer error from the payee: released, the payer hears the payee code from the payee, the payee nothing', () => {
    const transfers = rows(transferRow({ state: S.RECEIVED_ERROR, error_code: '5101', error_description: 'no' }))
    const accounts = bothAccounts()
    const out = apply([positionCommand('abort', TRANSFER_ID, { reason: 'error' })], transfers, accounts)
    expect(transfers.get(TRANSFER_ID).state).toBe(S.ABORTED_ERROR)
    expect(accounts.get(PAYER_ACCOUNT).value).toBe(0n)
    expect(out.positionChanges).toEqual([{ account_id: PAYER_ACCOUNT, transfer_id: TRANSFER_ID, change: -10n * U, value_after: 0n }])
    expect(out.outgoing.map(seen)).toEqual([{ to: PAYER, method: 'PUT', path: errorPath, from: PAYEE, errorCode: '5101' }])
  })

  test('the payee\'s error reaches the payer as the payee sent it: whole description, extensionList, signature', () => {
    const long = 'x'.repeat(300)
    const transfers = rows(transferRow({ state: S.RECEIVED_ERROR, error_code: '5101', error_description: long.slice(0, 256) }))
    const payload = { errorInformation: { errorCode: '5101', errorDescription: long, extensionList: { extension: [{ key: 'reason', value: 'closed' }] } } }
    const signed = { ...headers(PAYEE, PAYER), 'fspiop-signature': 'sig' }
    const out = apply([positionCommand('abort', TRANSFER_ID, { reason: 'error', fulfil: { headers: signed, payload } })], transfers, bothAccounts())
    expect(out.outgoing).toHaveLength(1)
    expect(out.outgoing[0].value).toMatchObject({ to: PAYER, body: payload, headers: { 'fspiop-source': PAYEE, 'fspiop-signature': 'sig' } })
  })

  test.each([
    [0, { to: PAYEE, method: 'PUT', path: errorPath, from: HUB, errorCode: '3100' }],
    [1, { to: PAYEE, method: 'PATCH', path, from: HUB, errorCode: undefined }]
  ])('invalid fulfilment (payee_reserved %s): released, the payer hears 3100 from the hub, the payee is told too', (payeeReserved, toPayee) => {
    const transfers = rows(transferRow({ state: S.RECEIVED_ERROR, error_code: '3100', error_description: 'bad', payee_reserved: payeeReserved }))
    const out = apply([positionCommand('abort', TRANSFER_ID, { reason: 'invalid-fulfilment' })], transfers, bothAccounts())
    expect(transfers.get(TRANSFER_ID).state).toBe(S.ABORTED_ERROR)
    expect(out.positionChanges.map((p) => [p.account_id, p.change])).toEqual([[PAYER_ACCOUNT, -10n * U]])
    expect(out.outgoing.map(seen)).toEqual([{ to: PAYER, method: 'PUT', path: errorPath, from: HUB, errorCode: '3100' }, toPayee])
    if (payeeReserved) expect(out.outgoing[1].value.body).toEqual({ transferState: 'ABORTED', completedTimestamp: new Date(NOW).toISOString() })
  })
})

describe('expiry', () => {
  test.each([
    [S.RECEIVED_PREPARE, S.EXPIRED_PREPARED, 0n, []],
    [S.RESERVED, S.EXPIRED_RESERVED, 10n * U, [-10n * U]]
  ])('from %s → %s, 3303 to both', (from, to, value, changes) => {
    const transfers = rows(transferRow({ state: from }))
    const accounts = payerAccount(value)
    const out = apply([positionCommand('abort', TRANSFER_ID, { reason: 'expired' })], transfers, accounts)
    expect(transfers.get(TRANSFER_ID)).toMatchObject({ state: to, error_code: '3303' })
    expect(out.positionChanges.map((p) => p.change)).toEqual(changes)
    expect(accounts.get(PAYER_ACCOUNT).value).toBe(0n)
    expect(out.outgoing.map(seen)).toEqual([
      { to: PAYER, method: 'PUT', path: errorPath, from: HUB, errorCode: '3303' },
      { to: PAYEE, method: 'PUT', path: errorPath, from: HUB, errorCode: '3303' }
    ])
  })
})

describe('late and duplicate commands change nothing', () => {
  test.each([
    ['commit', {}, S.COMMITTED], ['abort', { reason: 'error' }, S.COMMITTED], ['abort', { reason: 'expired' }, S.COMMITTED],
    ['reserve', {}, S.RESERVED], ['commit', {}, S.RESERVED], ['abort', { reason: 'error' }, S.RESERVED],
    ['abort', { reason: 'expired' }, S.RECEIVED_FULFIL], ['abort', { reason: 'expired' }, S.RECEIVED_ERROR],
    ['reserve', {}, S.EXPIRED_PREPARED], ['abort', { reason: 'expired' }, S.EXPIRED_RESERVED], ['commit', {}, S.ABORTED_ERROR]
  ])('%s %j on %s', (action, extra, state) => {
    const transfers = rows(transferRow({ state, error_code: '3100' }))
    const accounts = bothAccounts()
    const out = apply([positionCommand(action, TRANSFER_ID, extra)], transfers, accounts)
    expect(transfers.get(TRANSFER_ID).state).toBe(state)
    expect(out).toEqual({ transferChanges: new Map(), stateChanges: [], positionChanges: [], accountValues: new Map(), outgoing: [] })
    expect(accounts).toEqual(bothAccounts())
  })

  test('a command for an unknown transfer is ignored', () => {
    expect(apply([positionCommand('reserve', 'nope')], new Map(), payerAccount()).outgoing).toEqual([])
  })

  test('the same commit twice in one batch moves the payee once', () => {
    const transfers = rows(transferRow({ state: S.RECEIVED_FULFIL, fulfilment: FULFILMENT }))
    const out = apply([positionCommand('commit'), positionCommand('commit')], transfers, bothAccounts())
    expect(out.positionChanges).toHaveLength(1)
    expect(out.outgoing).toHaveLength(2)
  })
})

describe('pending resends are answered at the final state and reset', () => {
  test.each([
    ['commit', { state: S.RECEIVED_FULFIL, fulfilment: FULFILMENT }, {}, path, undefined],
    ['reserve', { state: S.RECEIVED_PREPARE }, {}, errorPath, '4001'],
    ['abort', { state: S.RESERVED }, { reason: 'expired' }, errorPath, '3303']
  ])('%s reaching a final state', (action, stored, extra, copyPath, code) => {
    const transfers = rows(transferRow({ ...stored, pending_payer_resends: 2, pending_payee_resends: 1 }))
    const accounts = new Map([[PAYER_ACCOUNT, account(10n * U, 10n * U, 10n * U)], [PAYEE_ACCOUNT, account(0n, 0n, 0n)]])
    const out = apply([positionCommand(action, TRANSFER_ID, extra)], transfers, accounts)
    const copies = out.outgoing.slice(-3).map(seen)
    expect(copies).toEqual([
      { to: PAYER, method: 'PUT', path: copyPath, from: HUB, errorCode: code },
      { to: PAYER, method: 'PUT', path: copyPath, from: HUB, errorCode: code },
      { to: PAYEE, method: 'PUT', path: copyPath, from: HUB, errorCode: code }
    ])
    expect(transfers.get(TRANSFER_ID)).toMatchObject({ pending_payer_resends: 0, pending_payee_resends: 0 })
    expect(out.transferChanges.get(TRANSFER_ID)).toMatchObject({ pending_payer_resends: 0, pending_payee_resends: 0 })
  })
})

describe('conservation over random command sequences', () => {
  // Small deterministic PRNG so a failure is reproducible from its seed.
  const prng = (seed) => () => { // mulberry32
    seed = (seed + 0x6D2B79F5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  const HOLDS = new Set([S.RESERVED, S.RECEIVED_FULFIL, S.RECEIVED_ERROR, S.COMMITTED])
  const sumOf = (accounts) => [...accounts.values()].reduce((sum, a) => sum + a.value, 0n)
  const toCommand = (m) => ({ ...m.value, timestamp: NOW, trace: {} })

  // Each batch, like the handlers, reads the stored rows and account values and
  // writes back only what it returns (transferChanges, accountValues).
  test.each(Array.from({ length: 40 }, (_, i) => i + 1))('seed %i', (seed) => {
    const rnd = prng(seed)
    const pick = (list) => list[Math.floor(rnd() * list.length)]
    const payers = [[PAYER_ACCOUNT, PAYER], [33, 'payer2']]
    const db = rows(...['a', 'b', 'c', 'd', 'e'].map((id) => {
      const [accountId, fsp] = pick(payers)
      return transferRow({ transfer_id: id, payer_account_id: accountId, payer_fsp: fsp, amount: `${1 + Math.floor(rnd() * 20)}.0000` })
    }))
    const initial = new Map([[PAYER_ACCOUNT, 3n * U], [33, -5n * U], [PAYEE_ACCOUNT, 0n]])
    const values = new Map(initial)
    const read = () => new Map([...db].map(([id, t]) => [id, structuredClone(t)]))
    const write = (changes) => { for (const [id, change] of changes) Object.assign(db.get(id), change) }
    const history = new Map([...db.keys()].map((id) => [id, []]))
    const resends = new Map([...db.keys()].map((id) => [id, 0]))
    const toPayer = new Map([...db.keys()].map((id) => [id, 0]))
    const queue = []
    const deliver = (batch) => {
      const accounts = new Map([...values].map(([id, value]) => [id, account(value, 30n * U, 25n * U)]))
      const before = sumOf(accounts)
      const out = apply(batch, read(), accounts)
      write(out.transferChanges)
      for (const [id, value] of out.accountValues) values.set(id, value)
      for (const c of out.stateChanges) history.get(c.transfer_id).push(c.state)
      for (const m of out.outgoing) if (m.value.to === db.get(m.value.transferId).payer_fsp) toPayer.set(m.value.transferId, toPayer.get(m.value.transferId) + 1)
      expect(out.positionChanges.reduce((sum, p) => sum + p.change, 0n)).toBe(sumOf(accounts) - before)
    }
    for (let step = 0; step < 60; step++) {
      const id = pick([...db.keys()])
      const kind = pick(['reserve', 'reserve', 'reserve', 'late-reserve', 'fulfil', 'fulfil', 'bad-fulfil', 'error', 'expire', 'resend', 'deliver', 'deliver', 'deliver', 'deliver'])
      if (kind === 'reserve' || kind === 'late-reserve') queue.push(positionCommand('reserve', id, kind === 'late-reserve' ? { timestamp: EXPIRES_AT } : {}))
      else if (kind === 'expire') queue.push(positionCommand('abort', id, { reason: 'expired' }))
      else if (kind === 'resend') {
        // The prepare handler's answer to a resend: now if final, else one more pending.
        if (isFinal(db.get(id).state)) continue
        db.get(id).pending_payer_resends++
        resends.set(id, resends.get(id) + 1)
      } else if (kind === 'deliver') {
        const batch = queue.splice(0, 1 + Math.floor(rnd() * 3))
        if (rnd() < 0.3 && batch.length) queue.push(batch[0]) // delivered again later
        deliver(batch)
      } else {
        const payload = kind === 'error' ? errorPayload() : fulfilPayload(kind === 'bad-fulfil' ? { fulfilment: OTHER_FULFILMENT } : {})
        const plan = planFulfils({ config, commands: [fulfilCommand(kind === 'error' ? 'error' : 'fulfil', { transferId: id, payload })], transfers: read() })
        write(plan.transferChanges)
        for (const c of plan.stateChanges) history.get(c.transfer_id).push(c.state)
        queue.push(...plan.outgoing.filter((m) => m.value.action).map(toCommand))
      }
    }
    deliver(queue.splice(0)) // everything sent is eventually applied
    const expected = new Map(initial)
    for (const t of db.values()) {
      expect(Object.values(S)).toContain(t.state)
      expect([S.RECEIVED_FULFIL, S.RECEIVED_ERROR]).not.toContain(t.state) // their commit or abort was applied
      const amount = parseAmount(t.amount)
      if (HOLDS.has(t.state)) expected.set(t.payer_account_id, expected.get(t.payer_account_id) + amount)
      if (t.state === S.COMMITTED) expected.set(t.payee_account_id, expected.get(t.payee_account_id) - amount)
      const states = history.get(t.transfer_id)
      const firstFinal = states.findIndex(isFinal)
      if (firstFinal >= 0) expect(states.slice(firstFinal + 1)).toEqual([]) // a final state never changes
      // The payer hears the outcome once, plus once per resend that waited for it.
      const final = isFinal(t.state)
      expect([t.transfer_id, toPayer.get(t.transfer_id), t.pending_payer_resends]).toEqual([t.transfer_id, final ? 1 + resends.get(t.transfer_id) : 0, final ? 0 : resends.get(t.transfer_id)])
    }
    expect(values).toEqual(expected)
  })
})

describe('the version of the callbacks', () => {
  const versioned = (version) => `application/vnd.interoperability.transfers+json;version=${version}`
  const contentTypes = (out) => out.outgoing.map((m) => [m.value.to, m.value.method, m.value.headers['content-type']])
  const prepare = (version) => ({ headers: headers(PAYER, PAYEE), payload: positionCommand('reserve').prepare.payload, version })
  // The payee's PUT was sent as 1.1 and negotiated (its Accept) to `version`.
  const fulfil = (version, payload = fulfilPayload()) => ({ headers: headers(PAYEE, PAYER), payload, version })

  test.each(['1.0', '2.0'])('a refused reservation answers the payer\'s prepare in the version negotiated with it (%s)', (version) => {
    const out = apply([positionCommand('reserve', TRANSFER_ID, { prepare: prepare(version) })], rows(transferRow()), payerAccount(0n, 1n * U, 1000n * U))
    expect(seen(out.outgoing[0]).errorCode).toBe('4200')
    expect(contentTypes(out)).toEqual([[PAYER, 'PUT', versioned(version)]])
  })

  test.each(['1.0', '2.0'])('commit: the payee\'s confirmation is in the version negotiated with its PUT (%s); the payer hears the payee\'s PUT in its Content-Type', (version) => {
    const transfers = rows(transferRow({ state: S.RECEIVED_FULFIL, fulfilment: FULFILMENT, completed_at: COMPLETED }))
    const out = apply([positionCommand('commit', TRANSFER_ID, { fulfil: fulfil(version) })], transfers, bothAccounts())
    expect(contentTypes(out)).toEqual([[PAYER, 'PUT', versioned('1.1')], [PAYEE, 'PUT', versioned(version)]])
  })

  test.each(['1.0', '2.0'])('an invalid fulfilment is refused to the payee in the version negotiated with its PUT (%s); the payer hears 1.1', (version) => {
    const transfers = rows(transferRow({ state: S.RECEIVED_ERROR, error_code: '3100', error_description: 'bad' }))
    const out = apply([positionCommand('abort', TRANSFER_ID, { reason: 'invalid-fulfilment', fulfil: fulfil(version) })], transfers, bothAccounts())
    expect(contentTypes(out)).toEqual([[PAYER, 'PUT', versioned('1.1')], [PAYEE, 'PUT', versioned(version)]])
  })

  test.each([['2.0', '2.0'], [undefined, '1.1'], ['1.0', '1.1']])('the PATCH answering a payee\'s RESERVED is in the version negotiated with that PUT (%s), never 1.0, which has no PATCH', (version, expected) => {
    const committing = rows(transferRow({ state: S.RECEIVED_FULFIL, fulfilment: FULFILMENT, completed_at: COMPLETED, payee_reserved: 1 }))
    const committed = apply([positionCommand('commit', TRANSFER_ID, { fulfil: fulfil(version, fulfilPayload({ transferState: 'RESERVED' })) })], committing, bothAccounts())
    expect(contentTypes(committed)[1]).toEqual([PAYEE, 'PATCH', versioned(expected)])
    const aborting = rows(transferRow({ state: S.RECEIVED_ERROR, error_code: '3100', error_description: 'bad', payee_reserved: 1 }))
    const aborted = apply([positionCommand('abort', TRANSFER_ID, { reason: 'invalid-fulfilment', fulfil: fulfil(version) })], aborting, bothAccounts())
    expect(contentTypes(aborted)[1]).toEqual([PAYEE, 'PATCH', versioned(expected)])
  })

  test('an expiry answers no request: 1.1 to both', () => {
    const out = apply([positionCommand('abort', TRANSFER_ID, { reason: 'expired' })], rows(transferRow({ state: S.RESERVED })), payerAccount(10n * U))
    expect(contentTypes(out)).toEqual([[PAYER, 'PUT', versioned('1.1')], [PAYEE, 'PUT', versioned('1.1')]])
  })
})
