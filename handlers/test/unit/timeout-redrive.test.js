'use strict'

const { redriveCommand } = require('../../src/timeout')

const t = { transfer_id: 'tid', payer_account_id: 12, payee_account_id: 34, amount: '10.5', currency: 'USD' }

test('a transfer stuck after its fulfil gets its commit again, on the payee\'s position partition', () => {
  expect(redriveCommand({ ...t, state: 'RECEIVED_FULFIL' })).toEqual({
    key: '34', value: { action: 'commit', transferId: 'tid', accountId: 34, amount: '10.5', currency: 'USD' }
  })
})

test('a transfer stuck after an error gets its abort again, on the payer\'s partition, as a recovered one', () => {
  expect(redriveCommand({ ...t, state: 'RECEIVED_ERROR' })).toEqual({
    key: '12', value: { action: 'abort', reason: 'recovered', transferId: 'tid', accountId: 12, amount: '10.5', currency: 'USD' }
  })
})
